// Parsing the content-addressed documents a listing reads (generation manifests and shards)
// without running their full zod schemas. By the time one is parsed its bytes have
// hashed to its address (documents.ts: an R2 copy, or a KV copy, is refused otherwise), that
// address came from an already-checked parent (pointer → manifest → shard), and the
// admin API parsed every such document against its full schema, and the build's rules, before
// it stored it under that address (src/worker/admin/verify.ts parseDocument). Running the schema
// again proves nothing new, and on a cold isolate it was the largest part of a listing's CPU
// (zod walking 1,000 entries in the interpreter: docs/benchmarks.md, "Budget"). What is still
// checked is what the digest cannot prove: that the document is of the format this Worker reads
// (its `schema` literal, so another version's document is refused as before) and the shape the
// readers index by, so a document written into R2 by hand, past the admin API, fails here with a
// 503 rather than deep inside a route. Such a document is otherwise trusted as stored: writing
// R2 directly is outside what the Worker can check (docs/reliability.md).
import { GENERATION_SCHEMA, type GenerationManifest, SHARD_SCHEMA, type Shard } from "../../core/generation/manifest.ts";
import { StorageUnavailableError } from "./errors.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

/** JSON.parse, and the document's `schema` literal; StorageUnavailableError otherwise (as parseWith). */
function parseEnvelope(text: string, where: string, schema: string): Json {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StorageUnavailableError(`${where} is not JSON`, { cause: err });
  }
  if (!isObject(json)) throw mismatch(where, "not an object");
  if (json.schema !== schema) throw mismatch(where, `schema is ${JSON.stringify(json.schema)}, expected ${schema}`);
  return json;
}

function mismatch(where: string, why: string): StorageUnavailableError {
  return new StorageUnavailableError(`${where} does not match its schema: ${why}`);
}

/** Each element an object with a non-empty string `field` (what the readers index by). */
function everyNamed(list: unknown, field: string): boolean {
  if (!Array.isArray(list)) return false;
  for (const item of list) if (!isObject(item) || typeof item[field] !== "string" || item[field] === "") return false;
  return true;
}

/**
 * A shard from its address-checked text: `skillshelf.shard/2`, its index and count, and entries
 * that each have a name and a record reference.
 * @example parseShardDocument(text, "shard/9f86…") // => { schema, index, shard_count, skills, blobs }
 */
export function parseShardDocument(text: string, where: string): Shard {
  const json = parseEnvelope(text, where, SHARD_SCHEMA);
  if (!isCount(json.index) || !isCount(json.shard_count) || !Array.isArray(json.blobs)) throw mismatch(where, "no index, shard_count or blobs");
  if (!everyNamed(json.skills, "name")) throw mismatch(where, "skills is not a list of named entries");
  for (const entry of json.skills as Json[])
    if (!isObject(entry.record) || typeof entry.record.sha256 !== "string") throw mismatch(where, `${String(entry.name)} has no record`);
  return json as unknown as Shard;
}

/**
 * A generation manifest from its address-checked text: `skillshelf.generation/1`, its shard
 * count and shard references.
 * @example parseManifestDocument(text, "generation/9f86…").shards.length // => 16
 */
export function parseManifestDocument(text: string, where: string): GenerationManifest {
  const json = parseEnvelope(text, where, GENERATION_SCHEMA);
  if (!isCount(json.shard_count) || !isObject(json.shelf) || !everyNamed(json.shards, "sha256")) throw mismatch(where, "no shard_count, shelf or shards");
  for (const ref of json.shards as Json[]) if (!isCount(ref.index) || !isCount(ref.size)) throw mismatch(where, "a shard reference has no index or size");
  return json as unknown as GenerationManifest;
}
