// The change feed's storage: the pointer's history (R2, the one copy with the whole history) and
// the change documents it names (content-addressed under changes/, so a parse checked once is
// kept in memory for good). Read only by /v1/changes and the feeds, never on a skill's path.
import { ChangeDocumentSchema, type ChangeDocument } from "../../core/changes/document.ts";
import { PointerSchema, type Pointer } from "../../core/generation/manifest.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { MemoryCache } from "../memory-cache.ts";
import type { StorageBindings } from "./bindings.ts";
import { parseWith, r2Text } from "./documents.ts";
import { StorageUnavailableError } from "./errors.ts";
import { changesKey, R2_POINTER_KEY } from "./keys.ts";

/**
 * Bytes of parsed change documents one isolate keeps, estimated as 2 bytes per character of their
 * JSON (V8 holds a parsed document in about 1.4). Enough for the first publish of a 10,000-skill
 * shelf (~1.2 MiB of JSON, every skill added) beside the small documents of later entries, so a
 * feed rendered for another skill does not read and parse it again.
 */
export const CHANGE_DOCUMENT_CACHE_BYTES = 4 * 1024 * 1024;

const documents = new MemoryCache<ChangeDocument>(CHANGE_DOCUMENT_CACHE_BYTES);

/** Forgets every cached change document (tests that count storage reads start cold). */
export function resetChangeDocuments(): void {
  documents.clear();
}

/** The pointer as stored, history included; null when nothing has been published. One R2 read. */
export async function readPointerHistory(env: StorageBindings): Promise<Pointer | null> {
  const text = await r2Text(env, R2_POINTER_KEY);
  return text === null ? null : parseWith(PointerSchema, text, R2_POINTER_KEY);
}

/**
 * A change document by digest, checked against its key; null when it is not stored (an entry
 * whose document was never written reads as unknown, never as "nothing changed").
 */
export async function readChangeDocument(env: StorageBindings, sha256: string): Promise<ChangeDocument | null> {
  const known = documents.get(sha256);
  if (known) return known;
  const key = changesKey(sha256);
  const text = await r2Text(env, key);
  if (text === null) return null;
  if ((await sha256Hex(new TextEncoder().encode(text))) !== sha256) throw new StorageUnavailableError(`${key} does not hash to its key`);
  const doc = parseWith(ChangeDocumentSchema, text, key);
  documents.set(sha256, doc, text.length * 2);
  return doc;
}
