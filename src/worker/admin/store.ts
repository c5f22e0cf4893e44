// The write side of storage, used only by the authenticated admin API: content-addressed uploads
// verified before they are stored, the pointer moved by compare-and-swap, advisories merged
// (never dropped), and garbage collection that never deletes what a kept generation references.
// Every object is stored only after its children are verified present, so "present" implies
// "complete" all the way down: generation → shards → records → blobs.
import { canonicalJson, isCanonicalJson } from "../../core/generation/canonical-json.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import {
  ADVISORIES_SCHEMA,
  AdvisoriesRecordSchema,
  GenerationManifestSchema,
  HISTORY_LIMIT,
  POINTER_SCHEMA,
  PointerSchema,
  shardOf,
  ShardReferencesSchema,
  ShardSchema,
  SkillRecordSchema,
  type AdvisoriesRecord,
  type GenerationManifest,
  type Pointer,
  type Shard,
  type SkillEntry,
  type SkillRecord,
} from "../../core/generation/manifest.ts";
import { entryFor } from "../../core/generation/assemble.ts";
import { POINTER_MOVED } from "../../core/publish/client.ts";
import { AdvisoryEntrySchema } from "../../core/trust/records.ts";
import { advisoryToDict } from "../../core/trust/serialize.ts";
import type { Clock, StorageBindings } from "../storage/reader.ts";
import {
  KV_ADVISORIES_KEY,
  KV_POINTER_KEY,
  kvKey,
  r2Key,
  r2Prefix,
  R2_ADVISORIES_KEY,
  R2_GC_LEASE_KEY,
  R2_POINTER_KEY,
  type ObjectKind,
} from "../storage/keys.ts";
import type { GcReport } from "../../core/publish/client.ts";

export type { GcReport };

/** Most hashes one presence query may ask about (one R2 head each). */
export const MAX_PRESENCE_BATCH = 500;
/** Parallel R2 heads while verifying presence. */
const HEAD_CONCURRENCY = 50;
/** Largest blob accepted in one upload (a skill is at most 16 MiB; its archives slightly more). */
export const MAX_BLOB_BYTES = 32 * 1024 * 1024;
/** Largest JSON document accepted (records, shards, manifests). */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/** gc's default grace period: objects younger than this are never deleted. */
export const DEFAULT_GC_GRACE_SECONDS = 24 * 60 * 60;
/** gc's default number of most recent generations (from the history) kept besides the current one. */
export const DEFAULT_GC_KEEP = 5;
/**
 * Most R2 reads one gc pass may do (list pages, manifests, shards, young records), staying far from
 * per-invocation limits. Shards carry their blob lists, so a 10,000-skill shelf needs ~300.
 */
export const GC_MAX_READS = 800;
/**
 * Most binding operations (R2 and KV calls, counted together) one gc invocation makes: the
 * platform allows about 1,000 per invocation. GC_OPERATION_MARGIN of them are kept spare.
 */
export const GC_MAX_OPERATIONS = 1_000;
export const GC_OPERATION_MARGIN = 50;
/** How long gc's lease on the pointer holds pointer moves back (released as soon as gc is done). */
export const GC_LEASE_MS = 120_000;
/** gc deletes a batch only while its lease has at least this long left; otherwise it stops. */
export const GC_LEASE_MIN_LEFT_MS = 30_000;
/** How long gc waits after taking its lease, longer than any document upload or pointer move takes. */
export const GC_SETTLE_MS = 15_000;

/** Largest JSON request body the admin API reads (presence batches, advisories, pointer moves). */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Reads a request body, counting bytes as they stream in, and stops with 413 as soon as it
 * passes `max`: a body without Content-Length (chunked) is never buffered whole before the check.
 * @example const bytes = await readBodyCapped(request.body, MAX_DOCUMENT_BYTES, "record")
 */
export async function readBodyCapped(body: ReadableStream<Uint8Array> | null, max: number, what: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new AdminError(413, "too_large", `the ${what} is larger than ${max} bytes; nothing was stored`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** A refusal the admin API answers with `status` and a one-line message; nothing was changed. */
export class AdminError extends Error {
  readonly status: 400 | 404 | 409 | 411 | 413 | 422 | 503;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: AdminError["status"], code: string, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "AdminError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** The document kinds uploaded as canonical JSON. */
export type DocumentKind = "record" | "shard" | "generation";

/** Which objects of each kind are missing. */
export type Presence = Record<ObjectKind, string[]>;

function isHex(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

/** Runs `fn` over items with at most `limit` in flight. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i += limit) {
    const chunk = items.slice(i, i + limit);
    const results = await Promise.all(chunk.map(fn));
    results.forEach((r, j) => (out[i + j] = r));
  }
  return out;
}

/** Merges advisories: same key replaces (a withdrawal updates), nothing in force is ever dropped. */
export function mergeAdvisories(current: readonly Record<string, unknown>[], incoming: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const keyOf = (a: Record<string, unknown>) =>
    typeof a.advisory_id === "string" && a.advisory_id ? `id:${a.advisory_id}` : `nsr:${JSON.stringify([a.name, a.source, a.tree_hash ?? null, a.reference])}`;
  const merged = new Map<string, Record<string, unknown>>();
  for (const a of current) merged.set(keyOf(a), a);
  for (const a of incoming) merged.set(keyOf(a), a);
  return [...merged.values()];
}


/** The storage operations of the admin API, over the Worker's bindings. */
export class ShelfStore {
  readonly #env: StorageBindings;
  readonly #clock: Clock;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #settleMs: number;
  /** When the lease this store's applying gc holds expires (ms since the epoch). */
  #gcLeaseUntil = 0;

  constructor(
    env: StorageBindings,
    clock: Clock = Date.now,
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    settleMs: number = GC_SETTLE_MS,
  ) {
    this.#env = env;
    this.#clock = clock;
    this.#sleep = sleep;
    this.#settleMs = settleMs;
  }

  /** Which of the given objects are not stored. At most MAX_PRESENCE_BATCH hashes per call. */
  async missing(query: Partial<Record<ObjectKind, unknown>>): Promise<Presence> {
    const kinds: ObjectKind[] = ["blob", "record", "shard", "generation"];
    const wanted: { kind: ObjectKind; sha: string }[] = [];
    for (const kind of kinds) {
      const list = query[kind];
      if (list === undefined) continue;
      if (!Array.isArray(list) || !list.every(isHex)) throw new AdminError(400, "bad_request", `"${kind}" must be a list of 64-character lowercase hex SHA-256 digests`);
      for (const sha of new Set(list)) wanted.push({ kind, sha });
    }
    if (wanted.length > MAX_PRESENCE_BATCH) throw new AdminError(413, "batch_too_large", `ask about at most ${MAX_PRESENCE_BATCH} objects per call (got ${wanted.length}); split the query`);
    const heads = await this.#heads(wanted.map((w) => r2Key(w.kind, w.sha)));
    const out: Presence = { blob: [], record: [], shard: [], generation: [] };
    wanted.forEach((w, i) => {
      if (!heads[i]) out[w.kind].push(w.sha);
    });
    return out;
  }

  async #heads(keys: readonly string[]): Promise<(R2Object | null)[]> {
    try {
      return await mapLimit(keys, HEAD_CONCURRENCY, (key) => this.#env.SHELF_BUCKET.head(key));
    } catch (err) {
      console.error("R2 head failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; nothing was changed. Retry shortly");
    }
  }

  /**
   * Stores a blob whose bytes must hash to `sha256` (R2 checks the digest as it stores; a
   * mismatch stores nothing). Idempotent: an existing blob is left as is.
   */
  async putBlob(sha256: string, request: Request): Promise<{ stored: boolean }> {
    if (!isHex(sha256)) throw new AdminError(400, "bad_request", "blob key must be a 64-character lowercase hex SHA-256");
    const header = request.headers.get("Content-Length");
    const length = header !== null && /^\d+$/.test(header) ? Number(header) : null;
    if (length !== null && length > MAX_BLOB_BYTES) throw new AdminError(413, "too_large", `blob is ${length} bytes; at most ${MAX_BLOB_BYTES} are accepted`);
    const key = r2Key("blob", sha256);
    if (await this.#env.SHELF_BUCKET.head(key)) {
      await request.body?.cancel();
      return { stored: false };
    }
    // R2 needs a body of known length: stream it when Content-Length says how long it is,
    // otherwise (chunked uploads) read it, bounded by MAX_BLOB_BYTES.
    let value: ReadableStream | ArrayBuffer;
    if (length !== null && request.body) value = request.body;
    else {
      const bytes = await readBodyCapped(request.body, MAX_BLOB_BYTES, "blob");
      value = bytes.buffer as ArrayBuffer;
    }
    try {
      await this.#env.SHELF_BUCKET.put(key, value, { sha256 });
    } catch (err) {
      const message = String((err as Error)?.message ?? err);
      if (/sha-?256|checksum|digest|hash/i.test(message)) {
        throw new AdminError(422, "digest_mismatch", `the body's SHA-256 is not ${sha256}; nothing was stored. Re-read the file and upload it again`);
      }
      console.error("R2 put failed", key, err);
      throw new AdminError(503, "storage_unavailable", "R2 did not store the blob; retry shortly");
    }
    return { stored: true };
  }

  /**
   * Stores a canonical JSON document after checking: its SHA-256 is `sha256`, it is canonical,
   * it matches its schema, and everything it references is present. Then caches it in KV.
   */
  async putDocument(kind: DocumentKind, sha256: string, bytes: Uint8Array): Promise<{ stored: boolean }> {
    if (!isHex(sha256)) throw new AdminError(400, "bad_request", `${kind} key must be a 64-character lowercase hex SHA-256`);
    if (bytes.length > MAX_DOCUMENT_BYTES) throw new AdminError(413, "too_large", `${kind} is ${bytes.length} bytes; at most ${MAX_DOCUMENT_BYTES} are accepted`);
    const actual = await sha256Hex(bytes);
    if (actual !== sha256) throw new AdminError(422, "digest_mismatch", `the ${kind}'s SHA-256 is ${actual}, not ${sha256}; nothing was stored`);
    if (!isCanonicalJson(bytes)) throw new AdminError(422, "not_canonical", `the ${kind} is not canonical JSON (RFC 8785); build it with skillshelf build`);
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
    const key = r2Key(kind, sha256);
    if (await this.#env.SHELF_BUCKET.head(key)) return { stored: false };
    await this.assertNoGcRunning();

    const children = this.#childrenOf(kind, json);
    const missing =
      kind === "shard"
        ? await this.#verifyShardBlobs(ShardSchema.parse(json))
        : kind === "generation"
          ? await this.#verifyManifestShards(GenerationManifestSchema.parse(json), children)
          : await this.missingAmong(children);
    if (missing.length) {
      throw new AdminError(422, "missing_references", `the ${kind} references ${missing.length} object(s) that are not stored; upload them first (nothing was stored)`, { missing: missing.slice(0, 50) });
    }
    try {
      await this.#env.SHELF_BUCKET.put(key, bytes, { sha256, httpMetadata: { contentType: "application/json" } });
    } catch (err) {
      console.error("R2 put failed", key, err);
      throw new AdminError(503, "storage_unavailable", `R2 did not store the ${kind}; retry shortly`);
    }
    await this.#kvPut(kvKey(kind, sha256), new TextDecoder().decode(bytes));
    return { stored: true };
  }

  /** Validates a document and lists its children as R2 keys (with sizes to check). */
  #childrenOf(kind: DocumentKind, json: unknown): { key: string; size: number }[] {
    const fail = (message: string) => new AdminError(422, "invalid_document", message);
    if (kind === "record") {
      const parsed = SkillRecordSchema.safeParse(json);
      if (!parsed.success) throw fail(`not a skill record: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const record: SkillRecord = parsed.data;
      return [
        ...record.files.map((f) => ({ key: r2Key("blob", f.sha256), size: f.size })),
        { key: r2Key("blob", record.archives.tar_gz.sha256), size: record.archives.tar_gz.size },
        { key: r2Key("blob", record.archives.zip.sha256), size: record.archives.zip.size },
      ];
    }
    if (kind === "shard") {
      const parsed = ShardSchema.safeParse(json);
      if (!parsed.success) throw fail(`not a shard: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const shard: Shard = parsed.data;
      for (const entry of shard.skills) {
        if (shardOf(entry.name, shard.shard_count) !== shard.index) throw fail(`skill ${entry.name} does not belong in shard ${shard.index} of ${shard.shard_count}`);
      }
      return shard.skills.map((s) => ({ key: r2Key("record", s.record.sha256), size: s.record.size }));
    }
    const parsed = GenerationManifestSchema.safeParse(json);
    if (!parsed.success) throw fail(`not a generation manifest: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const manifest: GenerationManifest = parsed.data;
    const children = manifest.shards.map((s) => ({ key: r2Key("shard", s.sha256), size: s.size }));
    if (manifest.shelf.advisories) children.push({ key: r2Key("blob", manifest.shelf.advisories.sha256), size: manifest.shelf.advisories.size });
    return children;
  }

  /**
   * Reads a shard's records (so also checks they are present) and checks that the shard's blob
   * list is exactly the blobs they reference (gc trusts that list) and that each entry's paths
   * are its record's (the v0.1 index trusts them). Returns the missing records.
   */
  async #verifyShardBlobs(shard: Shard): Promise<string[]> {
    const sizes = new Map(shard.skills.map((e) => [r2Key("record", e.record.sha256), e.record.size]));
    const keys = [...sizes.keys()];
    let records: (SkillRecord | null)[];
    try {
      records = await mapLimit(keys, HEAD_CONCURRENCY, async (key) => {
        const object = await this.#env.SHELF_BUCKET.get(key);
        if (!object) return null;
        if (object.size !== sizes.get(key)) {
          await object.body.cancel();
          return null;
        }
        return SkillRecordSchema.parse(await object.json());
      });
    } catch (err) {
      console.error("R2 read of shard records failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; nothing was stored. Retry shortly");
    }
    const missing = keys.filter((_, i) => records[i] === null);
    if (missing.length) return missing;
    const expected = new Set<string>();
    for (const record of records as SkillRecord[]) for (const sha of blobsOfRecord(record)) expected.add(sha);
    const listed = new Set(shard.blobs);
    if (listed.size !== shard.blobs.length || listed.size !== expected.size || [...expected].some((sha) => !listed.has(sha))) {
      throw new AdminError(422, "invalid_document", `shard ${shard.index}'s blob list is not exactly the blobs its records reference; rebuild it with skillshelf build`);
    }
    // Listings, indexes and digests are served from the entries without reading the records
    // (paths, SKILL.md blob, archives, hashes, trust): each entry must be exactly what its record
    // gives, field by field, as the build derives it.
    const byKey = new Map(keys.map((key, i) => [key, records[i] as SkillRecord]));
    const text = new TextDecoder();
    for (const entry of shard.skills) {
      const record = byKey.get(r2Key("record", entry.record.sha256))!;
      let derived: SkillEntry;
      try {
        derived = entryFor(record, entry.record);
      } catch (err) {
        throw new AdminError(422, "invalid_document", `shard ${shard.index}'s entry for ${entry.name}: ${(err as Error).message}`);
      }
      if (text.decode(canonicalJson(derived)) !== text.decode(canonicalJson(entry))) {
        const fields = (Object.keys(derived) as (keyof SkillEntry)[]).filter((k) => text.decode(canonicalJson(derived[k])) !== text.decode(canonicalJson(entry[k])));
        throw new AdminError(422, "invalid_document", `shard ${shard.index}'s entry for ${entry.name} differs from its record in ${fields.join(", ")}; rebuild it with skillshelf build`);
      }
    }
    return [];
  }

  /**
   * Reads a manifest's shards (so also checks they are present with the right size) and checks
   * what the manifest says about them, which readers trust without re-reading them: each ref's
   * index and count, one shard_count throughout, refs sorted by index and unique, and the
   * skill, file and byte totals. Returns the missing children (shards and the advisories blob).
   */
  async #verifyManifestShards(manifest: GenerationManifest, children: readonly { key: string; size: number }[]): Promise<string[]> {
    const fail = (message: string) => new AdminError(422, "invalid_document", `${message}; rebuild it with skillshelf build`);
    const refs = manifest.shards;
    let shards: (Shard | null)[];
    try {
      shards = await mapLimit(refs, HEAD_CONCURRENCY, async (ref) => {
        const object = await this.#env.SHELF_BUCKET.get(r2Key("shard", ref.sha256));
        if (!object) return null;
        if (object.size !== ref.size) {
          await object.body.cancel();
          return null;
        }
        return ShardSchema.parse(await object.json());
      });
    } catch (err) {
      console.error("R2 read of manifest shards failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; nothing was stored. Retry shortly");
    }
    const missing = refs.filter((_, i) => shards[i] === null).map((r) => r2Key("shard", r.sha256));
    const others = children.filter((c) => !c.key.startsWith(r2Prefix("shard")));
    missing.push(...(await this.missingAmong(others)));
    if (missing.length) return missing;
    let skills = 0;
    let files = 0;
    let bytes = 0;
    refs.forEach((ref, i) => {
      const shard = shards[i]!;
      if (i > 0 && refs[i - 1]!.index >= ref.index) throw fail(`the manifest's shard refs are not sorted by index and unique (${ref.index})`);
      if (ref.index >= manifest.shard_count) throw fail(`the manifest's shard ref ${ref.index} is not below its shard_count ${manifest.shard_count}`);
      if (shard.index !== ref.index) throw fail(`the manifest's shard ref ${ref.index} names shard ${shard.index}`);
      if (shard.shard_count !== manifest.shard_count) throw fail(`shard ${shard.index} was built for ${shard.shard_count} shards, the manifest says ${manifest.shard_count}`);
      if (shard.skills.length !== ref.count) throw fail(`the manifest says shard ${ref.index} holds ${ref.count} skill(s), it holds ${shard.skills.length}`);
      skills += shard.skills.length;
      for (const entry of shard.skills) {
        files += entry.file_count;
        bytes += entry.total_bytes;
      }
    });
    if (skills !== manifest.skill_count || files !== manifest.file_count || bytes !== manifest.total_bytes) {
      throw fail(`the manifest's totals (${manifest.skill_count} skills, ${manifest.file_count} files, ${manifest.total_bytes} bytes) are not its shards' (${skills}, ${files}, ${bytes})`);
    }
    return [];
  }

  /** The keys among `children` that are absent or have another size, checked in batches. */
  async missingAmong(children: readonly { key: string; size: number }[]): Promise<string[]> {
    const unique = [...new Map(children.map((c) => [c.key, c])).values()];
    const heads = await this.#heads(unique.map((c) => c.key));
    return unique.filter((c, i) => heads[i] === null || heads[i]!.size !== c.size).map((c) => c.key);
  }

  async #kvPut(key: string, value: string): Promise<void> {
    try {
      await this.#env.SHELF_KV.put(key, value);
    } catch (err) {
      // KV is a cache: readers fall back to R2. Log, do not fail the upload.
      console.warn("KV cache write failed", key, err);
    }
  }

  /** The pointer and its R2 etag, or null when nothing has been published. */
  async readPointer(): Promise<{ pointer: Pointer; etag: string } | null> {
    let object: R2ObjectBody | null;
    try {
      object = await this.#env.SHELF_BUCKET.get(R2_POINTER_KEY);
    } catch (err) {
      console.error("R2 get pointer failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; retry shortly");
    }
    if (!object) return null;
    const pointer = PointerSchema.parse(await object.json());
    return { pointer, etag: object.etag };
  }

  /**
   * Moves the pointer to `generation` if it still names `previous` (null: nothing published
   * yet). Conflicts answer 409 and change nothing; two publishers cannot both win because the
   * R2 write is conditional on the etag read here.
   */
  async movePointer(generation: string, previous: string | null, action: "publish" | "rollback"): Promise<Pointer> {
    if (!isHex(generation)) throw new AdminError(400, "bad_request", "generation must be a 64-character lowercase hex id");
    if (previous !== null && !isHex(previous)) throw new AdminError(400, "bad_request", "previous must be a generation id or null");
    const current = await this.readPointer();
    const currentId = current?.pointer.generation ?? null;
    if (currentId !== previous) {
      throw new AdminError(409, POINTER_MOVED, `the current generation is ${currentId ?? "none"}, not ${previous ?? "none"}; another publish won. Re-run to publish on top of it`, { current: currentId });
    }
    await this.assertNoGcRunning();
    await this.#verifyGenerationComplete(generation, currentId);
    const now = new Date(this.#clock()).toISOString();
    const seq = (current?.pointer.seq ?? 0) + 1;
    const pointer: Pointer = {
      schema: POINTER_SCHEMA,
      generation,
      seq,
      published_at: now,
      history: [{ seq, generation, action, at: now }, ...(current?.pointer.history ?? [])].slice(0, HISTORY_LIMIT),
    };
    let written: R2Object | null;
    try {
      written = await this.#env.SHELF_BUCKET.put(R2_POINTER_KEY, JSON.stringify(pointer), {
        onlyIf: current ? { etagMatches: current.etag } : { etagDoesNotMatch: "*" },
        httpMetadata: { contentType: "application/json" },
      });
    } catch (err) {
      console.error("R2 put pointer failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not store the pointer; nothing changed. Retry shortly");
    }
    if (written === null) {
      const now2 = await this.readPointer();
      throw new AdminError(409, POINTER_MOVED, "another publish moved the pointer at the same moment; nothing changed. Re-run to publish on top of it", {
        current: now2?.pointer.generation ?? null,
      });
    }
    await this.#kvPut(KV_POINTER_KEY, JSON.stringify({ generation, seq, published_at: now }));
    return pointer;
  }

  /**
   * Checks, just before the pointer moves, that the generation is stored and that every shard it
   * does not share with the current generation still is: present implies complete below it, and
   * gc (which deletes only under its lease, never during a move) may have removed old objects a
   * publish reused. Reads two manifests and heads the changed shards: proportional to the change.
   */
  async #verifyGenerationComplete(generation: string, currentId: string | null): Promise<void> {
    const read = async (id: string) => {
      const object = await this.#env.SHELF_BUCKET.get(r2Key("generation", id));
      return object ? GenerationManifestSchema.parse(await object.json()) : null;
    };
    let target: GenerationManifest | null;
    let current: GenerationManifest | null;
    try {
      [target, current] = await Promise.all([read(generation), currentId ? read(currentId) : Promise.resolve(null)]);
    } catch (err) {
      console.error("R2 read of manifests failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; nothing changed. Retry shortly");
    }
    if (!target) throw new AdminError(422, "missing_references", `generation ${generation} is not stored; upload its manifest first (or rerun publish)`);
    const shared = new Set(current?.shards.map((s) => s.sha256) ?? []);
    const changed = target.shards.filter((s) => !shared.has(s.sha256)).map((s) => ({ key: r2Key("shard", s.sha256), size: s.size }));
    if (target.shelf.advisories) changed.push({ key: r2Key("blob", target.shelf.advisories.sha256), size: target.shelf.advisories.size });
    const missing = await this.missingAmong(changed);
    if (missing.length) {
      throw new AdminError(422, "missing_references", `generation ${generation} references ${missing.length} object(s) that are no longer stored (collected by gc); rerun publish to upload them again`, { missing: missing.slice(0, 50) });
    }
  }

  /** Rolls back (or forward) to a generation the history remembers. */
  async rollback(generation: string, previous: string | null): Promise<Pointer> {
    const current = await this.readPointer();
    if (!current) throw new AdminError(409, "conflict", "nothing has been published yet; there is nothing to roll back");
    if (!current.pointer.history.some((h) => h.generation === generation)) {
      throw new AdminError(404, "unknown_generation", `generation ${generation} is not in the history; list it with skillshelf history`);
    }
    return this.movePointer(generation, previous, "rollback");
  }

  /** The advisories in force, with the etag to replace them conditionally. */
  async readAdvisories(): Promise<{ record: AdvisoriesRecord; etag: string | null }> {
    const object = await this.#env.SHELF_BUCKET.get(R2_ADVISORIES_KEY);
    if (!object) return { record: { schema: ADVISORIES_SCHEMA, advisories: [], seq: 0, updated_at: new Date(0).toISOString() }, etag: null };
    return { record: AdvisoriesRecordSchema.parse(await object.json()), etag: object.etag };
  }

  /**
   * Merges advisories into the ones in force (validated one by one; a withdrawal replaces the
   * entry it withdraws; nothing is ever dropped) and stores the result with a conditional write.
   */
  async mergeAdvisories(incoming: unknown): Promise<{ record: AdvisoriesRecord; changed: boolean }> {
    if (!Array.isArray(incoming)) throw new AdminError(400, "bad_request", `"advisories" must be a list`);
    const entries: Record<string, unknown>[] = [];
    const problems: string[] = [];
    incoming.forEach((raw, i) => {
      const parsed = AdvisoryEntrySchema.safeParse(raw);
      if (parsed.success) entries.push(advisoryToDict(parsed.data));
      else problems.push(`advisory ${i}: ${parsed.error.issues.map((x) => x.message).join("; ")}`);
    });
    if (problems.length) throw new AdminError(422, "invalid_advisories", `invalid advisories; nothing changed: ${problems.join(" | ")}`);
    for (let attempt = 0; attempt < 3; attempt++) {
      const { record, etag } = await this.readAdvisories();
      const merged = mergeAdvisories(record.advisories, entries);
      // Canonical comparison: parsing may reorder keys, which is not a change.
      if (sameJson(merged, record.advisories)) return { record, changed: false };
      const next: AdvisoriesRecord = { schema: ADVISORIES_SCHEMA, advisories: merged as AdvisoriesRecord["advisories"], seq: record.seq + 1, updated_at: new Date(this.#clock()).toISOString() };
      const written = await this.#env.SHELF_BUCKET.put(R2_ADVISORIES_KEY, JSON.stringify(next), {
        onlyIf: etag ? { etagMatches: etag } : { etagDoesNotMatch: "*" },
        httpMetadata: { contentType: "application/json" },
      });
      if (written) {
        await this.#kvPut(KV_ADVISORIES_KEY, JSON.stringify(next));
        return { record: next, changed: true };
      }
    }
    throw new AdminError(409, "conflict", "the advisories changed under three attempts in a row; retry");
  }

  /** Every object of a kind with its upload time and size (paginated list; ≤1000 per page). */
  async #list(kind: ObjectKind, budget: GcBudget): Promise<Map<string, { uploaded: number; size: number }>> {
    const out = new Map<string, { uploaded: number; size: number }>();
    let cursor: string | undefined;
    do {
      if (++budget.reads > GC_MAX_READS) throw tooLargeForGc();
      budget.ops++;
      const page = await this.#env.SHELF_BUCKET.list({ prefix: r2Prefix(kind), cursor });
      for (const o of page.objects) out.set(o.key.slice(r2Prefix(kind).length), { uploaded: o.uploaded.getTime(), size: o.size });
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  }

  async #readJson(kind: DocumentKind, sha: string, budget: GcBudget): Promise<unknown> {
    if (++budget.reads > GC_MAX_READS) throw tooLargeForGc();
    budget.ops++;
    const object = await this.#env.SHELF_BUCKET.get(r2Key(kind, sha));
    if (!object) throw new AdminError(503, "inconsistent", `${r2Key(kind, sha)} is referenced but missing; gc refuses to run on inconsistent storage`);
    return object.json();
  }

  /**
   * Garbage collection. Roots: the current generation, the `keep` most recent generations in the
   * history, and every object younger than the grace period (an upload in flight). Everything a
   * surviving object references survives. Dry run unless `apply`; deletions go parents first so
   * a present object always has its children.
   */
  async gc(options: { keep?: number; apply?: boolean; graceSeconds?: number }): Promise<GcReport> {
    const keep = options.keep ?? DEFAULT_GC_KEEP;
    const graceSeconds = options.graceSeconds ?? DEFAULT_GC_GRACE_SECONDS;
    if (!Number.isSafeInteger(keep) || keep < 0) throw new AdminError(400, "bad_request", "keep must be a whole number ≥ 0");
    if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) throw new AdminError(400, "bad_request", "grace_seconds must be a whole number ≥ 0");
    const budget: GcBudget = { reads: 0, ops: 0 };
    if (options.apply) {
      await this.#takeGcLease(budget);
      try {
        return await this.#collect(keep, graceSeconds, true, budget);
      } finally {
        await this.#releaseGcLease();
      }
    }
    return this.#collect(keep, graceSeconds, false, budget);
  }

  async #collect(keep: number, graceSeconds: number, apply: boolean, budget: GcBudget): Promise<GcReport> {
    const youngAfter = this.#clock() - graceSeconds * 1000;
    budget.ops++;
    const pointer = await this.readPointer();
    if (apply && !pointer) throw new AdminError(409, "conflict", "nothing has been published yet, so gc cannot tell what to keep; publish first");

    const keptIds = new Set<string>();
    if (pointer) {
      keptIds.add(pointer.pointer.generation);
      for (const h of pointer.pointer.history) {
        if (keptIds.size > keep) break;
        keptIds.add(h.generation);
      }
    }
    const listed = {
      generation: await this.#list("generation", budget),
      shard: await this.#list("shard", budget),
      record: await this.#list("record", budget),
      blob: await this.#list("blob", budget),
    };
    const survive = (kind: ObjectKind, referenced: Set<string>) => {
      const s = new Set(referenced);
      for (const [sha, meta] of listed[kind]) if (meta.uploaded > youngAfter) s.add(sha);
      return s;
    };
    const generations = survive("generation", keptIds);
    const shardRefs = new Set<string>();
    const blobRefs = new Set<string>();
    for (const id of generations) {
      if (!listed.generation.has(id)) continue;
      const manifest = GenerationManifestSchema.parse(await this.#readJson("generation", id, budget));
      for (const s of manifest.shards) shardRefs.add(s.sha256);
      if (manifest.shelf.advisories) blobRefs.add(manifest.shelf.advisories.sha256);
    }
    const shards = survive("shard", shardRefs);
    const recordRefs = new Set<string>();
    const recordsToRead = new Set<string>();
    for (const sha of shards) {
      if (!listed.shard.has(sha)) continue;
      // A stored shard's blob list was checked against its records when it was stored.
      // Any shard version: generations built before an upgrade still hold their blobs.
      const shard = ShardReferencesSchema.parse(await this.#readJson("shard", sha, budget));
      for (const s of shard.skills) recordRefs.add(s.record.sha256);
      if (shard.blobs) for (const b of shard.blobs) blobRefs.add(b);
      else for (const s of shard.skills) recordsToRead.add(s.record.sha256);
    }
    const records = survive("record", recordRefs);
    for (const sha of records) {
      // Read only records no surviving shard's blob list covers: young uploads of a publish in
      // flight, and the records of the earliest shards, which carried no blob list.
      if (!listed.record.has(sha) || (recordRefs.has(sha) && !recordsToRead.has(sha))) continue;
      const record = SkillRecordSchema.parse(await this.#readJson("record", sha, budget));
      for (const b of blobsOfRecord(record)) blobRefs.add(b);
    }
    const blobs = survive("blob", blobRefs);
    const keepSets: Record<ObjectKind, Set<string>> = { generation: generations, shard: shards, record: records, blob: blobs };

    const order: ObjectKind[] = ["generation", "shard", "record", "blob"];
    const report: GcReport = {
      applied: apply,
      keep,
      grace_seconds: graceSeconds,
      kept_generations: [...keptIds],
      deletable: { generation: 0, shard: 0, record: 0, blob: 0 },
      deletable_bytes: 0,
      deleted: { generation: 0, shard: 0, record: 0, blob: 0 },
      sample: { generation: [], shard: [], record: [], blob: [] },
    };
    const doomed: Record<ObjectKind, string[]> = { generation: [], shard: [], record: [], blob: [] };
    for (const kind of order) {
      for (const [sha, meta] of listed[kind]) {
        if (keepSets[kind].has(sha)) continue;
        doomed[kind].push(sha);
        report.deletable[kind]++;
        report.deletable_bytes += meta.size;
        if (report.sample[kind].length < 20) report.sample[kind].push(sha);
      }
    }
    if (!apply) return report;
    await this.#deleteDoomed(order, doomed, report, budget);
    return report;
  }

  /**
   * 503 (retryable) while gc holds its lease: document uploads and pointer moves wait, so gc's
   * listing and deletions never interleave with an upload that relies on an old object.
   */
  async assertNoGcRunning(): Promise<void> {
    let lease: R2Object | null;
    try {
      lease = await this.#env.SHELF_BUCKET.head(R2_GC_LEASE_KEY);
    } catch (err) {
      console.error("R2 head of the gc lease failed", err);
      throw new AdminError(503, "storage_unavailable", "R2 did not answer; nothing changed. Retry shortly");
    }
    const left = lease ? Date.parse(lease.customMetadata?.until ?? "") - this.#clock() : 0;
    if (left > 0) {
      const seconds = Math.min(30, Math.ceil(left / 1000));
      throw new AdminError(503, "gc_in_progress", `garbage collection is deleting unreferenced objects; retry in ${seconds} s (nothing changed)`, {}, { "Retry-After": String(seconds) });
    }
  }

  /**
   * Takes gc's lease (a create-only object; an expired one is replaced), then waits GC_SETTLE_MS
   * so uploads and pointer moves that checked before the lease existed have finished.
   */
  async #takeGcLease(budget: GcBudget): Promise<void> {
    const untilMs = this.#clock() + GC_LEASE_MS;
    const until = new Date(untilMs).toISOString();
    budget.ops += 2; // head and put
    const existing = await this.#env.SHELF_BUCKET.head(R2_GC_LEASE_KEY);
    if (existing && Date.parse(existing.customMetadata?.until ?? "") > this.#clock()) {
      throw new AdminError(409, "conflict", "another gc is running; retry when it has finished");
    }
    const written = await this.#env.SHELF_BUCKET.put(R2_GC_LEASE_KEY, "", {
      onlyIf: existing ? { etagMatches: existing.etag } : { etagDoesNotMatch: "*" },
      customMetadata: { until },
    });
    if (!written) throw new AdminError(409, "conflict", "another gc is running; retry when it has finished");
    this.#gcLeaseUntil = untilMs;
    if (this.#settleMs > 0) await this.#sleep(this.#settleMs);
  }

  async #releaseGcLease(): Promise<void> {
    try {
      await this.#env.SHELF_BUCKET.delete(R2_GC_LEASE_KEY);
    } catch (err) {
      console.warn("releasing the gc lease failed; it expires by itself", err);
    }
  }

  /**
   * Deletes parents first (R2, in bulk batches of 1,000 keys), each batch only while the lease
   * has GC_LEASE_MIN_LEFT_MS left, then the KV copies of the deleted documents, as many as the
   * invocation's remaining operations allow (GC_MAX_OPERATIONS, less what gc already did, the
   * lease release and GC_OPERATION_MARGIN). KV copies left behind are harmless: nothing
   * references them, and the next gc that deletes documents removes what it can of its own.
   */
  async #deleteDoomed(order: ObjectKind[], doomed: Record<ObjectKind, string[]>, report: GcReport, budget: GcBudget): Promise<void> {
    for (const kind of order) {
      const keys = doomed[kind].map((sha) => r2Key(kind, sha));
      for (let i = 0; i < keys.length; i += 1000) {
        const left = this.#gcLeaseUntil - this.#clock();
        if (left < GC_LEASE_MIN_LEFT_MS) {
          const done = order.map((k) => `${report.deleted[k]} ${k}(s)`).join(", ");
          throw new AdminError(
            503,
            "gc_lease_expiring",
            `gc stopped before deleting more ${kind}s: its lease has ${Math.max(0, Math.round(left / 1000))} s left (under ${GC_LEASE_MIN_LEFT_MS / 1000} s), so publishes could resume while it deletes. Deleted so far: ${done}; storage is consistent. Rerun gc --apply to continue`,
          );
        }
        if (budget.ops + 2 > GC_MAX_OPERATIONS - GC_OPERATION_MARGIN) {
          // 2: this batch and the lease release. Only a bucket of hundreds of thousands of
          // objects gets here; what was deleted is consistent (parents first).
          const done = order.map((k) => `${report.deleted[k]} ${k}(s)`).join(", ");
          throw new AdminError(503, "gc_operation_limit", `gc stopped before deleting more ${kind}s: it has used ${budget.ops} of the ${GC_MAX_OPERATIONS} operations one invocation allows. Deleted so far: ${done}; storage is consistent. Rerun gc --apply to continue`);
        }
        budget.ops++;
        await this.#env.SHELF_BUCKET.delete(keys.slice(i, i + 1000));
        report.deleted[kind] += Math.min(1000, keys.length - i);
      }
    }
    let kvAllowed = GC_MAX_OPERATIONS - GC_OPERATION_MARGIN - budget.ops - 1; // 1: the lease release
    for (const kind of order) {
      if (kind === "blob") continue; // blobs are never in KV
      for (const sha of doomed[kind]) {
        if (kvAllowed <= 0) return;
        kvAllowed--;
        budget.ops++;
        try {
          await this.#env.SHELF_KV.delete(kvKey(kind, sha));
        } catch (err) {
          console.warn("KV delete failed", err);
        }
      }
    }
  }
}

/** What one gc invocation has spent: R2 reads while planning, and every binding operation. */
interface GcBudget {
  reads: number;
  ops: number;
}

/** Every blob a record references: its files and both archives. */
function blobsOfRecord(record: SkillRecord): string[] {
  return [...record.files.map((f) => f.sha256), record.archives.tar_gz.sha256, record.archives.zip.sha256];
}

function sameJson(a: unknown, b: unknown): boolean {
  const x = canonicalJson(a);
  const y = canonicalJson(b);
  return x.length === y.length && x.every((byte, i) => byte === y[i]);
}

function tooLargeForGc(): AdminError {
  return new AdminError(413, "gc_too_large", `this bucket needs more than ${GC_MAX_READS} reads for one gc pass; gc in one invocation does not support a shelf this large yet (see docs/storage.md)`);
}
