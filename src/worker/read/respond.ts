// How /v1 answers a computed result: keyed by everything it depends on (the generation, the
// advisories in force, the route, every argument, the caller's URL prefix when links are in
// it), answered 304 from that key alone, and kept with its ETag in the isolate's bounded cache of
// generated documents (read/generated.ts, shared with the indexes), so a repeated request
// computes nothing, hashes nothing and reads no storage. Never written to KV on the request path.
import { edgeOrBuild, type ReadContext } from "./context.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { etagFor, ifNoneMatchMatches } from "../http/conditional.ts";
import { cachedGenerated, GENERATED_CACHE_BYTES, keepGenerated, resetGenerated } from "./generated.ts";

const encoder = new TextEncoder();

/** Bytes of computed answers one isolate keeps: the generated-document cache's budget, which they share with the indexes. */
export const COMPUTED_CACHE_BYTES = GENERATED_CACHE_BYTES;

/**
 * Forgets every computed answer, and every other generated document, here and in the platform's
 * cache (read/generated.ts resetGenerated), so tests that count storage reads start as the first
 * request in a location does.
 */
export function resetComputedCache(): void {
  resetGenerated();
}

/** What a computed answer depends on besides the generation and advisories, and how to build it. */
export interface ComputedAnswer {
  /** The route's name, e.g. "catalog". */
  route: string;
  /** Every argument the body depends on, already normalized (sorted lists, defaults applied). */
  args: Readonly<Record<string, unknown>>;
  /** True when the body holds URLs, which carry the caller's access prefix (a capability token). */
  links?: boolean;
  /** The media type, e.g. "application/json" or "text/markdown; charset=utf-8". */
  contentType: string;
  /**
   * True for a shelf-wide document (a listing of the whole generation): kept in R2 for every later
   * cold isolate when the request has no query string (read/rendered.ts).
   */
  shelfWide?: boolean;
  /** Query strings (exactly as sent) whose shelf-wide answers are kept in R2 too: a fixed, small set. */
  keptQueries?: readonly string[];
  /** Builds the body; called only on a cache miss. */
  build(): Promise<string | Uint8Array>;
}

/**
 * Answers a computed result: 304 when If-None-Match names its key's ETag, else the cached body,
 * else `build()` once (then cached with its ETag, so a hit hashes nothing). Errors thrown by
 * `build` are not cached.
 * @example return computed(c, { route: "outline", args: { name }, contentType: "application/json", build: async () => JSON.stringify(outline) })
 */
export async function computed(c: ReadContext, answer: ComputedAnswer): Promise<Response> {
  const generation = await c.get("shelf").generation();
  const prefix = answer.links ? c.get("shelfAccess").urlPrefix : "";
  const key = JSON.stringify([answer.route, generation.id, c.get("shelf").pinned, generation.advisoriesSeq, prefix, answer.contentType, answer.args]);
  const hit = cachedGenerated(key);
  const etag = hit?.etag ?? etagFor(`v1-${(await sha256Hex(key)).slice(0, 40)}`);
  const headers = new Headers({ ETag: etag });
  if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  let body = hit?.body;
  if (body === undefined) {
    const encoded = async () => {
      const built = await answer.build();
      return typeof built === "string" ? encoder.encode(built) : built;
    };
    body = keepGenerated(key, { etag, contentType: answer.contentType, body: await edgeOrBuild(c, key, encoded, answer) }).body;
  }
  headers.set("Content-Type", answer.contentType);
  headers.set("Content-Length", String(body.byteLength));
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}

/** A JSON computed answer; `options` as {@link ComputedAnswer}'s `links` and `shelfWide`. */
export function computedJson(
  c: ReadContext,
  route: string,
  args: Readonly<Record<string, unknown>>,
  build: () => Promise<unknown>,
  options: Pick<ComputedAnswer, "links" | "shelfWide"> = {},
): Promise<Response> {
  return computed(c, { route, args, ...options, contentType: "application/json", build: async () => JSON.stringify(await build()) });
}
