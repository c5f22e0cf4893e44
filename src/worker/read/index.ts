// The shelf's read group, ready to mount at "/": the static layout, well-known discovery, the
// read API (/v1, src/worker/views/api), the ClawHub API (/api/v1, src/worker/views/clawhub), the
// Claude Code marketplace (/.claude-plugin, src/worker/views/claude), /mcp
// and the pages for browsers ("/" and /ui, src/worker/views/pages),
// each at the current generation, pinned at /g/<generation>/…, and under /c/<token>/… for
// capability URLs (404 unless switched on). The group's header policy is middleware here: CORS
// around every answer, and one guard per read path (read access, the shelf service, the strict
// security headers).
import { Hono, type MiddlewareHandler } from "hono";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { apiRoutes } from "../views/api/index.ts";
import { clawhubDiscoveryRoutes, clawhubRoutes } from "../views/clawhub/index.ts";
import { claudeMarketplaceRoutes } from "../views/claude/index.ts";
import type { AdminOpenApiDocument } from "../views/api/openapi.ts";
import { readAccess, readUrlParams, shelfVisibility, type ReadAccessOptions } from "../auth/read-access.ts";
import { notFound } from "../http/errors.ts";
import { mcpRoutes } from "../views/mcp/index.ts";
import { pageRoutes } from "../views/pages/index.ts";
import { corsHeaders, isDressed, preflightResponse, securityHeaders, type CorsOptions, type SecurityHeadersOptions } from "../http/headers.ts";
import { ReadHeaderPolicies } from "./answer-headers.ts";
import { type ReadContext, type ReadEnv, withShelf } from "./context.ts";
import { shelfCors } from "./policy.ts";
import { staticLayoutRoutes } from "../views/static-layout.ts";
import { type DiscoveryFamily, discoveryEnabled, wellKnownRoutes } from "../views/well-known.ts";

export type { ReadBindings, ReadEnv } from "./context.ts";

/** Every path a read view answers (per prefix); anything else is the group's JSON 404. */
const READ_PATHS = [
  "/skills/*",
  "/.well-known/agent-skills/*",
  "/.well-known/skills/*",
  "/.well-known/skillshelf/*",
  "/v1/*",
  "/api/search",
  "/api/v1/*",
  "/.claude-plugin/*",
  "/mcp",
];

/** SHELF_DISCOVERY turns a well-known family off (404), e.g. "v0.1" to serve legacy clients only. */
const FAMILY_OF: Readonly<Record<string, DiscoveryFamily>> = { "/.well-known/agent-skills/*": "v0.2", "/.well-known/skills/*": "v0.1" };

/** The read paths that also take a POST (a JSON body), so their preflight allows it. */
const POST_PATHS: ReadonlySet<string> = new Set(["/v1/select", "/v1/resolve"]);

// Raw (still-encoded) path fragments that are never part of a published URL: encoded
// separators and NULs. Checked on the raw URL because Hono decodes parameters.
const FORBIDDEN_RAW = /%2f|%5c|%00|\\/i;

/**
 * The path of a serialized URL as sent (still percent-encoded): what `new URL(url).pathname`
 * gives, without parsing the URL again on every request.
 * @example rawPathname("https://shelf.test/skills/a%2fb?x=%2f") // => "/skills/a%2fb"
 */
export function rawPathname(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  for (const stop of ["?", "#"]) {
    const at = url.indexOf(stop, start);
    if (at >= 0 && at < end) end = at;
  }
  return url.slice(start, end);
}

/** Answers 404 for a raw path with an encoded separator or NUL. */
function refuseEncodedSeparators(url: string): void {
  if (FORBIDDEN_RAW.test(rawPathname(url))) throw notFound();
}

/** The CORS preflight of a read path (answered before read access: preflights carry no credentials). */
function preflight(c: ReadContext): Response {
  const path = c.req.path.replace(/^(\/c\/[^/]+)?(\/g\/[^/]+)?/, "");
  return preflightResponse(shelfVisibility(c.env), { post: POST_PATHS.has(path), mcp: path === "/mcp" });
}

/** Options of {@link readRoutes}: what the read group's policies are built from, once. */
export interface ReadRoutesOptions {
  /** Read access on a private shelf: the read-token verifier and the sign-in methods (OAuth plugs in here). */
  access?: ReadAccessOptions;
  /** The public shelf's CORS headers. */
  cors?: CorsOptions;
  /** The read paths' security headers (default: the strict sandbox policy). */
  security?: SecurityHeadersOptions;
  /** The admin API's OpenAPI document, for /v1/openapi.json to include (the app hands it in). */
  adminDocument?: AdminOpenApiDocument;
}

/** The policies every read path's guard is composed from, each built once with the group. */
interface ReadPolicies {
  access: MiddlewareHandler<ReadEnv>;
  /** The security and CORS headers (read/answer-headers.ts), handed to the views to build answers with. */
  headers: ReadHeaderPolicies;
  adminDocument?: AdminOpenApiDocument;
}

/**
 * The guard of one read path, composed once from the group's policies into one step rather than
 * a chain of middleware (it runs on every read, so each layer costs): a well-known family
 * SHELF_DISCOVERY turns off and encoded separators answer 404, a preflight 204; then read access,
 * the request's shelf service (and its generation header) around the view, and the security
 * headers on whatever it answers (unless the view built its answer with them: read/answer-headers.ts).
 */
function readGuard(family: DiscoveryFamily | null, { access, headers }: ReadPolicies): MiddlewareHandler<ReadEnv> {
  return async function guardedRead(c, next) {
    if (family !== null && !discoveryEnabled(c.env.SHELF_DISCOVERY, family)) throw notFound();
    refuseEncodedSeparators(c.req.url);
    if (c.req.method === "OPTIONS") return preflight(c);
    c.set("readHeaders", headers);
    await access(c, () => withShelf(c, next));
    // A refusal thrown above already carries these (http/errors.ts); the view's answer, errors included, gets them here.
    if (!isDressed(c.res)) headers.security(c.res.headers);
  };
}

/**
 * The read surface under one prefix: each read path behind its guard (readGuard), then the views.
 */
function readSurface(policies: ReadPolicies): Hono<ReadEnv> {
  const surface = new Hono<ReadEnv>();
  // The pages' file views name stored paths too; their headers and access are the pages' own.
  surface.use("/ui/*", async (c, next) => {
    refuseEncodedSeparators(c.req.url);
    return next();
  });
  for (const pattern of READ_PATHS) surface.use(pattern, readGuard(FAMILY_OF[pattern] ?? null, policies));

  surface.route("/", staticLayoutRoutes());
  surface.route("/", wellKnownRoutes());
  surface.route("/", apiRoutes(policies.adminDocument));
  surface.route("/", clawhubRoutes());
  surface.route("/", claudeMarketplaceRoutes());
  surface.route("/", mcpRoutes());
  // The pages bring their own read access (the sign-in cookie on /ui) and their own CSP.
  surface.route("/", pageRoutes(policies.access));
  return surface;
}

/** Middleware: a /g/<generation> segment that is not a generation id (64 lowercase hex) is a 404. */
const pinnedIdOnly: MiddlewareHandler<ReadEnv> = async function pinnedIdOnly(c, next) {
  if (!isSha256Hex(readUrlParams(c).generation ?? "")) throw notFound();
  return next();
};

/**
 * The read group. Mount last, with `app.route("/", readRoutes())`: its CORS and its JSON 404
 * answer every path no earlier group claimed.
 * @example app.route("/", readRoutes())
 */
export function readRoutes(options: ReadRoutesOptions = {}): Hono<ReadEnv> {
  // Read access is written for any group whose bindings include its own; these do.
  const access = readAccess(options.access) as unknown as MiddlewareHandler<ReadEnv>;
  const cors = corsHeaders(options.cors);
  const surface = readSurface({
    access,
    headers: new ReadHeaderPolicies(securityHeaders(options.security), cors),
    ...(options.adminDocument ? { adminDocument: options.adminDocument } : {}),
  });
  const reads = new Hono<ReadEnv>();
  reads.use("*", shelfCors(cors));
  // A pinned segment reaches links and redirects (the pages' Location): anything but a generation
  // id is a 404 before any view runs (a CR or LF in it made a redirect throw: a 500).
  for (const pinned of ["/g/:generation", "/c/:token/g/:generation"]) {
    reads.use(pinned, pinnedIdOnly);
    reads.use(`${pinned}/*`, pinnedIdOnly);
  }
  // ClawHub's discovery document: at the host root only, and without read access (views/clawhub says why).
  reads.route("/", clawhubDiscoveryRoutes());
  for (const prefix of ["/", "/g/:generation", "/c/:token", "/c/:token/g/:generation"]) reads.route(prefix, surface);
  reads.all("*", () => {
    throw notFound();
  });
  return reads;
}
