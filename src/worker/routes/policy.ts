// The read group's header policy, as middleware around its answers: CORS for a public shelf
// (every answer, errors and preflights included, so a browser on another origin can read a 404
// or a 503's Retry-After), and the cache policy of successful answers. Security headers come
// from http/headers.ts's strictSecurityHeaders, registered beside these in routes/index.ts.
import type { Context, Hono, MiddlewareHandler } from "hono";
import { shelfVisibility, type ReadAccessEnv, type ReadAccessVariables } from "../auth/read-access.ts";
import { applyCorsHeaders, cacheControlFor } from "../http/headers.ts";
import type { ReadEnv } from "./context.ts";

/**
 * Middleware: the public-shelf CORS headers on every answer of the group; private shelves get
 * none, so a page on another origin cannot read them with an ambient credential. Own code, not
 * hono/cors: that one joins lists with "," and varies on Origin, and these headers are recorded.
 * @example reads.use("*", shelfCors())
 */
export function shelfCors(): MiddlewareHandler<{ Bindings: ReadAccessEnv }> {
  return async function publicShelfCors(c, next) {
    await next();
    if (shelfVisibility(c.env) === "public") applyCorsHeaders(c.res.headers, "public");
  };
}

/**
 * What a successful answer is, for caching: the stored bytes of a file or archive (immutable
 * under /g/<generation>/, where they can never change), or a body generated from the generation
 * and the advisories in force (always short-lived and revalidated: advisories change it).
 */
export type CachedAs = "stored" | "generated";

/**
 * Middleware: Cache-Control on the route's successful answers (200, 206, 304), by what it serves
 * and the shelf's visibility. Error answers keep the no-store they are built with.
 * @example reads.get("/skills/index.json", cachePolicy("generated"), handler)
 */
export function cachePolicy(cachedAs: CachedAs): MiddlewareHandler<{ Bindings: ReadAccessEnv; Variables: ReadAccessVariables }> {
  return async function readCachePolicy(c, next) {
    await next();
    if (c.res.status >= 400) return;
    const pinned = c.req.param("generation" as never) !== undefined;
    const kind = cachedAs === "stored" && pinned ? "immutable" : "path";
    c.res.headers.set("Cache-Control", cacheControlFor(kind, c.get("shelfAccess").visibility));
  };
}

/**
 * Registers a GET read view with {@link cachePolicy} applied to what it returns (its 200, 206 or
 * 304; its errors are thrown and keep no-store): the same header as the middleware, one layer
 * fewer on every request of the hottest routes.
 * @example getCached(routes, "/skills/:name/:path{.+}", "stored", async (c) => storedFile(c, …))
 */
export function getCached<P extends string>(routes: Hono<ReadEnv>, path: P, cachedAs: CachedAs, view: (c: Context<ReadEnv, P>) => Promise<Response>): void {
  routes.get(path, async function viewWithCachePolicy(c) {
    const response = await view(c as unknown as Context<ReadEnv, P>);
    if (response.status < 400) {
      const kind = cachedAs === "stored" && c.get("shelf").pinned ? "immutable" : "path";
      response.headers.set("Cache-Control", cacheControlFor(kind, c.get("shelfAccess").visibility));
    }
    return response;
  });
}
