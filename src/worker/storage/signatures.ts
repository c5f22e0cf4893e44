// A generation's signatures as the read path sees them, checked against the schema and the
// generation (and shard) they claim, then kept in memory for SIGNATURES_TTL_MS. Small reads only:
// one skill's signature from its shard's signature shard, a listing's from the signature shards
// it spans, the generation signature (and the digest ETags name) from its own object, and the
// payload it signs from another. Generations signed before those objects existed have only the
// whole document: a missing generation signature or shard falls back to it. Generations built
// before signing have none: null, never an error.
import {
  type GenerationPayload,
  GenerationPayloadSchema,
  type GenerationSignature,
  GenerationSignatureSchema,
  SignaturesDocumentSchema,
  SignatureShardSchema,
  type SignatureShard,
  type SignaturesDocument,
  type SkillSignatureEntry,
} from "../../core/signing/signatures.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { StorageUnavailableError } from "./errors.ts";
import { generationPayloadKey, generationSignatureKey, signatureShardKey, signaturesKey } from "./keys.ts";

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

/** A signature shard as kept: the shard, the SHA-256 of its bytes, its entries by name. */
export interface StoredSignatureShard {
  shard: SignatureShard;
  sha256: string;
  byName: Map<string, SkillSignatureEntry>;
}

const cache = new Map<string, { at: number; value: StoredSignatures | null }>();
const shardCache = new Map<string, { at: number; value: StoredSignatureShard | null }>();
const generationCache = new Map<string, { at: number; value: GenerationSignature | null }>();

/** Forgets every cached signatures document, shard and generation signature (tests simulate a cold isolate or a re-signing). */
export function resetSignaturesCache(): void {
  cache.clear();
  shardCache.clear();
  generationCache.clear();
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
 * Shard `shard`'s signatures of generation `id` (one small read per isolate per SIGNATURES_TTL_MS),
 * or null when none is stored (a generation signed before signature shards, or unsigned).
 * StorageUnavailableError when R2 fails or what is stored is not what its key claims.
 */
export async function readSignatureShard(env: StorageBindings, id: string, shard: number, clock: Clock = Date.now): Promise<StoredSignatureShard | null> {
  const now = clock();
  const cacheKey = `${id}/${shard}`;
  const hit = shardCache.get(cacheKey);
  if (hit && now - hit.at < SIGNATURES_TTL_MS) return hit.value;
  const key = signatureShardKey(id, shard);
  const bytes = await readBytes(env, key);
  let value: StoredSignatureShard | null = null;
  if (bytes !== null) {
    const parsed = SignatureShardSchema.safeParse(safeJson(bytes));
    if (!parsed.success || parsed.data.generation !== id || parsed.data.shard !== shard)
      throw new StorageUnavailableError(`${key} is not shard ${shard}'s signatures of generation ${id}`);
    value = { shard: parsed.data, sha256: await sha256Hex(bytes), byName: new Map(parsed.data.skills.map((e) => [e.name, e])) };
  }
  if (shardCache.size >= SIGNATURE_SHARDS_CACHE_MAX) shardCache.clear();
  shardCache.set(cacheKey, { at: now, value });
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
  const stored = await readSignatureShard(env, id, shard, clock);
  if (stored !== null) return { entry: stored.byName.get(name) ?? null, origin: stored.shard.origin, sha256: stored.sha256 };
  const whole = await readSignatures(env, id, clock);
  if (whole === null) return null;
  return { entry: whole.doc.skills.find((e) => e.name === name) ?? null, origin: whole.doc.origin, sha256: whole.sha256 };
}

/**
 * The generation signature of generation `id` with its document's digest (one small read per
 * isolate per SIGNATURES_TTL_MS), or null when none is stored: the generation is unsigned or was
 * signed before these objects existed (then its signature shards are missing too, and readers
 * read the whole document). StorageUnavailableError as readSignatures.
 */
export async function readGenerationSignature(env: StorageBindings, id: string, clock: Clock = Date.now): Promise<GenerationSignature | null> {
  const now = clock();
  const hit = generationCache.get(id);
  if (hit && now - hit.at < SIGNATURES_TTL_MS) return hit.value;
  const key = generationSignatureKey(id);
  const bytes = await readBytes(env, key);
  let value: GenerationSignature | null = null;
  if (bytes !== null) {
    const parsed = GenerationSignatureSchema.safeParse(safeJson(bytes));
    if (!parsed.success || parsed.data.generation !== id) throw new StorageUnavailableError(`${key} is not the generation signature of generation ${id}`);
    value = parsed.data;
  }
  if (generationCache.size >= SIGNATURES_CACHE_MAX) generationCache.clear();
  generationCache.set(id, { at: now, value });
  return value;
}

/**
 * The payload generation `id`'s signature signs (read only to build /v1/shelf's body, which the
 * read path caches itself). StorageUnavailableError when it is missing (it is written before the
 * generation signature that implies it) or is not this generation's payload.
 */
export async function readGenerationPayload(env: StorageBindings, id: string): Promise<GenerationPayload> {
  const key = generationPayloadKey(id);
  const bytes = await readBytes(env, key);
  const parsed = bytes === null ? null : GenerationPayloadSchema.safeParse(safeJson(bytes));
  if (!parsed?.success || parsed.data.generation !== id) throw new StorageUnavailableError(`${key} is not the generation payload of generation ${id}`);
  return parsed.data;
}

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
