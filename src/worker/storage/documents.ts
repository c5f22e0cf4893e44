// The cache tiers every immutable document is read through: the isolate's memory, then KV (a
// cache, within a per-request byte budget), then R2 (the source of truth). A copy from KV or R2
// is used only once its bytes hash to its key; memory holds only checked parses. Never writes
// KV: the admin API fills KV when it stores an object, so the request path only reads.
import type { z } from "zod";
import type { ShardRef, SkillEntry } from "../../core/generation/manifest.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { parseShardDocument } from "./addressed.ts";
import type { StorageBindings } from "./bindings.ts";
import { MissingObjectError, StorageUnavailableError } from "./errors.ts";
import { kvKey, r2Key } from "./keys.ts";
import { MemoryCache } from "../memory-cache.ts";

/**
 * KV edge-cache TTL for immutable, content-addressed documents. Not longer: KV caches misses
 * too, and an edge that asked before a new document propagated would otherwise fall back to R2
 * for that document for as long as the TTL.
 */
const KV_IMMUTABLE_CACHE_TTL_S = 3_600;
/** No request reads more than this from KV; beyond it, listings read R2 (issue budget: 2 MB). */
const KV_REQUEST_BYTE_BUDGET = 1_800_000;
/**
 * Memory budget for parsed shards per isolate (isolates have 128 MB), in estimated heap bytes (see
 * SHARD_COST_PER_TEXT_CHAR): 30 MiB of shard JSON, so every shard of a 10,000-skill shelf of
 * five-file skills (17.8 MiB of JSON from `skillshelf build`, 24.0 MiB from bench/harness.ts's
 * build, 26.0 MiB from the budget bench's lean shelf, which at 40 MiB kept re-reading 5 shards a
 * warm MCP page) stays in memory, and a warm listing reads none of them. Shards have a budget of their
 * own: records and manifests (DOCUMENT_CACHE_BYTES) never evict them, which in one shared 44 MiB
 * budget left a warm 10,000-skill listing re-reading about 25 shards.
 */
const SHARD_CACHE_BYTES = 48 * 1024 * 1024;
/**
 * Memory budget for the other parsed documents (manifests, records) per isolate, in estimated heap
 * bytes: about 4 MiB of JSON, every record of a 1,000-skill shelf of five-file skills (3.5 MiB).
 * With the shards' 48 MiB, 56 MiB in all (44 MiB shared before shards had their own).
 */
const DOCUMENT_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * Estimated heap bytes a parsed document costs per character of its JSON text. Measured in V8
 * (Node 24, the engine workerd embeds) on 2026-12-02: the 256 shards of a 10,000-skill shelf (bench/shelf-gen.ts's
 * lean skills, five files each) parse into 1.50 bytes of heap per character with `listing` (28.0 MB
 * for 18.7 MB of JSON) and 1.55 without (17.4 MB for 11.2 MB); 2 leaves room for records with many
 * small values. An estimate of 4 made that shelf's shards overflow the budget, so every warm
 * listing re-read about 90 of them from R2.
 */
export const MEMORY_COST_PER_TEXT_CHAR = 2;
/**
 * The same for a parsed shard: measured 1.50 (above) with and without `listing`, so an estimate
 * close to it, and the shard budget stands for about the heap the shards take.
 */
export const SHARD_COST_PER_TEXT_CHAR = 1.6;
/** KV bulk get takes at most 100 keys and counts as one operation. */
const KV_BULK_GET_MAX = 100;
/** Parallel R2 reads when a listing falls back to R2. */
const R2_READ_CONCURRENCY = 16;

/** The immutable JSON documents of a generation, each stored under its SHA-256. */
export type DocumentKind = "generation" | "shard" | "record";

/** A shard as the reader keeps it: its entries in stored order, and by name. */
export interface ParsedShard {
  entries: Map<string, SkillEntry>;
  skills: SkillEntry[];
}

// Module state is per isolate: that is the memory cache. Shards apart from the rest (see SHARD_CACHE_BYTES).
const shards = new MemoryCache<ParsedShard>(SHARD_CACHE_BYTES, () => sortedListings.clear());
const documents = new MemoryCache<unknown>(DOCUMENT_CACHE_BYTES);

/** The memory cache a kind of document is kept in. */
function cacheOf(kind: DocumentKind): MemoryCache<unknown> {
  return kind === "shard" ? (shards as MemoryCache<unknown>) : documents;
}

/**
 * Every skill entry of a manifest's shards sorted by name, by the manifest's id: built once from
 * the parsed shards, then handed to every listing of that generation without a shard lookup or a
 * sort. It holds no entry the shard cache does not: any shard eviction forgets every listing,
 * so a listing never keeps an evicted shard's entries alive beside a re-read copy. Its own cost is
 * the array (8 bytes a skill); at most LISTINGS_KEPT generations.
 */
const sortedListings = new Map<string, { shards: readonly ParsedShard[]; sorted: SkillEntry[] }>();
const LISTINGS_KEPT = 4;

/** Forgets every parsed document (part of resetStorageMemory). */
export function resetDocuments(): void {
  shards.clear();
  documents.clear();
  sortedListings.clear();
}

/** Forgets one document, so neither memory nor a leftover KV copy serves it (gc collected it). */
export function forgetDocument(kind: DocumentKind, sha256: string): void {
  cacheOf(kind).delete(`${kind}:${sha256}`);
  if (kind === "shard") sortedListings.clear();
}

/** Estimated bytes the isolate's document caches hold now (tests check the accounting). */
export function storageMemoryBytes(): number {
  return shards.bytes + documents.bytes;
}

/**
 * Per-request read state: the KV bytes read (in UTF-8 bytes) so listings stay under
 * KV_REQUEST_BYTE_BUDGET, and the request's own in-flight loads.
 */
export class RequestReads {
  bytes = 0;
  readonly inflight = new Map<string, Promise<unknown>>();
  fits(size: number): boolean {
    return this.bytes + size <= KV_REQUEST_BYTE_BUDGET;
  }
}

/**
 * Runs `load` once per key at a time within one request, so concurrent lookups of the same
 * object in a request read it once. Never across requests: in Workers a promise started by
 * another request is bound to that request's I/O and fails or hangs if it is cancelled. Across
 * requests only settled values are shared (the memory cache and the live state).
 */
export async function once<T>(scope: RequestReads, key: string, load: () => Promise<T>): Promise<T> {
  const pending = scope.inflight.get(key) as Promise<T> | undefined;
  if (pending !== undefined) return pending;
  const promise = load().finally(() => scope.inflight.delete(key));
  scope.inflight.set(key, promise);
  return promise;
}

const encoder = new TextEncoder();

/**
 * A KV text's UTF-8 bytes, to count against the request's budget and to hash. Native encoding,
 * not a JavaScript loop over the characters: a cold isolate runs such a loop in the interpreter,
 * and over a listing's 2.4 MiB of shards that alone cost tens of milliseconds.
 */
function utf8Of(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Reads a KV value as text, counting its bytes; null on a miss or a KV failure (KV is a cache). */
export async function kvText(env: StorageBindings, key: string, cacheTtl: number, budget: RequestReads): Promise<string | null> {
  return (await kvRead(env, key, cacheTtl, budget)) ?? null;
}

/**
 * Reads a KV value as text, counting its bytes: null on a miss, undefined when KV failed (logged),
 * for the callers that tell the two apart (a live document's announcement, storage/live.ts).
 */
export async function kvRead(env: StorageBindings, key: string, cacheTtl: number, budget: RequestReads): Promise<string | null | undefined> {
  try {
    const text = await env.SHELF_KV.get(key, { type: "text", cacheTtl });
    if (text !== null) budget.bytes += utf8Of(text).byteLength;
    return text;
  } catch (err) {
    // KV is a cache: a failure falls back to R2.
    console.warn("KV read failed; falling back to R2", key, err);
    return undefined;
  }
}

/** Reads an R2 object as text; null when it is absent. R2 failures throw StorageUnavailableError. */
export async function r2Text(env: StorageBindings, key: string): Promise<string | null> {
  let object: R2ObjectBody | null;
  try {
    object = await env.SHELF_BUCKET.get(key);
    return object === null ? null : await object.text();
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
}

/**
 * True when `text` (a KV copy, stored as the document's UTF-8 text) hashes to `sha256`, the key
 * it is stored under. Anyone who can write the KV namespace can put any value under any key, so
 * a copy is a candidate until this holds; a mismatch is logged and the caller reads R2.
 */
async function kvCopyHoldsAddress(text: string | Uint8Array, sha256: string, key: string): Promise<boolean> {
  if ((await sha256Hex(text)) === sha256) return true;
  console.warn("KV copy does not hash to its key; reading R2 instead", key);
  return false;
}

/**
 * Reads a content-addressed document from R2 as text, after checking its bytes hash to
 * `sha256`: bytes that do not (a damaged object, or one written by hand under the wrong key)
 * throw StorageUnavailableError, so nothing is served from them. MissingObjectError when absent.
 */
async function r2Document(env: StorageBindings, kind: DocumentKind, sha256: string): Promise<string> {
  const key = r2Key(kind, sha256);
  let bytes: Uint8Array;
  try {
    const object = await env.SHELF_BUCKET.get(key);
    if (object === null) throw new MissingObjectError(key);
    bytes = new Uint8Array(await object.arrayBuffer());
  } catch (err) {
    if (err instanceof MissingObjectError) throw err;
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
  if ((await sha256Hex(bytes)) !== sha256) throw new StorageUnavailableError(`${key} does not hash to its key`);
  return new TextDecoder().decode(bytes);
}

/** Parses stored JSON against its schema; anything else is a storage inconsistency. */
export function parseWith<S extends z.ZodType>(schema: S, text: string, where: string): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StorageUnavailableError(`${where} is not JSON`, { cause: err });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new StorageUnavailableError(`${where} does not match its schema: ${parsed.error.message.slice(0, 300)}`);
  return parsed.data;
}

/** A document the isolate's memory holds (checked and parsed), read synchronously; undefined otherwise. */
export function documentFromMemory<T>(kind: DocumentKind, sha256: string): T | undefined {
  return cacheOf(kind).get(`${kind}:${sha256}`) as T | undefined;
}

/**
 * Reads one immutable JSON document: memory, then KV (within budget), then R2, using a copy only
 * once it hashes to its key. Throws MissingObjectError when R2 does not hold it either, and
 * StorageUnavailableError when R2's copy does not hash to its key.
 */
export async function readDocument<T>(
  env: StorageBindings,
  kind: DocumentKind,
  sha256: string,
  size: number | undefined,
  budget: RequestReads,
  parse: (text: string, where: string) => T,
): Promise<T> {
  const cacheKey = `${kind}:${sha256}`;
  const memory = cacheOf(kind);
  const cached = memory.get(cacheKey) as T | undefined;
  if (cached !== undefined) return cached;
  return once(budget, cacheKey, async () => {
    if (size === undefined || budget.fits(size)) {
      const key = kvKey(kind, sha256);
      const cachedText = await kvText(env, key, KV_IMMUTABLE_CACHE_TTL_S, budget);
      if (cachedText !== null && (await kvCopyHoldsAddress(cachedText, sha256, key))) {
        const copy: string = cachedText;
        const value = parseKvCopy(() => parse(copy, key));
        if (value !== undefined) {
          memory.set(cacheKey, value, memorySize(copy, kind));
          return value;
        }
      }
    }
    const text = await r2Document(env, kind, sha256);
    const value = parse(text, r2Key(kind, sha256));
    memory.set(cacheKey, value, memorySize(text, kind));
    return value;
  });
}

/**
 * Parses a KV copy; undefined when it is malformed, so the caller reads R2 (the source of
 * truth) instead of answering 503 for a bad cache entry.
 */
function parseKvCopy<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof StorageUnavailableError)) throw err;
    console.warn("KV copy is malformed; falling back to R2", err.message);
    return undefined;
  }
}

/** What a parsed document costs in the memory cache: its estimated heap size. */
function memorySize(text: string, kind: DocumentKind): number {
  return Math.ceil(text.length * (kind === "shard" ? SHARD_COST_PER_TEXT_CHAR : MEMORY_COST_PER_TEXT_CHAR));
}

/** Parses a stored shard (its bytes already hashed to its address: addressed.ts) and indexes its entries by name. */
export function parseShard(text: string, where: string): ParsedShard {
  const shard = parseShardDocument(text, where);
  return { skills: shard.skills, entries: new Map(shard.skills.map((s) => [s.name, s])) };
}

/** Reads many shards for a listing: memory, then KV bulk gets within budget, then R2 (each copy checked against its key). */
export async function readShards(env: StorageBindings, refs: readonly ShardRef[], budget: RequestReads): Promise<ParsedShard[]> {
  const result = new Map<string, ParsedShard>();
  const missing: ShardRef[] = [];
  for (const ref of refs) {
    const cached = shards.get(`shard:${ref.sha256}`);
    if (cached) result.set(ref.sha256, cached);
    else missing.push(ref);
  }
  const fromKv: ShardRef[] = [];
  let planned = budget.bytes;
  for (const ref of missing) {
    if (planned + ref.size > KV_REQUEST_BYTE_BUDGET) continue;
    planned += ref.size;
    fromKv.push(ref);
  }
  for (let i = 0; i < fromKv.length; i += KV_BULK_GET_MAX) {
    const chunk = fromKv.slice(i, i + KV_BULK_GET_MAX);
    let texts: Map<string, string | null> | undefined;
    try {
      texts = await env.SHELF_KV.get(
        chunk.map((r) => kvKey("shard", r.sha256)),
        { type: "text", cacheTtl: KV_IMMUTABLE_CACHE_TTL_S },
      );
    } catch (err) {
      console.warn("KV bulk read failed; falling back to R2", err);
    }
    // The copies are hashed concurrently; a copy that does not hash to its key is read from R2 below.
    const held = await Promise.all(
      chunk.map(async (ref) => {
        const key = kvKey("shard", ref.sha256);
        const text = texts?.get(key) ?? null;
        if (text === null) return false;
        const bytes = utf8Of(text);
        budget.bytes += bytes.byteLength;
        return kvCopyHoldsAddress(bytes, ref.sha256, key);
      }),
    );
    for (const [j, ref] of chunk.entries()) {
      if (!held[j]) continue;
      const key = kvKey("shard", ref.sha256);
      const text = texts!.get(key)!;
      const shard = parseKvCopy(() => parseShard(text, key));
      if (shard === undefined) continue; // read from R2 below
      shards.set(`shard:${ref.sha256}`, shard, memorySize(text, "shard"));
      result.set(ref.sha256, shard);
    }
  }
  const rest = missing.filter((r) => !result.has(r.sha256));
  for (let i = 0; i < rest.length; i += R2_READ_CONCURRENCY) {
    await Promise.all(
      rest.slice(i, i + R2_READ_CONCURRENCY).map(async (ref) => {
        const text = await r2Document(env, "shard", ref.sha256);
        const shard = parseShard(text, r2Key("shard", ref.sha256));
        shards.set(`shard:${ref.sha256}`, shard, memorySize(text, "shard"));
        result.set(ref.sha256, shard);
      }),
    );
  }
  return refs.map((r) => result.get(r.sha256)!);
}

/**
 * Every entry of the manifest `id`'s shards (`refs`), sorted bytewise by name: the listing kept
 * for that generation when every one of its shards is still the one in memory, else read
 * (readShards), sorted and kept. The array is shared: callers must not change it.
 */
export async function sortedEntries(env: StorageBindings, id: string, refs: readonly ShardRef[], budget: RequestReads): Promise<SkillEntry[]> {
  const kept = sortedListings.get(id);
  if (kept !== undefined && kept.shards.length === refs.length && refs.every((ref, i) => shards.get(`shard:${ref.sha256}`) === kept.shards[i])) {
    return kept.sorted;
  }
  const read = await readShards(env, refs, budget);
  const sorted = read.flatMap((s) => s.skills).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Kept only when every shard read is held in memory (a shelf whose shards overflow the budget
  // evicted some while reading), so the listing never outlives its shards.
  if (refs.every((ref, i) => shards.get(`shard:${ref.sha256}`) === read[i])) {
    sortedListings.delete(id);
    sortedListings.set(id, { shards: read, sorted });
    for (const oldest of sortedListings.keys()) {
      if (sortedListings.size <= LISTINGS_KEPT) break;
      sortedListings.delete(oldest);
    }
  }
  return sorted;
}

/** An opened blob: its bytes (or a range of them) and what R2 says of the whole stored object. */
export interface OpenedBlob {
  body: ReadableStream<Uint8Array>;
  /** The stored object's whole size (not the range's). */
  size: number;
  /** The SHA-256 R2 checked the bytes against when they were stored; null when the upload gave none. */
  sha256: string | null;
}

/**
 * Streams a content-addressed blob from R2 (never buffered), optionally a range, with the size and
 * SHA-256 checksum R2 keeps for the object; null when it is missing. R2 errors become
 * StorageUnavailableError. The bytes are not checked here: the response compares R2's checksum,
 * or hashes the bytes, against the digest it advertises (src/worker/http/file-response.ts).
 * @example const opened = await readBlob(env, sha, { offset: 0, length: 10 })
 */
export async function readBlob(env: StorageBindings, sha256: string, range?: { offset: number; length: number }): Promise<OpenedBlob | null> {
  const key = r2Key("blob", sha256);
  let object: R2ObjectBody | null;
  try {
    object = await env.SHELF_BUCKET.get(key, range ? { range } : {});
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
  return object === null ? null : { body: object.body, size: object.size, sha256: storedSha256(object) };
}

/** The SHA-256 checksum R2 recorded for an object at upload, as lowercase hex; null when it has none. */
export function storedSha256(object: R2Object): string | null {
  const checksum = object.checksums?.sha256;
  if (checksum === undefined) return null;
  let hex = "";
  for (const byte of new Uint8Array(checksum)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Reads a whole content-addressed blob from R2 into memory (for small objects: one read, no
 * stream); null when it is missing. R2 errors become StorageUnavailableError. Unchecked, like
 * readBlob: the caller checks the bytes against the digest it serves them under.
 * @example const bytes = await readBlobBytes(env, sha)
 */
export async function readBlobBytes(env: StorageBindings, sha256: string): Promise<Uint8Array | null> {
  const key = r2Key("blob", sha256);
  try {
    const object = await env.SHELF_BUCKET.get(key);
    return object === null ? null : new Uint8Array(await object.arrayBuffer());
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
}

/** What R2 says of a stored blob without reading it: its size and, when R2 recorded one at upload, its SHA-256. */
export interface BlobHead {
  size: number;
  sha256: string | null;
}

/**
 * Heads a blob (one R2 head, no body read); null when it is missing. R2 errors become
 * StorageUnavailableError.
 * @example const head = await headBlob(env, sha) // => {size: 120, sha256: "9f86…"}
 */
export async function headBlob(env: StorageBindings, sha256: string): Promise<BlobHead | null> {
  const object = await headObject(env, r2Key("blob", sha256));
  if (object === null) return null;
  return { size: object.size, sha256: storedSha256(object) };
}

/**
 * One R2 head (no body read); null when the object is missing. An R2 error becomes
 * StorageUnavailableError.
 * @example const object = await headObject(env, r2Key("generation", id))
 */
export async function headObject(env: StorageBindings, key: string): Promise<R2Object | null> {
  try {
    return await env.SHELF_BUCKET.head(key);
  } catch (err) {
    throw new StorageUnavailableError(`R2 head of ${key} failed`, { cause: err });
  }
}
