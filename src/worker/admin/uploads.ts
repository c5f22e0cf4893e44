// Content-addressed uploads: which objects are missing, blobs stored under the SHA-256 R2
// checks as it stores, and documents stored only after they are verified (hash, canonical
// form, schema, and everything they reference present), so "present" implies "complete" all
// the way down: generation → shards → records → blobs.
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import type { DocumentKind, ObjectKind } from "../../core/generation/graph.ts";
import type { GenerationManifest, Shard, SkillRecord } from "../../core/generation/manifest.ts";
import { ShardSchema, SkillRecordSchema } from "../../core/generation/manifest.ts";
import { MAX_BLOB_BYTES, MAX_DOCUMENT_BYTES, MAX_PRESENCE_BATCH, type Presence, type PresenceQuery } from "../../core/publish/contract.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { kvKey, r2Key, r2Prefix } from "../storage/keys.ts";
import { readJsonText } from "../../core/publish/json-text.ts";
import { declaredLength } from "../http/capped-body.ts";
import { readBodyCapped, trackedBody } from "./body.ts";
import { adminError } from "./errors.ts";
import { assertNoGcRunning } from "./gc-lease.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { HEAD_CONCURRENCY, type AdminStorage } from "./storage.ts";
import { checkManifestAgainstShards, checkRecordAudit, checkRecordHashes, checkShardAgainstRecords, childrenOf, parseDocument, type Child } from "./verify.ts";

/** Verification reads that failed: R2 did not answer, so nothing was stored. */
const NOT_STORED = "R2 did not answer; nothing was stored. Retry shortly";

/**
 * Which of the given objects are not stored. At most MAX_PRESENCE_BATCH hashes per call (after
 * removing repeats), or 413 batch_too_large.
 * @example await presence(storage, { blob: [sha] }) // { blob: [sha], record: [], … } when absent
 */
export async function presence(storage: AdminStorage, query: PresenceQuery): Promise<Presence> {
  const kinds: ObjectKind[] = ["blob", "record", "shard", "generation"];
  const wanted: { kind: ObjectKind; sha: string }[] = [];
  for (const kind of kinds) for (const sha of new Set(query[kind] ?? [])) wanted.push({ kind, sha });
  if (wanted.length > MAX_PRESENCE_BATCH)
    throw adminError("batch_too_large", `ask about at most ${MAX_PRESENCE_BATCH} objects per call (got ${wanted.length}); split the query`);
  const heads = await storage.heads(wanted.map((w) => r2Key(w.kind, w.sha)));
  const out: Presence = { blob: [], record: [], shard: [], generation: [] };
  wanted.forEach((w, i) => {
    if (!heads[i]) out[w.kind].push(w.sha);
  });
  return out;
}

/** The keys among `children` that are absent or have another size, checked in batches. */
export async function missingAmong(storage: AdminStorage, children: readonly Child[], failure?: string): Promise<string[]> {
  const unique = [...new Map(children.map((c) => [c.key, c])).values()];
  const heads = await storage.heads(
    unique.map((c) => c.key),
    failure,
  );
  return unique.filter((c, i) => heads[i] === null || heads[i]!.size !== c.size).map((c) => c.key);
}

/**
 * Stores a blob whose bytes must hash to `sha256` (R2 checks the digest as it stores; a
 * mismatch stores nothing). Idempotent: an existing blob is left as is.
 */
export async function putBlob(storage: AdminStorage, sha256: string, request: Request): Promise<{ stored: boolean }> {
  const length = declaredLength(request.headers);
  if (length !== null && length > MAX_BLOB_BYTES) throw adminError("too_large", `blob is ${length} bytes; at most ${MAX_BLOB_BYTES} are accepted`);
  const key = r2Key("blob", sha256);
  if (await storage.head(key)) {
    await request.body?.cancel().catch(() => {});
    return { stored: false };
  }
  // R2 needs a body of known length: stream it when Content-Length says how long it is,
  // otherwise (chunked uploads) read it, counting, bounded by MAX_BLOB_BYTES.
  if (length === null || !request.body) {
    const bytes = await readBodyCapped(request.body, MAX_BLOB_BYTES, "blob");
    await storage.putBlob(key, bytes.buffer as ArrayBuffer, sha256);
    return { stored: true };
  }
  const body = trackedBody(request.body, length);
  await storage.putBlob(key, body.stream, sha256, body.clientFailed);
  return { stored: true };
}

/**
 * Stores a canonical JSON document after checking: its SHA-256 is `sha256`, it is canonical,
 * it matches its schema, and everything it references is present. Then caches it in KV.
 */
export async function putDocument(
  storage: AdminStorage,
  clock: () => number,
  kind: DocumentKind,
  sha256: string,
  bytes: Uint8Array,
): Promise<{ stored: boolean }> {
  if (bytes.length > MAX_DOCUMENT_BYTES) throw adminError("too_large", `${kind} is ${bytes.length} bytes; at most ${MAX_DOCUMENT_BYTES} are accepted`);
  // Text, depth and syntax first (400/413): what follows (canonical form, schemas) recurses.
  const read = readJsonText(bytes, kind);
  if (!read.ok) throw adminError(read.code, `${read.message}; nothing was stored`);
  const json = read.value;
  const actual = await sha256Hex(bytes);
  if (actual !== sha256) throw adminError("digest_mismatch", `the ${kind}'s SHA-256 is ${actual}, not ${sha256}; nothing was stored`);
  if (!sameBytes(canonicalJson(json), bytes)) throw adminError("not_canonical", `the ${kind} is not canonical JSON (RFC 8785); build it with skillshelf build`);
  const key = r2Key(kind, sha256);
  if (await storage.head(key)) return { stored: false };
  await assertNoGcRunning(storage, clock);

  const document = parseDocument(kind, json);
  if ("code" in document) throw adminError(document.code, document.message);
  const problem = document.kind === "record" ? ((await checkRecordHashes(document.record)) ?? checkRecordAudit(document.record)) : null;
  if (problem) throw adminError(problem.code, problem.message);
  const missing =
    document.kind === "shard"
      ? await verifyShard(storage, document.shard)
      : document.kind === "generation"
        ? await verifyManifest(storage, document.manifest, childrenOf(document))
        : await missingAmong(storage, childrenOf(document), NOT_STORED);
  if (missing.length) {
    throw adminError("missing_references", `the ${kind} references ${missing.length} object(s) that are not stored; upload them first (nothing was stored)`, {
      missing: missing.slice(0, 50),
    });
  }
  await storage.put(key, bytes, { sha256, httpMetadata: { contentType: "application/json" } }, `R2 did not store the ${kind}; retry shortly`);
  await storage.kvPut(kvKey(kind, sha256), new TextDecoder().decode(bytes));
  return { stored: true };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Reads a shard's records (so also checks they are present with the right size) and checks the
 * shard against them. Returns the missing records.
 */
async function verifyShard(storage: AdminStorage, shard: Shard): Promise<string[]> {
  const keys = [...new Map(shard.skills.map((e) => [r2Key("record", e.record.sha256), e.record.size])).entries()];
  const records = await mapLimit(keys, HEAD_CONCURRENCY, async ([key, size]) => {
    const stored = await storage.getJson(key, { size, failure: NOT_STORED });
    return stored ? SkillRecordSchema.parse(stored.json) : null;
  });
  const missing = keys.filter((_, i) => records[i] === null).map(([key]) => key);
  if (missing.length) return missing;
  const byKey = new Map(keys.map(([key], i) => [key, records[i] as SkillRecord]));
  const problem = checkShardAgainstRecords(shard, (entry) => byKey.get(r2Key("record", entry.record.sha256))!);
  if (problem) throw adminError(problem.code, problem.message);
  return [];
}

/**
 * Reads a manifest's shards (so also checks they are present with the right size) and checks
 * the manifest against them. Returns the missing children (shards and the advisories blob).
 */
async function verifyManifest(storage: AdminStorage, manifest: GenerationManifest, children: readonly Child[]): Promise<string[]> {
  const shards = await mapLimit(manifest.shards, HEAD_CONCURRENCY, async (ref) => {
    const stored = await storage.getJson(r2Key("shard", ref.sha256), { size: ref.size, failure: NOT_STORED });
    return stored ? ShardSchema.parse(stored.json) : null;
  });
  const missing = manifest.shards.filter((_, i) => shards[i] === null).map((r) => r2Key("shard", r.sha256));
  const others = children.filter((c) => !c.key.startsWith(r2Prefix("shard")));
  missing.push(...(await missingAmong(storage, others, NOT_STORED)));
  if (missing.length) return missing;
  const problem = checkManifestAgainstShards(manifest, shards as Shard[]);
  if (problem) throw adminError(problem.code, problem.message);
  return [];
}
