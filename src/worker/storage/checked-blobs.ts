// Small blobs' bytes, kept in the isolate once they hashed to their digest. A blob is
// content-addressed, so bytes that hashed to a digest are that digest's bytes in every generation,
// for as long as the isolate lives: a warm request for a small file (a SKILL.md, a reference)
// reads no R2 and hashes nothing, where it used to read the object and hash it on every request.
// Bounded by bytes, least recently used first out, so a large shelf cannot fill the isolate.
import { sha256Hex } from "../../core/skill/hash.ts";
import { MemoryCache } from "../memory-cache.ts";
import type { StorageBindings } from "./bindings.ts";
import { readBlobBytes } from "./documents.ts";
import { MissingObjectError, StorageUnavailableError } from "./errors.ts";
import { r2Key } from "./keys.ts";

/**
 * Blobs up to this size are hashed whenever they are read (and kept here once checked); larger
 * ones are believed on R2's stored SHA-256 checksum when they carry one (docs/reliability.md).
 */
export const HASHED_BLOB_MAX_BYTES = 64 * 1024;
/** The isolate's budget for kept blobs, in bytes held. */
export const CHECKED_BLOB_CACHE_BYTES = 8 * 1024 * 1024;

const kept = new MemoryCache<Uint8Array>(CHECKED_BLOB_CACHE_BYTES);

/** Forgets every kept blob (part of resetStorageMemory: tests that count storage reads start cold). */
export function resetCheckedBlobs(): void {
  kept.clear();
}

/**
 * A blob's whole bytes, checked against its digest and size: from the isolate's memory when a
 * request already checked them, else one R2 read, hashed, and kept when small. The bytes are
 * shared by every caller: never change them.
 * @throws MissingObjectError when R2 does not hold the blob
 * @throws StorageUnavailableError when R2 fails or its bytes are not the ones named
 * @example const bytes = await readCheckedBlob(env, file.sha256, file.size)
 */
export async function readCheckedBlob(env: StorageBindings, sha256: string, size: number): Promise<Uint8Array> {
  const known = kept.get(sha256);
  if (known !== undefined && known.byteLength === size) return known;
  const bytes = await readBlobBytes(env, sha256);
  if (bytes === null) throw new MissingObjectError(r2Key("blob", sha256));
  if (bytes.byteLength !== size || (await sha256Hex(bytes)) !== sha256) {
    throw new StorageUnavailableError(`blob bytes do not match the manifest: ${sha256} (${bytes.byteLength} bytes stored, ${size} named)`);
  }
  if (size <= HASHED_BLOB_MAX_BYTES) kept.set(sha256, bytes, size);
  return bytes;
}
