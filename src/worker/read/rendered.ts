// R2's copy of the shelf-wide documents a generation's listings are (the indexes, /v1/shelf, the
// catalog, /v1/trust, the first page of /v1/skills, the marketplace): the first isolate that
// builds one from every shard of the generation puts the bytes in R2, and every later cold
// isolate reads that one object instead (docs/storage.md "rendered/"). It is the Cache API's job
// (read/edge-cache.ts) done where the Cache API is not: on workers.dev, where a Free-plan team
// starts, and on a private shelf, whose R2 sits behind read access like everything else it serves.
//
// A document is kept here only when it is bounded by the shelf itself: the route opts in, and only
// for a request without a query string (or with one of the few its route names: the catalog's
// formats), so no caller can make the Worker write one object per query. Its key names everything
// the bytes depend on: the route's own key (generation, advisories, caller's prefix, arguments),
// the deployment that built it (its version id: code and settings), and every string the Worker
// was given, so two Workers over one bucket (a public and a private one) or two deployments never
// share a document. Without the version binding nothing is kept here: a new
// deployment could otherwise serve what the old code built.
import { sha256Hex } from "../../core/skill/hash.ts";
import { storedSha256 } from "../storage/documents.ts";
import { renderedKey } from "../storage/keys.ts";

/** The bindings the rendered tier reads. */
export interface RenderedEnv {
  SHELF_BUCKET: R2Bucket;
  /** The deployment's version (wrangler.toml `[version_metadata]`); without it the tier is off. */
  CF_VERSION_METADATA?: { id: string };
}

/** What {@link renderedBytes} needs of the request. */
export interface RenderedRequest {
  env: RenderedEnv;
  /** The generation the document is built from (its objects are deleted by gc with it). */
  generation: string;
  /** Keeps the put running after the answer is sent (the execution context's waitUntil), when there is one. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

// Bumped by resetRenderedKeys, so a test can start from a generation nothing was rendered for.
let keyEpoch = 0;

/** Every string binding of an env (variables and secrets), sorted: part of each key, so a setting's change is a new key. */
const settingsOf = new WeakMap<object, string>();
function settings(env: object): string {
  let known = settingsOf.get(env);
  if (known === undefined) {
    const strings = Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string");
    known = JSON.stringify(strings.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    settingsOf.set(env, known);
  }
  return known;
}

/**
 * True when this deployment keeps rendered documents in R2: it knows its own version.
 * @example renderedTierOn(env) // => false without [version_metadata] in wrangler.toml
 */
export function renderedTierOn(env: RenderedEnv): boolean {
  return typeof env.CF_VERSION_METADATA?.id === "string" && env.CF_VERSION_METADATA.id !== "";
}

/**
 * A shelf-wide document's bytes from R2 when another isolate of this deployment rendered it for
 * the same key, else built by `build` and put there (after the answer, through waitUntil when
 * there is one). R2 failing, or an object that is not what this tier wrote for this key, is a
 * miss, never an error: the document is built as if nothing were there (and the put replaces it).
 * @example const body = await renderedBytes({ env, generation }, key, async () => encode(await build()))
 */
export async function renderedBytes(request: RenderedRequest, key: string, build: () => Promise<Uint8Array>): Promise<Uint8Array> {
  const { env } = request;
  const keyDigest = await sha256Hex(JSON.stringify([keyEpoch, env.CF_VERSION_METADATA?.id, settings(env), key]));
  const at = renderedKey(request.generation, keyDigest);
  const stored = await readRendered(env.SHELF_BUCKET, at, keyDigest);
  if (stored !== undefined) return stored;
  const body = await build();
  const digest = await sha256Hex(body);
  const put = env.SHELF_BUCKET.put(at, body.slice(), { sha256: digest, customMetadata: { key: keyDigest, sha256: digest } }).catch((error) => {
    console.warn(`rendered document ${at} was not kept in R2 (the next cold isolate builds it again)`, error);
  });
  // Without an execution context (a test calling the app directly) the put is awaited, so the next request sees it.
  if (request.waitUntil) request.waitUntil(put);
  else await put;
  return body;
}

/**
 * The bytes at `at` when they are what this tier put there for `keyDigest`: the object names the
 * key, and R2 certified at upload that its bytes hash to the digest it names (an object put by
 * anything else, or moved from another key, names another or none). Undefined otherwise.
 */
async function readRendered(bucket: R2Bucket, at: string, keyDigest: string): Promise<Uint8Array | undefined> {
  try {
    const object = await bucket.get(at);
    if (object === null) return undefined;
    const certified = storedSha256(object);
    if (object.customMetadata?.key !== keyDigest || certified === null || certified !== object.customMetadata?.sha256) {
      await object.body.cancel();
      console.warn(`rendered document ${at} is not one this Worker wrote for its key; building it again`);
      return undefined;
    }
    return new Uint8Array(await object.arrayBuffer());
  } catch (error) {
    console.warn(`R2 read of rendered document ${at} failed; building it instead`, error);
    return undefined;
  }
}

/** Starts every later key afresh, as if nothing had been rendered for any generation (tests). */
export function resetRenderedKeys(): void {
  keyEpoch++;
}
