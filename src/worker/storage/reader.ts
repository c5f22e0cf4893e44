// The read side of storage: one published generation per request, resolved through the
// in-isolate memory cache, then KV, then R2 (the source of truth). Never writes KV: the admin
// API fills KV when it stores an object, so the request path only reads.
import type { z } from "zod";
import {
  AdvisoriesRecordSchema,
  GenerationManifestSchema,
  PointerSchema,
  shardOf,
  ShardSchema,
  SkillRecordSchema,
  type GenerationManifest,
  type ShardRef,
  type SkillEntry,
  type SkillRecord,
} from "../../core/generation/manifest.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { AdvisoryEntrySchema, type AdvisoryEntry } from "../../core/trust/records.ts";
import { StorageUnavailableError } from "./errors.ts";
import { kvKey, r2Key, R2_ADVISORIES_KEY, R2_POINTER_KEY, KV_ADVISORIES_KEY, KV_POINTER_KEY } from "./keys.ts";
import { MemoryCache } from "./memory-cache.ts";

/** Milliseconds since the epoch; injected so TTLs are testable. */
export type Clock = () => number;

/** The two bindings storage needs (a subset of the Worker's bindings). */
export interface StorageBindings {
  SHELF_BUCKET: R2Bucket;
  SHELF_KV: KVNamespace;
}

/** How long an isolate trusts its copy of the pointer and advisories before re-reading KV. */
export const LIVE_MEMORY_TTL_MS = 30_000;
/** How often an isolate re-reads the pointer and advisories from R2, bypassing KV's lag. */
export const LIVE_R2_REVALIDATE_MS = 300_000;
/** KV edge-cache TTL for the live keys (KV's minimum). */
export const KV_LIVE_CACHE_TTL_S = 30;
/**
 * KV edge-cache TTL for immutable, content-addressed documents. Not longer: KV caches misses
 * too, and an edge that asked before a new document propagated would otherwise fall back to R2
 * for that document for as long as the TTL.
 */
export const KV_IMMUTABLE_CACHE_TTL_S = 3_600;
/** No request reads more than this from KV; beyond it, listings read R2 (issue budget: 2 MB). */
export const KV_REQUEST_BYTE_BUDGET = 1_800_000;
/**
 * Memory budget for parsed documents per isolate (isolates have 128 MB), in estimated heap bytes
 * (see MEMORY_COST_PER_TEXT_CHAR): roughly 8 MiB of document JSON.
 */
export const MEMORY_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * Estimated heap bytes a parsed document costs per character of its JSON text. Parsed objects
 * are several times larger than their text (object headers, hidden classes, one string per key
 * and value, arrays, and for shards a Map of the entries); 4 is a conservative V8 estimate for
 * these documents, so the LRU's accounting stays near what the isolate really holds.
 */
export const MEMORY_COST_PER_TEXT_CHAR = 4;
/** KV bulk get takes at most 100 keys and counts as one operation. */
const KV_BULK_GET_MAX = 100;
/** Parallel R2 reads when a listing falls back to R2. */
const R2_READ_CONCURRENCY = 16;

/** Options for openGeneration. */
export interface OpenGenerationOptions {
  clock?: Clock;
}

interface LiveValue<T> {
  value: T;
  seq: number;
  checkedAt: number;
  r2CheckedAt: number;
}

interface PointerSummary {
  generation: string;
  seq: number;
  published_at: string;
}

interface AdvisoriesInForce {
  advisories: AdvisoryEntry[];
  seq: number;
}

interface ParsedShard {
  entries: Map<string, SkillEntry>;
  skills: SkillEntry[];
}

// Module state is per isolate: that is the memory cache.
const documents = new MemoryCache<unknown>(MEMORY_CACHE_BYTES);
const live: { pointer?: LiveValue<PointerSummary | null>; advisories?: LiveValue<AdvisoriesInForce | null> } = {};

/** Forgets everything this isolate cached (tests use it to simulate a cold isolate). */
export function resetStorageMemory(): void {
  documents.clear();
  pinnedSeenAt.clear();
  delete live.pointer;
  delete live.advisories;
}

/**
 * Runs `load` once per key at a time within one request, so concurrent lookups of the same
 * object in a request read it once. Never across requests: in Workers a promise started by
 * another request is bound to that request's I/O and fails or hangs if it is cancelled. Across
 * requests only settled values are shared (the memory cache and the live state).
 */
async function once<T>(scope: RequestReads, key: string, load: () => Promise<T>): Promise<T> {
  const pending = scope.inflight.get(key) as Promise<T> | undefined;
  if (pending) return pending;
  const promise = load().finally(() => scope.inflight.delete(key));
  scope.inflight.set(key, promise);
  return promise;
}

const utf8 = new TextEncoder();

/** Size in bytes of a KV value as stored (UTF-8), not its UTF-16 length. */
function utf8Length(text: string): number {
  return utf8.encode(text).byteLength;
}

/**
 * Per-request read state: the KV bytes read (in UTF-8 bytes) so listings stay under
 * KV_REQUEST_BYTE_BUDGET, and the request's own in-flight loads.
 */
class RequestReads {
  bytes = 0;
  readonly inflight = new Map<string, Promise<unknown>>();
  fits(size: number): boolean {
    return this.bytes + size <= KV_REQUEST_BYTE_BUDGET;
  }
}

async function kvText(env: StorageBindings, key: string, cacheTtl: number, budget: RequestReads): Promise<string | null> {
  try {
    const text = await env.SHELF_KV.get(key, { type: "text", cacheTtl });
    if (text !== null) budget.bytes += utf8Length(text);
    return text;
  } catch (err) {
    // KV is a cache: a failure falls back to R2.
    console.warn("KV read failed; falling back to R2", key, err);
    return null;
  }
}

async function r2Text(env: StorageBindings, key: string): Promise<string | null> {
  let object: R2ObjectBody | null;
  try {
    object = await env.SHELF_BUCKET.get(key);
    return object === null ? null : await object.text();
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
}

function parseWith<S extends z.ZodType>(schema: S, text: string, where: string): z.infer<S> {
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

/** Reads a live key (pointer or advisories): memory, then KV, then R2, keeping the highest seq. */
async function readLive<T>(
  name: "pointer" | "advisories",
  clock: Clock,
  scope: RequestReads,
  load: (from: "kv" | "r2") => Promise<{ value: T; seq: number } | null>,
): Promise<T | null> {
  const now = clock();
  const state = live[name] as LiveValue<T | null> | undefined;
  if (state && now - state.checkedAt < LIVE_MEMORY_TTL_MS) return state.value;
  return once(scope, `live:${name}`, async () => {
    // A cold isolate and a periodic revalidation read R2, which is strongly consistent; in
    // between, KV answers (it may lag a publish by its propagation delay).
    const fromR2 = !state || now - state.r2CheckedAt >= LIVE_R2_REVALIDATE_MS;
    let fetched = fromR2 ? null : await load("kv");
    let r2CheckedAt = state?.r2CheckedAt ?? now;
    if (fetched === null) {
      fetched = await load("r2");
      r2CheckedAt = now;
    }
    // Compare with the live value as it is now, not as it was when this load started: another
    // request may have stored a newer seq while this one waited on a lagging KV edge.
    const latest = live[name] as LiveValue<T | null> | undefined;
    const r2At = Math.max(r2CheckedAt, latest?.r2CheckedAt ?? 0);
    if (fetched === null) {
      // Never go back to "nothing" once something was seen; remember "nothing yet" for the TTL
      // too, so an unpublished shelf (or one without advisories) costs no read per request.
      const kept = latest ?? { value: null, seq: 0, checkedAt: now, r2CheckedAt };
      (live as Record<string, LiveValue<T | null>>)[name] = { ...kept, checkedAt: Math.max(now, kept.checkedAt), r2CheckedAt: r2At };
      return kept.value;
    }
    const keep = latest && latest.seq > fetched.seq ? latest : { value: fetched.value, seq: fetched.seq };
    (live as Record<string, LiveValue<T | null>>)[name] = { value: keep.value, seq: keep.seq, checkedAt: Math.max(now, latest?.checkedAt ?? 0), r2CheckedAt: r2At };
    return keep.value;
  });
}

async function loadPointer(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<PointerSummary | null> {
  return readLive<PointerSummary>("pointer", clock, budget, async (from) => {
    const text = from === "kv" ? await kvText(env, KV_POINTER_KEY, KV_LIVE_CACHE_TTL_S, budget) : await r2Text(env, R2_POINTER_KEY);
    if (text === null) return null;
    if (from === "kv") {
      try {
        const v = JSON.parse(text) as PointerSummary;
        // A malformed copy (a bad manual `kv put`, a truncated value) falls back to R2 below.
        if (typeof v.generation === "string" && isSha256Hex(v.generation) && Number.isSafeInteger(v.seq) && typeof v.published_at === "string") {
          return { value: { generation: v.generation, seq: v.seq, published_at: v.published_at }, seq: v.seq };
        }
      } catch {
        // fall through to R2
      }
      return null;
    }
    const pointer = parseWith(PointerSchema, text, R2_POINTER_KEY);
    return { value: { generation: pointer.generation, seq: pointer.seq, published_at: pointer.published_at }, seq: pointer.seq };
  });
}

async function loadAdvisories(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<AdvisoriesInForce> {
  const value = await readLive<AdvisoriesInForce>("advisories", clock, budget, async (from) => {
    const text = from === "kv" ? await kvText(env, KV_ADVISORIES_KEY, KV_LIVE_CACHE_TTL_S, budget) : await r2Text(env, R2_ADVISORIES_KEY);
    if (text === null) return null;
    const parsed = AdvisoriesRecordSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      if (from === "kv") return null;
      throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} does not match its schema`);
    }
    const advisories: AdvisoryEntry[] = [];
    for (const raw of parsed.data.advisories) {
      const entry = AdvisoryEntrySchema.safeParse(raw);
      if (!entry.success) {
        if (from === "kv") return null;
        throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} holds a malformed advisory`);
      }
      advisories.push(entry.data);
    }
    return { value: { advisories, seq: parsed.data.seq }, seq: parsed.data.seq };
  });
  return value ?? { advisories: [], seq: 0 };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type DocKind = "generation" | "shard" | "record";

/** Reads one immutable JSON document: memory, then KV (within budget), then R2. */
async function readDocument<T>(
  env: StorageBindings,
  kind: DocKind,
  sha256: string,
  size: number | undefined,
  budget: RequestReads,
  parse: (text: string, where: string) => T,
): Promise<T> {
  const cacheKey = `${kind}:${sha256}`;
  const cached = documents.get(cacheKey) as T | undefined;
  if (cached !== undefined) return cached;
  return once(budget, cacheKey, async () => {
    if (size === undefined || budget.fits(size)) {
      const cachedText = await kvText(env, kvKey(kind, sha256), KV_IMMUTABLE_CACHE_TTL_S, budget);
      if (cachedText !== null) {
        const copy: string = cachedText;
        const value = parseKvCopy(() => parse(copy, kvKey(kind, sha256)));
        if (value !== undefined) {
          documents.set(cacheKey, value, memorySize(copy));
          return value;
        }
      }
    }
    const text = await r2Text(env, r2Key(kind, sha256));
    if (text === null) throw new StorageUnavailableError(`${r2Key(kind, sha256)} is referenced but missing`);
    const value = parse(text, r2Key(kind, sha256));
    documents.set(cacheKey, value, memorySize(text));
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
function memorySize(text: string): number {
  return text.length * MEMORY_COST_PER_TEXT_CHAR;
}

/** Estimated bytes the isolate's document cache holds now (tests check the accounting). */
export function storageMemoryBytes(): number {
  return documents.bytes;
}

function parseShard(text: string, where: string): ParsedShard {
  const shard = parseWith(ShardSchema, text, where);
  return { skills: shard.skills, entries: new Map(shard.skills.map((s) => [s.name, s])) };
}

/** Reads many shards for a listing: memory, then KV bulk gets within budget, then R2. */
async function readShards(env: StorageBindings, refs: readonly ShardRef[], budget: RequestReads): Promise<ParsedShard[]> {
  const result = new Map<string, ParsedShard>();
  const missing: ShardRef[] = [];
  for (const ref of refs) {
    const cached = documents.get(`shard:${ref.sha256}`) as ParsedShard | undefined;
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
      texts = await env.SHELF_KV.get(chunk.map((r) => kvKey("shard", r.sha256)), { type: "text", cacheTtl: KV_IMMUTABLE_CACHE_TTL_S });
    } catch (err) {
      console.warn("KV bulk read failed; falling back to R2", err);
    }
    for (const ref of chunk) {
      const text = texts?.get(kvKey("shard", ref.sha256)) ?? null;
      if (text === null) continue;
      budget.bytes += utf8Length(text);
      const shard = parseKvCopy(() => parseShard(text, kvKey("shard", ref.sha256)));
      if (shard === undefined) continue; // read from R2 below
      documents.set(`shard:${ref.sha256}`, shard, memorySize(text));
      result.set(ref.sha256, shard);
    }
  }
  const rest = missing.filter((r) => !result.has(r.sha256));
  for (let i = 0; i < rest.length; i += R2_READ_CONCURRENCY) {
    await Promise.all(
      rest.slice(i, i + R2_READ_CONCURRENCY).map(async (ref) => {
        const where = r2Key("shard", ref.sha256);
        const text = await r2Text(env, where);
        if (text === null) throw new StorageUnavailableError(`${where} is referenced but missing`);
        const shard = parseShard(text, where);
        documents.set(`shard:${ref.sha256}`, shard, memorySize(text));
        result.set(ref.sha256, shard);
      }),
    );
  }
  return refs.map((r) => result.get(r.sha256)!);
}

/**
 * Streams a content-addressed blob from R2 (never buffered). With `onlyIf`, a failed
 * precondition resolves an R2Object without a body; a missing blob resolves null. R2 errors
 * become StorageUnavailableError.
 * @example const obj = await readBlob(env, sha, { range: { offset: 0, length: 10 } })
 */
export async function readBlob(
  env: StorageBindings,
  sha256: string,
  options: { range?: R2Range; onlyIf?: R2Conditional | Headers } = {},
): Promise<R2ObjectBody | R2Object | null> {
  const key = r2Key("blob", sha256);
  try {
    return await env.SHELF_BUCKET.get(key, options);
  } catch (err) {
    throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
  }
}

/** The blob's metadata without its body (for HEAD); null when missing. */
export async function headBlob(env: StorageBindings, sha256: string): Promise<R2Object | null> {
  const key = r2Key("blob", sha256);
  try {
    return await env.SHELF_BUCKET.head(key);
  } catch (err) {
    throw new StorageUnavailableError(`R2 head of ${key} failed`, { cause: err });
  }
}

/**
 * One published generation, fixed for the whole request: every lookup through it reads the same
 * manifest, and the advisories in force were read once when it was opened.
 */
export class Generation {
  readonly id: string;
  readonly manifest: GenerationManifest;
  /** The pointer move that made this generation current. */
  readonly seq: number;
  readonly publishedAt: string;
  /** Advisories in force (the current advisories record), to apply to every skill served. */
  readonly advisories: readonly AdvisoryEntry[];
  readonly advisoriesSeq: number;
  readonly #env: StorageBindings;
  readonly #budget: RequestReads;
  readonly #shardByIndex: Map<number, ShardRef>;

  constructor(env: StorageBindings, budget: RequestReads, pointer: PointerSummary, manifest: GenerationManifest, advisories: AdvisoriesInForce) {
    this.#env = env;
    this.#budget = budget;
    this.id = pointer.generation;
    this.seq = pointer.seq;
    this.publishedAt = pointer.published_at;
    this.manifest = manifest;
    this.advisories = advisories.advisories;
    this.advisoriesSeq = advisories.seq;
    this.#shardByIndex = new Map(manifest.shards.map((s) => [s.index, s]));
  }

  /** Bytes this request has read from KV so far (tests check the 2 MB budget). */
  get kvBytesRead(): number {
    return this.#budget.bytes;
  }

  /** The skill's entry (what listings show), or undefined when the shelf has no such skill. */
  async findSkill(name: string): Promise<SkillEntry | undefined> {
    const ref = this.#shardByIndex.get(shardOf(name, this.manifest.shard_count));
    if (!ref) return undefined;
    const shard = await readDocument(this.#env, "shard", ref.sha256, ref.size, this.#budget, parseShard);
    return shard.entries.get(name);
  }

  /** Every skill's entry, sorted bytewise by name. Reads all shards (KV within budget, then R2). */
  async listSkills(): Promise<SkillEntry[]> {
    const shards = await readShards(this.#env, this.manifest.shards, this.#budget);
    const all = shards.flatMap((s) => s.skills);
    return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The full record of a skill (frontmatter, files, outline, trust). */
  async readRecord(entry: Pick<SkillEntry, "record">): Promise<SkillRecord> {
    return readDocument(this.#env, "record", entry.record.sha256, entry.record.size, this.#budget, (text, where) =>
      parseWith(SkillRecordSchema, text, where),
    );
  }

  /**
   * Opens a blob's bytes (optionally a range) as a stream; null when it is missing. Matches
   * src/worker/http/file-response.ts's OpenBlob.
   */
  async openBlob(sha256: string, range?: { offset: number; length: number }): Promise<ReadableStream<Uint8Array> | null> {
    const object = await readBlob(this.#env, sha256, range ? { range } : {});
    if (object === null || !("body" in object)) return null;
    return object.body;
  }
}

/** How long an isolate trusts that a pinned (non-current) generation is still stored in R2. */
export const PINNED_CHECK_TTL_MS = 30_000;
/** At most this many pinned ids are remembered (then the map starts over). */
const PINNED_CHECK_MAX = 1_000;
const pinnedSeenAt = new Map<string, number>();

/**
 * Whether generations/<id> is still in R2: gc deletes old generations, and neither the memory
 * cache nor KV (a leftover copy) knows. One R2 head per id per PINNED_CHECK_TTL_MS per isolate.
 */
async function pinnedStillStored(env: StorageBindings, id: string, now: number): Promise<boolean> {
  const seen = pinnedSeenAt.get(id);
  if (seen !== undefined && now - seen < PINNED_CHECK_TTL_MS) return true;
  const key = r2Key("generation", id);
  let head: R2Object | null;
  try {
    head = await env.SHELF_BUCKET.head(key);
  } catch (err) {
    throw new StorageUnavailableError(`R2 head of ${key} failed`, { cause: err });
  }
  if (head === null) {
    pinnedSeenAt.delete(id);
    return false;
  }
  if (pinnedSeenAt.size >= PINNED_CHECK_MAX) pinnedSeenAt.clear();
  pinnedSeenAt.set(id, now);
  return true;
}

/**
 * Opens a generation by id (for immutable URLs such as /g/<id>/…), with the advisories in
 * force now, so an old URL never serves a skill blocked since. Resolves null when no generation
 * has that id. Its `seq` is 0 and `publishedAt` empty: it is not (necessarily) current.
 * @example const gen = await openGenerationById(c.env, c.req.param("generation"))
 */
export async function openGenerationById(env: StorageBindings, id: string, options: OpenGenerationOptions = {}): Promise<Generation | null> {
  if (!/^[0-9a-f]{64}$/.test(id)) return null;
  const clock = options.clock ?? Date.now;
  const budget = new RequestReads();
  const [advisories, stored] = await Promise.all([loadAdvisories(env, clock, budget), pinnedStillStored(env, id, clock())]);
  if (!stored) {
    // Collected by gc: forget the manifest so neither memory nor a leftover KV copy serves it.
    documents.delete(`generation:${id}`);
    return null;
  }
  let manifest: GenerationManifest;
  try {
    manifest = await readDocument(env, "generation", id, undefined, budget, (text, where) => parseWith(GenerationManifestSchema, text, where));
  } catch (err) {
    if (err instanceof StorageUnavailableError && /is referenced but missing/.test(err.message)) return null;
    throw err;
  }
  return new Generation(env, budget, { generation: id, seq: 0, published_at: "" }, manifest, advisories);
}

/**
 * Opens the current generation: the pointer and advisories (memory for 30 s, then KV, then R2)
 * and the manifest (memory, then KV, then R2). Resolves null when nothing has been published.
 * Throws StorageUnavailableError when R2 fails or the published data is inconsistent.
 * @example const gen = await openGeneration(c.env); const entry = await gen?.findSkill("code-review")
 */
export async function openGeneration(env: StorageBindings, options: OpenGenerationOptions = {}): Promise<Generation | null> {
  const clock = options.clock ?? Date.now;
  const budget = new RequestReads();
  const [pointer, advisories] = await Promise.all([loadPointer(env, clock, budget), loadAdvisories(env, clock, budget)]);
  if (pointer === null) return null;
  const manifest = await readDocument(env, "generation", pointer.generation, undefined, budget, (text, where) =>
    parseWith(GenerationManifestSchema, text, where),
  );
  return new Generation(env, budget, pointer, manifest, advisories);
}
