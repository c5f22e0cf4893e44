// A generation's signatures as the read path sees them, checked against the schema and the
// generation (and shard) they claim, then kept in memory for SIGNATURES_TTL_MS. Two reads: one
// skill's signature from its shard's signature shard (one small R2 read per shard per isolate),
// and the whole document for the routes that show every skill's or the generation's signature.
// Generations signed before signature shards existed have only the whole document: a missing
// shard falls back to it. Generations built before signing have none: null, never an error.
import {
  SignaturesDocumentSchema,
  SignatureShardSchema,
  type SignatureShard,
  type SignaturesDocument,
  type SkillSignatureEntry,
} from "../../core/signing/signatures.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { StorageUnavailableError } from "./errors.ts";
import { signatureShardKey, signaturesKey } from "./keys.ts";

/** How long an isolate keeps a generation's signatures (or their absence): a re-signing shows within this. */
export const SIGNATURES_TTL_MS = 30_000;
/** At most this many generations' whole documents are remembered (then the map starts over). */
const SIGNATURES_CACHE_MAX = 64;
/** At most this many signature shards are remembered (~14 KB each at 10,000 skills; then the map starts over). */
const SIGNATURE_SHARDS_CACHE_MAX = 512;

/** A generation's signatures with the SHA-256 of their stored bytes (for ETags). */
export interface StoredSignatures {
  doc: SignaturesDocument;
  sha256: string;
}

/** The stored signature entry of one skill, with the document it came from (origin, and the digest for ETags). */
export interface StoredSkillSignature {
  /** The skill's entry, or null when the document has none for it. */
  entry: SkillSignatureEntry | null;
  origin: string;
  /** The SHA-256 of the stored bytes the entry was read from (its signature shard, or the whole document). */
  sha256: string;
}

const cache = new Map<string, { at: number; value: StoredSignatures | null }>();
const shardCache = new Map<string, { at: number; value: { shard: SignatureShard; sha256: string; byName: Map<string, SkillSignatureEntry> } | null }>();

/** Forgets every cached signatures document and shard (tests simulate a cold isolate or a re-signing). */
export function resetSignaturesCache(): void {
  cache.clear();
  shardCache.clear();
}

/** One R2 read of a whole object into memory; null when it is missing. */
async function readBytes(env: StorageBindings, key: string): Promise<Uint8Array | null> {
  try {
    const object = await env.SHELF_BUCKET.get(key);
    return object === null ? null : new Uint8Array(await object.arrayBuffer());
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
}

/**
 * The signatures of generation `id`, or null when it has none. StorageUnavailableError when R2
 * fails or the stored document is not a signatures document for this generation.
 * @example const signed = await readSignatures(env, generation.id)
 */
export async function readSignatures(env: StorageBindings, id: string, clock: Clock = Date.now): Promise<StoredSignatures | null> {
  const now = clock();
  const hit = cache.get(id);
  if (hit && now - hit.at < SIGNATURES_TTL_MS) return hit.value;
  const key = signaturesKey(id);
  const bytes = await readBytes(env, key);
  let value: StoredSignatures | null = null;
  if (bytes !== null) {
    const parsed = SignaturesDocumentSchema.safeParse(safeJson(bytes));
    if (!parsed.success || parsed.data.generation !== id) throw new StorageUnavailableError(`${key} is not the signatures of generation ${id}`);
    value = { doc: parsed.data, sha256: await sha256Hex(bytes) };
  }
  if (cache.size >= SIGNATURES_CACHE_MAX) cache.clear();
  cache.set(id, { at: now, value });
  return value;
}

/**
 * The stored signature of skill `name` of generation `id`, whose shard is `shard`: one read of
 * that shard's signatures, or (a generation signed before signature shards) of the whole
 * document. Null when the generation has no signatures. StorageUnavailableError when R2 fails or
 * what is stored is not what its key claims.
 * @example const signed = await readSkillSignature(env, generation.id, shardOf(name, generation.manifest.shard_count), name)
 */
export async function readSkillSignature(
  env: StorageBindings,
  id: string,
  shard: number,
  name: string,
  clock: Clock = Date.now,
): Promise<StoredSkillSignature | null> {
  const now = clock();
  const cacheKey = `${id}/${shard}`;
  let hit = shardCache.get(cacheKey);
  if (!hit || now - hit.at >= SIGNATURES_TTL_MS) {
    const key = signatureShardKey(id, shard);
    const bytes = await readBytes(env, key);
    let value: NonNullable<typeof hit>["value"] = null;
    if (bytes !== null) {
      const parsed = SignatureShardSchema.safeParse(safeJson(bytes));
      if (!parsed.success || parsed.data.generation !== id || parsed.data.shard !== shard)
        throw new StorageUnavailableError(`${key} is not shard ${shard}'s signatures of generation ${id}`);
      value = { shard: parsed.data, sha256: await sha256Hex(bytes), byName: new Map(parsed.data.skills.map((e) => [e.name, e])) };
    }
    if (shardCache.size >= SIGNATURE_SHARDS_CACHE_MAX) shardCache.clear();
    hit = { at: now, value };
    shardCache.set(cacheKey, hit);
  }
  if (hit.value !== null) return { entry: hit.value.byName.get(name) ?? null, origin: hit.value.shard.origin, sha256: hit.value.sha256 };
  const whole = await readSignatures(env, id, clock);
  if (whole === null) return null;
  return { entry: whole.doc.skills.find((e) => e.name === name) ?? null, origin: whole.doc.origin, sha256: whole.sha256 };
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
