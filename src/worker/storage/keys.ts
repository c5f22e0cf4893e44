// Every storage key the shelf uses, built in one place from server-side values only (hex digests
// checked here), so no client string ever becomes a key. docs/storage.md documents each one.
import { isSha256Hex } from "../../core/skill/hash.ts";
import type { ObjectKind } from "../../core/publish/client.ts";

/** R2: file bytes and archives, immutable, by SHA-256 of the bytes. */
const R2_BLOB_PREFIX = "blobs/";
/** R2: skill records (canonical JSON), immutable, by SHA-256 of the bytes. */
const R2_RECORD_PREFIX = "records/";
/** R2: shards (canonical JSON), immutable, by SHA-256 of the bytes. */
const R2_SHARD_PREFIX = "shards/";
/** R2: generation manifests (canonical JSON), immutable, by generation id. */
const R2_GENERATION_PREFIX = "generations/";
/**
 * R2: a generation's signatures (canonical JSON, src/core/signing), beside its manifest under the
 * same id: never inside what they sign, replaced only by a re-signing the admin API verified, and
 * deleted by gc with the generation.
 */
export const R2_SIGNATURES_PREFIX = "signatures/";
/**
 * R2: a generation's signatures cut by its shards (`signature-shards/<generation id>/<shard
 * index>`, canonical JSON, src/core/signing/signatures.ts), with its generation signature
 * (`…/generation`) and the payload that signs (`…/payload`), written by the admin API beside the
 * whole document once it verified, deleted by gc with the generation. Generations signed before
 * these existed have only the whole document, which readers fall back to.
 */
export const R2_SIGNATURE_SHARDS_PREFIX = "signature-shards/";
/**
 * R2: change documents (canonical JSON, src/core/changes/document.ts), by SHA-256 of the bytes:
 * written just before the history entry that names them, kept by gc while the history does.
 */
export const R2_CHANGES_PREFIX = "changes/";
/**
 * R2: the shelf-wide documents the read routes generate from a generation (`rendered/<generation
 * id>/<SHA-256 of the document's key>`), written by the first isolate that builds one and read by
 * every later cold isolate (src/worker/read/rendered.ts); a cache, deleted by gc with the generation.
 */
export const R2_RENDERED_PREFIX = "rendered/";
/** R2: the one mutable pointer to the current generation (moved by compare-and-swap). */
export const R2_POINTER_KEY = "pointer.json";
/** R2: the advisories in force (replaced by compare-and-swap). */
export const R2_ADVISORIES_KEY = "advisories.json";
/** R2: the version index (src/core/versions/record.ts; replaced by compare-and-swap). */
export const R2_VERSIONS_KEY = "versions.json";
/** R2: gc's lease (empty body, `until` in custom metadata): present while gc lists and deletes. */
export const R2_GC_LEASE_KEY = "gc-lease";

/** KV (cache only): copies of the R2 pointer, advisories, manifests, shards and records. */
export const KV_POINTER_KEY = "pointer";
export const KV_ADVISORIES_KEY = "advisories";
/** KV: `{seq, pointer_seq}` of the last version index written: announces a change, never served. */
export const KV_VERSIONS_KEY = "versions";
const KV_GENERATION_PREFIX = "gen:";
const KV_SHARD_PREFIX = "shard:";
const KV_RECORD_PREFIX = "record:";

export type { ObjectKind };

const R2_PREFIX: Record<ObjectKind, string> = {
  blob: R2_BLOB_PREFIX,
  record: R2_RECORD_PREFIX,
  shard: R2_SHARD_PREFIX,
  generation: R2_GENERATION_PREFIX,
};
const KV_PREFIX: Record<Exclude<ObjectKind, "blob">, string> = {
  record: KV_RECORD_PREFIX,
  shard: KV_SHARD_PREFIX,
  generation: KV_GENERATION_PREFIX,
};

function checkedHex(sha256: string): string {
  if (!isSha256Hex(sha256)) throw new TypeError(`not a lowercase hex SHA-256: ${JSON.stringify(sha256.slice(0, 80))}`);
  return sha256;
}

/** The R2 key of a content-addressed object. Throws on anything but 64 lowercase hex. */
export function r2Key(kind: ObjectKind, sha256: string): string {
  return R2_PREFIX[kind] + checkedHex(sha256);
}

/** The KV key of a cached JSON document (blobs are never cached in KV). */
export function kvKey(kind: Exclude<ObjectKind, "blob">, sha256: string): string {
  return KV_PREFIX[kind] + checkedHex(sha256);
}

/** The R2 key of a generation's signatures. Throws on anything but 64 lowercase hex. */
export function signaturesKey(generation: string): string {
  return R2_SIGNATURES_PREFIX + checkedHex(generation);
}

/** The R2 key of one shard's signatures of a generation. Throws on a bad id or index. */
export function signatureShardKey(generation: string, shard: number): string {
  if (!Number.isSafeInteger(shard) || shard < 0) throw new TypeError(`not a shard index: ${shard}`);
  return `${R2_SIGNATURE_SHARDS_PREFIX}${checkedHex(generation)}/${shard}`;
}

/**
 * The R2 key of a generation's signature with its document's digest (GenerationSignature), kept
 * under the generation's signature shards so gc deletes it with them.
 */
export function generationSignatureKey(generation: string): string {
  return `${R2_SIGNATURE_SHARDS_PREFIX}${checkedHex(generation)}/generation`;
}

/** The R2 key of the generation payload a generation's signature signs (GenerationPayload), beside it. */
export function generationPayloadKey(generation: string): string {
  return `${R2_SIGNATURE_SHARDS_PREFIX}${checkedHex(generation)}/payload`;
}

/** The R2 key of a rendered document of a generation. Throws on anything but 64 lowercase hex in either. */
export function renderedKey(generation: string, keyDigest: string): string {
  return `${R2_RENDERED_PREFIX}${checkedHex(generation)}/${checkedHex(keyDigest)}`;
}

/** The R2 key of a change document. Throws on anything but 64 lowercase hex. */
export function changesKey(sha256: string): string {
  return R2_CHANGES_PREFIX + checkedHex(sha256);
}

/** The R2 prefix of a kind, for listing (gc). */
export function r2Prefix(kind: ObjectKind): string {
  return R2_PREFIX[kind];
}
