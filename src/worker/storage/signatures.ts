// A generation's signatures as the read path sees them: one R2 read per generation per isolate
// (then memory), checked against the schema and the generation it claims. Generations built
// before signing have none: null, never an error.
import { SignaturesDocumentSchema, type SignaturesDocument } from "../../core/signing/signatures.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { StorageUnavailableError } from "./errors.ts";
import { signaturesKey } from "./keys.ts";

/** How long an isolate keeps a generation's signatures (or their absence): a re-signing shows within this. */
export const SIGNATURES_TTL_MS = 30_000;
/** At most this many generations' signatures are remembered (then the map starts over). */
const SIGNATURES_CACHE_MAX = 64;

/** A generation's signatures with the SHA-256 of their stored bytes (for ETags). */
export interface StoredSignatures {
  doc: SignaturesDocument;
  sha256: string;
}

const cache = new Map<string, { at: number; value: StoredSignatures | null }>();

/** Forgets every cached signatures document (tests simulate a cold isolate or a re-signing). */
export function resetSignaturesCache(): void {
  cache.clear();
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
  let bytes: Uint8Array | null;
  try {
    const object = await env.SHELF_BUCKET.get(key);
    bytes = object === null ? null : new Uint8Array(await object.arrayBuffer());
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
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

function safeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
