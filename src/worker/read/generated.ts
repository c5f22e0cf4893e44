// The isolate's cache of generated documents: the encoded bytes of every answer the Worker builds
// from a generation (the indexes, /v1/shelf, the read API's computed answers), with the ETag and
// media type they are served with, so a repeated request copies bytes instead of rebuilding them.
// One byte-bounded LRU for all of them. A key names everything its body depends on (the ETag
// already names the generation and the advisories in force; a route adds the caller's URL prefix
// when its body holds links), so an advisories change or a new generation is a new key, and the
// old one ages out. Never written to KV.
import { MemoryCache } from "../memory-cache.ts";
import { resetEdgeCacheKeys } from "./edge-cache.ts";
import { resetRenderedKeys } from "./rendered.ts";

/** Bytes of generated documents one isolate keeps (bodies and keys; the least recently used go first). */
export const GENERATED_CACHE_BYTES = 16 * 1024 * 1024;

/** One generated answer as it is served. */
export interface GeneratedDocument {
  /** The strong ETag it is served with. */
  etag: string;
  /** Its media type. */
  contentType: string;
  /** Its encoded bytes (copied into each response, never handed out to be changed). */
  body: Uint8Array;
}

const documents = new MemoryCache<GeneratedDocument>(GENERATED_CACHE_BYTES);

/**
 * The generated document kept under `key`, marked most recently used; undefined on a miss.
 * @example const hit = cachedGenerated(etag) ?? keepGenerated(etag, await build())
 */
export function cachedGenerated(key: string): GeneratedDocument | undefined {
  return documents.get(key);
}

/**
 * Keeps a generated document under `key` (evicting the least recently used beyond the budget)
 * and returns it.
 */
export function keepGenerated(key: string, document: GeneratedDocument): GeneratedDocument {
  documents.set(key, document, document.body.byteLength + 2 * (key.length + document.etag.length + document.contentType.length));
  return document;
}

/** Bytes the cache holds now (tests check that it is bounded). */
export function generatedBytes(): number {
  return documents.bytes;
}

/**
 * Forgets every generated document, here, in the platform's cache and in R2 (read/edge-cache.ts,
 * read/rendered.ts: later keys start afresh; tests only, production never calls it), as the first
 * request after a publish finds them (resetComputedCache in
 * read/respond.ts calls it; kept apart from resetStorageMemory so a test can drop the storage
 * memory and see what this cache still answers).
 */
export function resetGenerated(): void {
  documents.clear();
  resetEdgeCacheKeys();
  resetRenderedKeys();
}

/** Forgets the generated documents this isolate holds, not the platform cache's: a cold isolate in a warm location (tests). */
export function resetIsolateGenerated(): void {
  documents.clear();
}
