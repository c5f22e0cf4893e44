// The shelf's read group, ready to mount at "/": the static layout, well-known discovery, the
// read API (/v1, src/worker/api), /mcp and the pages for browsers ("/" and /ui, src/worker/pages),
// each at the current generation, pinned at /g/<generation>/…, and under /c/<token>/… for
// capability URLs (404 unless switched on). The group's header policy is middleware here: CORS
// around every answer, the strict security headers and read access on every read path.
import { Hono, type MiddlewareHandler } from "hono";
import { apiRoutes } from "../api/index.ts";
import { readAccess, shelfVisibility } from "../auth/read-access.ts";
import { notFound } from "../http/errors.ts";
import { mcpRoutes } from "../mcp/index.ts";
import { pageRoutes } from "../pages/index.ts";
import { preflightResponse, strictSecurityHeaders } from "../http/headers.ts";
import { openShelf, type ReadEnv } from "./context.ts";
import { shelfCors } from "./policy.ts";
import { shelfStatusRoutes } from "./shelf-status.ts";
import { staticLayoutRoutes } from "./static-layout.ts";
import { discoveryEnabled, wellKnownRoutes } from "./well-known.ts";

export type { ReadBindings, ReadEnv } from "./context.ts";

/** Every path a read view answers (per prefix); anything else is the group's JSON 404. */
const READ_PATHS = ["/skills/*", "/.well-known/agent-skills/*", "/.well-known/skills/*", "/.well-known/skillshelf/*", "/v1/*", "/api/search", "/mcp"];

/** The read paths that also take a POST (a JSON body), so their preflight allows it. */
const POST_PATHS: ReadonlySet<string> = new Set(["/v1/select", "/v1/resolve"]);

// Raw (still-encoded) path fragments that are never part of a published URL: encoded
// separators and NULs. Checked on the raw URL because Hono decodes parameters.
const FORBIDDEN_RAW = /%2f|%5c|%00|\\/i;

/**
 * The read surface under one prefix: for each read path, in order, a disabled discovery family
 * and encoded separators answer 404, a preflight answers 204, then the security headers, read
 * access and the request's shelf service wrap the views.
 */
function readSurface(): Hono<ReadEnv> {
  const surface = new Hono<ReadEnv>();
  const access = readAccess();
  const security = strictSecurityHeaders();

  // SHELF_DISCOVERY turns a well-known family off (404), e.g. "v0.1" to serve legacy clients only.
  for (const [pattern, family] of [
    ["/.well-known/agent-skills/*", "v0.2"],
    ["/.well-known/skills/*", "v0.1"],
  ] as const) {
    surface.use(pattern, async function discoveryFamilyEnabled(c, next) {
      if (!discoveryEnabled(c.env.SHELF_DISCOVERY, family)) throw notFound();
      return next();
    });
  }

  const rejectEncodedSeparators: MiddlewareHandler<ReadEnv> = async (c, next) => {
    if (FORBIDDEN_RAW.test(new URL(c.req.url).pathname)) throw notFound();
    return next();
  };
  // The pages' file views name stored paths too; their headers and access are the pages' own.
  surface.use("/ui/*", rejectEncodedSeparators);
  for (const pattern of READ_PATHS) {
    surface.use(pattern, rejectEncodedSeparators);
    // Preflights carry no credentials, so they are answered before read access.
    surface.options(pattern, (c) => {
      const path = c.req.path.replace(/^(\/c\/[^/]+)?(\/g\/[^/]+)?/, "");
      return preflightResponse(shelfVisibility(c.env), { post: POST_PATHS.has(path), mcp: path === "/mcp" });
    });
    surface.use(pattern, security);
    surface.use(pattern, access);
    surface.use(pattern, openShelf());
  }

  surface.route("/", staticLayoutRoutes());
  surface.route("/", wellKnownRoutes());
  surface.route("/", shelfStatusRoutes());
  surface.route("/", apiRoutes());
  surface.route("/", mcpRoutes());
  // The pages bring their own read access (the sign-in cookie on /ui) and their own CSP.
  surface.route("/", pageRoutes());
  return surface;
}

/**
 * The read group. Mount last, with `app.route("/", readRoutes())`: its CORS and its JSON 404
 * answer every path no earlier group claimed.
 * @example app.route("/", readRoutes())
 */
export function readRoutes(): Hono<ReadEnv> {
  const surface = readSurface();
  const reads = new Hono<ReadEnv>();
  reads.use("*", shelfCors());
  for (const prefix of ["/", "/g/:generation", "/c/:token", "/c/:token/g/:generation"]) reads.route(prefix, surface);
  reads.all("*", () => {
    throw notFound();
  });
  return reads;
}
