// What every read view is given: its bindings and variables (who is asking, and the request's
// shelf service, opened by openShelf), and the two answers it gives: a stored file, or a
// generated JSON document whose ETag is known before it is built. Hot views read their variables
// with c.get("shelf"): Hono's c.var copies every variable into a new object on each access.
import type { Context, MiddlewareHandler } from "hono";
import type { ReadAccessEnv, ReadAccessVariables } from "../auth/read-access.ts";
import { ifNoneMatchMatches } from "../http/conditional.ts";
import { GENERATION_HEADER, isDressed, markDressed, type HeaderList } from "../http/headers.ts";
import { serveFile, serveJson } from "../http/file-response.ts";
import type { CachedAs, ReadHeaderPolicies } from "./answer-headers.ts";
import { ShelfService, type ShelfFile } from "../shelf/service.ts";
import type { SigningBindings } from "../shelf/signing.ts";
import { edgeCacheFor, edgeCachedBytes, type EdgeCacheEnv } from "./edge-cache.ts";
import { cachedGenerated, keepGenerated } from "./generated.ts";
import { renderedBytes, renderedTierOn, type RenderedEnv } from "./rendered.ts";
import type { StorageBindings } from "../storage/index.ts";

/** The bindings the read routes use. */
export type ReadBindings = StorageBindings &
  ReadAccessEnv &
  SigningBindings &
  EdgeCacheEnv &
  RenderedEnv & {
    /** "all" (default), or a comma list of the well-known families to serve: "v0.2", "v0.1". */
    SHELF_DISCOVERY?: string;
  };

/**
 * Hono environment of the read routes. `readHeaders` (set by the read guard) and `cachedAs` (set
 * by getCached) are what a view needs to build its answer with every policy header at once.
 */
export type ReadEnv = {
  Bindings: ReadBindings;
  Variables: ReadAccessVariables & { shelf: ShelfService; readHeaders: ReadHeaderPolicies | undefined; cachedAs: CachedAs | undefined };
};

/** A read route's context. */
export type ReadContext = Context<ReadEnv>;

/**
 * Middleware: the request's shelf service, pinned to /g/<generation>/ when the route is. It
 * opens nothing yet: the first lookup does, after read access has let the caller in. Every
 * answer given once the generation was opened (errors included) names it in
 * GENERATION_HEADER, so a client can check the answer against that generation's manifest.
 * @example surface.use("/skills/*", openShelf())
 */
export function openShelf(): MiddlewareHandler<ReadEnv> {
  return withShelf;
}

/**
 * {@link openShelf}'s work as a plain function, for a guard that runs it inside its own step
 * (read/index.ts) rather than as one more middleware.
 */
export async function withShelf(c: ReadContext, next: () => Promise<void>): Promise<void> {
  const pinned = c.get("shelfAccess").pinned;
  const shelf = new ShelfService(c.env, pinned === undefined ? {} : { generation: pinned });
  c.set("shelf", shelf);
  await next();
  if (shelf.servedFrom !== undefined && !isDressed(c.res)) c.res.headers.set(GENERATION_HEADER, shelf.servedFrom);
}

/**
 * Every policy header of this request's successful answer (read/answer-headers.ts), when the
 * read guard and getCached set what it takes and the generation is open; undefined otherwise
 * (the policies then set them as middleware).
 */
function answerHeaders(c: ReadContext): HeaderList | undefined {
  const policies = c.get("readHeaders");
  const cachedAs = c.get("cachedAs");
  const shelf = c.get("shelf");
  if (policies === undefined || cachedAs === undefined || shelf?.servedFrom === undefined) return undefined;
  return policies.answerHeaders(cachedAs, shelf.pinned, c.get("shelfAccess").visibility, shelf.servedFrom);
}

/** An answer built with `headers` (its policy headers, when known) marked as such, so the policies skip it. */
function dressed(response: Response, headers: HeaderList | undefined): Response {
  return headers === undefined ? response : markDressed(response);
}

const encoder = new TextEncoder();

/** How a generated document is kept beyond the isolate. */
export interface GeneratedOptions {
  /** What the body depends on beyond the ETag: the caller's URL prefix, when the body holds links. */
  variant?: string;
  /**
   * True for a shelf-wide document (a listing of the whole generation): kept in R2 for every
   * later cold isolate (read/rendered.ts) when the request has no query string.
   */
  shelfWide?: boolean;
  /** Query strings (exactly as sent) whose shelf-wide answers are kept in R2 too: a fixed, small set. */
  keptQueries?: readonly string[];
}

/**
 * A generated JSON body whose ETag is known before it is built: a matching If-None-Match answers
 * 304 before `build` reads any shard or record, and a 200 serves the encoded bytes kept in the
 * isolate's generated-document cache (read/generated.ts) under the ETag, so `build` runs once
 * per ETag per isolate. The ETag must name everything the body depends on, except what a route
 * passes as `variant` (the caller's URL prefix, when the body holds links).
 * @example return generated(c, etag, async () => staticRootIndex(await c.get("shelf").skills()), { shelfWide: true })
 */
export async function generated(c: ReadContext, etag: string, build: () => Promise<unknown>, options: GeneratedOptions = {}): Promise<Response> {
  if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) {
    const headers = answerHeaders(c);
    return dressed(serveJson(c.req.raw, "null", etag, headers), headers);
  }
  const variant = options.variant ?? "";
  const key = variant === "" ? etag : `${etag} ${variant}`;
  const encode = async () => encoder.encode(JSON.stringify(await build()));
  const document = cachedGenerated(key) ?? keepGenerated(key, { etag, contentType: "application/json", body: await edgeOrBuild(c, key, encode, options) });
  const headers = answerHeaders(c);
  return dressed(serveJson(c.req.raw, document.body, etag, headers), headers);
}

/**
 * A generated document's bytes on an isolate that does not hold them (under `key`, which names
 * everything they depend on): from the platform's cache when the shelf may use it
 * (read/edge-cache.ts: public shelves, not on workers.dev), then, for a shelf-wide document, from
 * R2 (read/rendered.ts), else built, and kept where it was missing.
 */
export async function edgeOrBuild(
  c: ReadContext,
  key: string,
  build: () => Promise<Uint8Array>,
  kept: Pick<GeneratedOptions, "shelfWide" | "keptQueries"> = {},
): Promise<Uint8Array> {
  const generation = c.get("shelf").servedFrom;
  const viaR2 = kept.shelfWide === true && generation !== undefined && keptQuery(c.req.url, kept.keptQueries) && renderedTierOn(c.env);
  const built = viaR2 ? () => renderedBytes({ env: c.env, generation, ...waitUntilOf(c) }, key, build) : build;
  const cache = edgeCacheFor(c.env, c.req.url, c.get("shelfAccess").visibility);
  if (cache === undefined) return built();
  return edgeCachedBytes({ cache, url: c.req.url, ...waitUntilOf(c) }, key, built);
}

/**
 * Whether a shelf-wide answer to `url` may be kept in R2: without a query string, or with one the
 * route names. Any other query string is the caller's to vary, so such a request never writes.
 */
function keptQuery(url: string, keptQueries: readonly string[] = []): boolean {
  const at = url.indexOf("?");
  return at === -1 || keptQueries.includes(url.slice(at + 1));
}

/** The execution context's waitUntil, when the request has one (a test may call the app without). */
function waitUntilOf(c: ReadContext): { waitUntil?: (promise: Promise<unknown>) => void } {
  try {
    const ctx = c.executionCtx;
    return { waitUntil: (promise) => ctx.waitUntil(promise) };
  } catch {
    return {};
  }
}

/**
 * Serves one stored file of the shelf (ranges, HEAD and 304 from its digest, bytes streamed).
 * @example return storedFile(c, await c.get("shelf").file(name, path))
 */
export async function storedFile(c: ReadContext, file: ShelfFile, contentType?: string): Promise<Response> {
  const headers = answerHeaders(c);
  return dressed(await serveFile(c.req.raw, file, { ...(contentType ? { contentType } : {}), ...(headers ? { headers } : {}) }), headers);
}
