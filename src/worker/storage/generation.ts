// One published generation per request: opened from the live pointer (or by id for a pinned
// URL) with the advisories in force, then every lookup (shard, record, blob) goes through the
// cache tiers in documents.ts against that one manifest.
import { resetChangeDocuments } from "./changes.ts";
import { parseManifestDocument } from "./addressed.ts";
import {
  shardOf,
  type BlobRef,
  SkillRecordSchema,
  type GenerationManifest,
  type ShardRef,
  type SkillEntry,
  type SkillRecord,
} from "../../core/generation/manifest.ts";
import { isSha256Hex, sha256Hex } from "../../core/skill/hash.ts";
import type { AdvisoryEntry } from "../../core/trust/records.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import {
  type BlobHead,
  documentFromMemory,
  type OpenedBlob,
  forgetDocument,
  headBlob,
  headObject,
  once,
  parseShard,
  parseWith,
  readBlob,
  readDocument,
  readShards,
  RequestReads,
  resetDocuments,
  sortedEntries,
} from "./documents.ts";
import { MissingObjectError, StorageUnavailableError } from "./errors.ts";
import { r2Key } from "./keys.ts";
import { HASHED_BLOB_MAX_BYTES, readCheckedBlob, resetCheckedBlobs } from "./checked-blobs.ts";
import { resetSignaturesCache } from "./signatures.ts";
import { liveFromMemory, liveTtlMs, loadAdvisories, loadPointer, resetLive, type AdvisoriesInForce, type PointerSummary } from "./live.ts";

/** Options for openGeneration and openGenerationById. */
export interface OpenGenerationOptions {
  clock?: Clock;
}

/** Forgets everything this isolate cached (tests use it to simulate a cold isolate). */
export function resetStorageMemory(): void {
  resetDocuments();
  resetLive();
  resetSignaturesCache();
  resetChangeDocuments();
  resetCheckedBlobs();
  pinnedSeenAt.clear();
}

/**
 * One published generation, fixed for the whole request: every lookup through it reads the same
 * manifest, and the advisories in force were read once when it was opened.
 */
export class Generation {
  readonly id: string;
  readonly manifest: GenerationManifest;
  /** The pointer move that made this generation current; null when it was opened by id. */
  readonly seq: number | null;
  /** When this generation became current; null when it was opened by id. */
  readonly publishedAt: string | null;
  /** Advisories in force (the current advisories record), to apply to every skill served. */
  readonly advisories: readonly AdvisoryEntry[];
  readonly advisoriesSeq: number;
  readonly #env: StorageBindings;
  readonly #budget: RequestReads;

  constructor(
    env: StorageBindings,
    budget: RequestReads,
    opened: { id: string; seq: number | null; publishedAt: string | null; manifest: GenerationManifest; advisories: AdvisoriesInForce },
  ) {
    this.#env = env;
    this.#budget = budget;
    this.id = opened.id;
    this.seq = opened.seq;
    this.publishedAt = opened.publishedAt;
    this.manifest = opened.manifest;
    this.advisories = opened.advisories.advisories;
    this.advisoriesSeq = opened.advisories.seq;
  }

  /**
   * This generation as a pinned URL (/g/<id>/…) reads it: the same manifest and advisories, but
   * not tied to the pointer move that made it current (seq and publishedAt null).
   */
  pinned(): Generation {
    if (this.seq === null) return this;
    const advisories = { advisories: this.advisories, seq: this.advisoriesSeq };
    return new Generation(this.#env, this.#budget, { id: this.id, seq: null, publishedAt: null, manifest: this.manifest, advisories });
  }

  /** Bytes this request has read from KV so far (tests check the 2 MB budget). */
  get kvBytesRead(): number {
    return this.#budget.bytes;
  }

  /** The skill's entry (what listings show), or undefined when the shelf has no such skill. */
  async findSkill(name: string): Promise<SkillEntry | undefined> {
    const ref = shardFor(this.manifest, name);
    if (!ref) return undefined;
    const shard = await readDocument(this.#env, "shard", ref.sha256, ref.size, this.#budget, parseShard);
    return shard.entries.get(name);
  }

  /**
   * The entries of the shards `refs` (some of this manifest's, in the order given), read together:
   * memory, then one KV bulk get within budget, then R2. Each shard's entries are in stored order,
   * which the build makes bytewise by name.
   */
  async entriesOf(refs: readonly ShardRef[]): Promise<{ ref: ShardRef; skills: readonly SkillEntry[] }[]> {
    const read = await readShards(this.#env, refs, this.#budget);
    return refs.map((ref, i) => ({ ref, skills: read[i]!.skills }));
  }

  /** The index of the shard that holds (or would hold) the skill `name` in this generation. */
  shardIndexOf(name: string): number {
    return shardOf(name, this.manifest.shard_count);
  }

  /**
   * Every skill's entry, sorted bytewise by name. Reads all shards (KV within budget, then R2),
   * once per request however many callers ask at once (/v1/trust asks for the status and the list).
   */
  async listSkills(): Promise<SkillEntry[]> {
    // A copy of the isolate's sorted listing of this generation: callers may reorder theirs.
    return [...(await this.sortedListing())];
  }

  /**
   * The isolate's own sorted listing of this generation (documents.ts sortedEntries), the same
   * array on every request while its shards stay in memory: for callers that keep what they
   * derive from it by it, and never change it.
   */
  sortedListing(): Promise<readonly SkillEntry[]> {
    return once(this.#budget, "listing", () => sortedEntries(this.#env, this.id, this.manifest.shards, this.#budget));
  }

  /** The full record of a skill (frontmatter, files, outline, trust). */
  async readRecord(entry: Pick<SkillEntry, "record">): Promise<SkillRecord> {
    return readDocument(this.#env, "record", entry.record.sha256, entry.record.size, this.#budget, parseRecord);
  }

  /**
   * Opens a blob's bytes (optionally a range) as a stream, with R2's size and checksum of the
   * object; null when it is missing. Unchecked: src/worker/http/file-response.ts checks them
   * against the digest it advertises.
   */
  async openBlob(sha256: string, range?: { offset: number; length: number }): Promise<OpenedBlob | null> {
    return readBlob(this.#env, sha256, range);
  }

  /**
   * A blob's whole bytes, checked against `sha256` and `size` (checked-blobs.ts: kept in the
   * isolate when small). MissingObjectError or StorageUnavailableError when they are not stored.
   */
  async readCheckedBlob(sha256: string, size: number): Promise<Uint8Array> {
    return readCheckedBlob(this.#env, sha256, size);
  }

  /**
   * A JSON blob the manifest references (the search index) as text, believed only once its
   * bytes are the referenced ones: up to 64 KiB hashed; above that, as a served file is
   * (docs/reliability.md), when R2's stored SHA-256 checksum and size are the reference's, and
   * hashed only when the object carries no checksum (at 10,000 skills the index is 2.7 MiB,
   * whose hash was ~14 ms of a cold search). One R2 read: blobs have no KV copy, so the caller
   * keeps what it parses in memory. MissingObjectError when it is not stored,
   * StorageUnavailableError when R2 fails or the bytes are not the ones referenced.
   */
  async readJsonBlob(ref: BlobRef): Promise<string> {
    const key = r2Key("blob", ref.sha256);
    const opened = await readBlob(this.#env, ref.sha256);
    if (opened === null) throw new MissingObjectError(key);
    const certified = ref.size > HASHED_BLOB_MAX_BYTES && opened.sha256 !== null;
    if (certified && (opened.sha256 !== ref.sha256 || opened.size !== ref.size)) {
      opened.body.cancel().catch(() => {});
      throw new StorageUnavailableError(`${key} is not the referenced blob (R2's checksum or size differs)`);
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await new Response(opened.body).arrayBuffer());
    } catch (err) {
      throw new StorageUnavailableError(`R2 read of ${key} failed`, { cause: err });
    }
    if (bytes.byteLength !== ref.size || (!certified && (await sha256Hex(bytes)) !== ref.sha256))
      throw new StorageUnavailableError(`${key} does not hash to its key`);
    return new TextDecoder().decode(bytes);
  }

  /** Heads a blob (size, and the SHA-256 R2 checked at upload) without reading it; null when it is missing. */
  async headBlob(sha256: string): Promise<BlobHead | null> {
    return headBlob(this.#env, sha256);
  }
}

/** Names whose shard an isolate remembers per manifest (then it starts over). */
const SHARD_NAMES_MAX = 10_000;

/**
 * Each manifest's shards by index, and the shard of each name looked up so far, kept per parsed
 * manifest (the memory cache hands every request the same manifest object) rather than rebuilt
 * and rehashed on every request.
 */
const shardLookups = new WeakMap<GenerationManifest, { byIndex: Map<number, ShardRef>; byName: Map<string, ShardRef | undefined> }>();

/** The shard that holds `name` in `manifest`, if the manifest lists one. */
function shardFor(manifest: GenerationManifest, name: string): ShardRef | undefined {
  let lookup = shardLookups.get(manifest);
  if (lookup === undefined) {
    lookup = { byIndex: new Map(manifest.shards.map((s) => [s.index, s])), byName: new Map() };
    shardLookups.set(manifest, lookup);
  }
  if (lookup.byName.has(name)) return lookup.byName.get(name);
  const ref = lookup.byIndex.get(shardOf(name, manifest.shard_count));
  if (lookup.byName.size >= SHARD_NAMES_MAX) lookup.byName.clear();
  lookup.byName.set(name, ref);
  return ref;
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
  const head = await headObject(env, r2Key("generation", id));
  if (head === null) {
    pinnedSeenAt.delete(id);
    return false;
  }
  if (pinnedSeenAt.size >= PINNED_CHECK_MAX) pinnedSeenAt.clear();
  pinnedSeenAt.set(id, now);
  return true;
}

/**
 * A record through its full schema, unlike shards and manifests (addressed.ts): routes serialise
 * parts of it whole (its outline, build verdict, provenance), in the key order the schema's parse
 * gives them, which is not the stored (sorted) order. One small record a request, so it is cheap.
 */
function parseRecord(text: string, where: string): SkillRecord {
  return parseWith(SkillRecordSchema, text, where);
}

/** A manifest read by digest: its bytes hashed to its id, so addressed.ts checks only its format. */
function parseManifest(text: string, where: string): GenerationManifest {
  return parseManifestDocument(text, where);
}

/**
 * Opens a generation by id (for immutable URLs such as /g/<id>/…), with the advisories in
 * force now, so an old URL never serves a skill blocked since. Resolves null when no generation
 * has that id. Its `seq` and `publishedAt` are null: it is not (necessarily) current.
 * @example const gen = await openGenerationById(c.env, c.req.param("generation"))
 */
export async function openGenerationById(env: StorageBindings, id: string, options: OpenGenerationOptions = {}): Promise<Generation | null> {
  if (!isSha256Hex(id)) return null;
  const clock = options.clock ?? Date.now;
  const budget = new RequestReads();
  const [advisories, stored] = await Promise.all([loadAdvisories(env, clock, budget), pinnedStillStored(env, id, clock())]);
  if (!stored) {
    // Collected by gc: forget the manifest so neither memory nor a leftover KV copy serves it.
    forgetDocument("generation", id);
    return null;
  }
  let manifest: GenerationManifest;
  try {
    manifest = await readDocument(env, "generation", id, undefined, budget, parseManifest);
  } catch (err) {
    // Collected between the head and the read.
    if (err instanceof MissingObjectError) return null;
    throw err;
  }
  return new Generation(env, budget, { id, seq: null, publishedAt: null, manifest, advisories });
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
  const warm = currentFromMemory(env, clock(), budget);
  if (warm !== undefined) return warm;
  const [pointer, advisories] = await Promise.all([loadPointer(env, clock, budget), loadAdvisories(env, clock, budget)]);
  if (pointer === null) return null;
  const manifest = await readDocument(env, "generation", pointer.generation, undefined, budget, parseManifest);
  return new Generation(env, budget, { id: pointer.generation, seq: pointer.seq, publishedAt: pointer.published_at, manifest, advisories });
}

/**
 * The current generation as a warm isolate opens it on most requests: the pointer and the
 * advisories still within their memory TTL and the manifest in memory, so the same Generation
 * as openGeneration's reads would give, without a promise per layer. Undefined when any of them
 * needs a read; null when memory knows nothing is published.
 */
function currentFromMemory(env: StorageBindings, now: number, budget: RequestReads): Generation | null | undefined {
  const ttl = liveTtlMs(env);
  const pointer = liveFromMemory<PointerSummary>("pointer", now, ttl);
  const advisories = liveFromMemory<AdvisoriesInForce>("advisories", now, ttl);
  if (pointer === undefined || advisories === undefined) return undefined;
  if (pointer.value === null) return null;
  const manifest = documentFromMemory<GenerationManifest>("generation", pointer.value.generation);
  if (manifest === undefined) return undefined;
  const { generation, seq, published_at } = pointer.value;
  return new Generation(env, budget, { id: generation, seq, publishedAt: published_at, manifest, advisories: advisories.value ?? NO_ADVISORIES });
}

/** The advisories in force when R2 holds none (what loadAdvisories answers then). */
const NO_ADVISORIES: AdvisoriesInForce = { advisories: [], seq: 0 };
