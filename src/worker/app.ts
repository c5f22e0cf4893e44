// The skillshelf Worker as a factory: a thin Hono app over a published shelf generation. One router per
// route group (health, the admin API, the reads), each with its own header policy as middleware, and
// one error path (http/error-handler.ts) that maps every typed error to its answer once. The
// repository's Worker (index.ts) and the package's (`skillshelf/worker`, package.ts) are both built here.
import { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { adminRoutes, type AdminRoutesOptions } from "./admin/index.ts";
import { oidcSessionSignIn } from "./auth/oidc/access.ts";
import type { ReadAccessOptions } from "./auth/read-access.ts";
import { handleError } from "./http/error-handler.ts";
import { notFound, plainErrorResponse } from "./http/errors.ts";
import { applySecurityHeaders, NO_STORE } from "./http/headers.ts";
import { oauthRoutes, oauthSignIn } from "./oauth/index.ts";
import { readRoutes } from "./read/index.ts";
import { warmUp } from "./warm-up.ts";
import type { AdminOpenApiDocument } from "./views/api/openapi.ts";

export type AppEnv = { Bindings: CloudflareBindings };

const HEALTHZ_OK = JSON.stringify({ ok: true });
/** /healthz's headers, built once: never cached, and the security headers every read carries. */
const HEALTHZ_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["Content-Type", "application/json"],
  ["Cache-Control", NO_STORE],
  ...applySecurityHeaders.entries,
];

/** What a deployment may change about the Worker; everything else is configured by its vars and bindings. */
export interface ShelfAppOptions {
  /** Read access on a private shelf: the read-token verifier and the sign-in methods asked first (OAuth plugs in here). */
  access?: ReadAccessOptions;
  /** The admin API's clock, waits and webhook timing (tests shorten them). */
  admin?: AdminRoutesOptions;
}

/** The admin router's own OpenAPI document, as /v1/openapi.json includes it (also rebuilt by its drift test). */
export function adminOpenApiDocument(admin: ReturnType<typeof adminRoutes>): AdminOpenApiDocument {
  return () => admin.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "skillshelf admin", version: "1" } });
}

/**
 * The Worker's Hono app.
 * @example export default createShelfApp() // what src/worker/index.ts does
 */
export function createShelfApp(options: ShelfAppOptions = {}): Hono<AppEnv> {
  // TrieRouter, not Hono's default SmartRouter: SmartRouter builds its routers on the first request
  // and keeps the first that accepts every route. Ours has routes RegExpRouter refuses, so it
  // always ended on TrieRouter after building (and dropping) a RegExpRouter, inside the first
  // request's CPU (~30 ms of a cold request on the bench's machine: docs/benchmarks.md, "Budget").
  // TrieRouter inserts each route as it is added, so the tree is built while the module evaluates
  // (start-up, not a request), and matching is the same as before.
  const app = new Hono<AppEnv>({ router: new TrieRouter() });

  // One error path: typed errors mapped once, HTTPExceptions return the Response they carry.
  app.onError(handleError);
  // Unreachable while the read group answers its own 404s; kept so no path can get hono's text 404.
  app.notFound(() => plainErrorResponse(notFound()));

  // Answers without touching storage, so it measures the isolate, not R2 or KV.
  // Never cached (it reports this isolate now) and carries the same security headers as every read.
  // `skillshelf dev` sets SKILLSHELF_DEV_RUN to a per-run nonce and waits for it here, so it never takes
  // another server on its port for the Worker it started; production never sets it, and answers {"ok":true}.
  // One Response built with every header: no middleware layer, no header set after the fact.
  app.get("/healthz", (c) => {
    const run = (c.env as CloudflareBindings & { SKILLSHELF_DEV_RUN?: string }).SKILLSHELF_DEV_RUN;
    return new Response(run ? JSON.stringify({ ok: true, run }) : HEALTHZ_OK, { headers: HEALTHZ_HEADERS });
  });

  // OAuth for a private shelf (src/worker/oauth): its authorization endpoints, metadata and the admin
  // grants index. Only where the config turns it on; elsewhere these paths fall through unchanged.
  app.route("/", oauthRoutes());

  // The admin API (publish, history, rollback, gc, advisories), behind the publish token. Every
  // /admin path is answered here (no CORS, unlike the reads): unknown ones with the JSON 404.
  const admin = adminRoutes(options.admin);
  app.route("/admin/v1", admin);
  app.all("/admin/*", () => {
    throw notFound();
  });

  // The read surface: /skills, /.well-known/agent-skills, /.well-known/skills, /v1/shelf, /g/<id>/…,
  // /c/<token>/…, and the JSON 404 for everything else. Mounted last: its CORS wraps what it answers.
  // /v1/openapi.json also documents the admin API: its router hands its own document over.
  const adminDocument = adminOpenApiDocument(admin);
  // Read access takes OAuth access tokens after the read token, then the pages' identity-provider
  // sessions (each a no-op where it is off), then the deployment's own sign-in methods.
  const methods = [oauthSignIn(), oidcSessionSignIn(), ...(options.access?.methods ?? [])];
  app.route("/", readRoutes({ adminDocument, access: { ...options.access, methods } }));
  // What every cold request would do first, done now, at start-up (warm-up.ts).
  warmUp(app);
  return app;
}
