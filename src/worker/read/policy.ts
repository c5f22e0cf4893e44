// The read group's header policy, as factories composed when the group is built: CORS for a
// public shelf (every answer, errors and preflights included, so a browser on another origin can
// read a 404 or a 503's Retry-After), and the cache policy of successful answers, one function
// for the middleware and for the views registered with their policy (getCached).
import type { Context, Hono, MiddlewareHandler } from "hono";
import { shelfVisibility, type ReadAccessEnv, type ReadAccessVariables, type ShelfVisibility } from "../auth/read-access.ts";
import { corsHeaders, isDressed, type HeaderPolicy } from "../http/headers.ts";
import { type CachedAs, cacheControlOf } from "./answer-headers.ts";
import type { ReadEnv } from "./context.ts";

export type { CachedAs } from "./answer-headers.ts";

/**
 * Middleware: the public-shelf CORS headers (http/headers.ts corsHeaders, computed once) on
 * every answer of the group; private shelves get none. Own code, not hono/cors: that one joins
 * lists with "," and varies on Origin, and these headers are recorded. An answer built with them
 * already (read/answer-headers.ts) is left as it is.
 * @example reads.use("*", shelfCors(corsHeaders()))
 */
export function shelfCors(cors: HeaderPolicy = corsHeaders()): MiddlewareHandler<{ Bindings: ReadAccessEnv }> {
  return async function publicShelfCors(c, next) {
    await next();
    if (shelfVisibility(c.env) === "public" && !isDressed(c.res)) cors(c.res.headers);
  };
}

/**
 * The adapter boundary between an answer and the cache policy, the one place a read status is
 * looked at: a policy applies to successful answers (200, 206, 304); refusals are thrown and
 * keep the no-store every error is built with, and the pages' own 4xx and 5xx pages are never cached.
 * @example isCacheableAnswer(304) // => true
 */
export function isCacheableAnswer(status: number): boolean {
  return status < 400;
}

/**
 * Sets the Cache-Control of a successful answer by what it serves, whether the URL pins the
 * generation, and the shelf's visibility.
 * @example applyCachePolicy("stored", response.headers, response.status, true, "public")
 */
export function applyCachePolicy(cachedAs: CachedAs, headers: Headers, status: number, pinned: boolean, visibility: ShelfVisibility): void {
  if (!isCacheableAnswer(status)) return;
  headers.set("Cache-Control", cacheControlOf(cachedAs, pinned, visibility));
}

/**
 * Middleware: the cache policy on the route's successful answers.
 * @example reads.get("/skills/index.json", cachePolicy("generated"), handler)
 */
export function cachePolicy(cachedAs: CachedAs): MiddlewareHandler<{ Bindings: ReadAccessEnv; Variables: ReadAccessVariables }> {
  return async function readCachePolicy(c, next) {
    await next();
    applyCachePolicy(cachedAs, c.res.headers, c.res.status, c.get("shelfAccess").pinned !== undefined, c.get("shelfAccess").visibility);
  };
}

/**
 * Registers a GET read view with its cache policy applied to what it returns: the same policy as
 * {@link cachePolicy}, one layer fewer on every request of the hottest routes. The view's stored
 * files and generated documents (read/context.ts) are built with every policy header at once
 * (read/answer-headers.ts); anything else it returns gets the policy here.
 * @example getCached(routes, "/skills/:name/:path{.+}", "stored", async (c) => storedFile(c, …))
 */
export function getCached<P extends string>(routes: Hono<ReadEnv>, path: P, cachedAs: CachedAs, view: (c: Context<ReadEnv, P>) => Promise<Response>): void {
  routes.get(path, async function viewWithCachePolicy(c) {
    c.set("cachedAs", cachedAs);
    const response = await view(c as unknown as Context<ReadEnv, P>);
    if (!isDressed(response)) applyCachePolicy(cachedAs, response.headers, response.status, c.get("shelf").pinned, c.get("shelfAccess").visibility);
    return response;
  });
}
