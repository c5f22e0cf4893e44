// The header policies a route group applies, as hono-style factories that validate their options
// and compute their headers once, when the group is built: security headers (per group: the
// pages have their own CSP), CORS and the Cache-Control values. Each returns a HeaderPolicy over a
// Headers object (testable on its own); src/worker/read composes them into each read path's guard.
import type { MiddlewareHandler } from "hono";

/**
 * Pinned file bytes (/g/<generation>/…) are content-addressed and never change: cached for a
 * year, never revalidated. An advisory published later makes the Worker answer 410 at once and
 * drops the skill from every (short-lived) index; only a cache that already holds those exact
 * bytes keeps them, and they are the bytes that client fetched and verified. Generated indexes
 * never get this policy (they change with advisories).
 */
const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable, no-transform";
// Every success policy carries no-transform: the ETag and Repr-Digest we send are digests of the
// exact bytes, so no intermediary (edge compression included) may change them.
/** Path URLs move with each publish: a short freshness window, then revalidate by ETag. */
const PATH_CACHE_CONTROL = "public, max-age=60, must-revalidate, no-transform";
/** Private shelves: browsers may keep a copy, shared caches must not. */
const PRIVATE_PATH_CACHE_CONTROL = "private, max-age=60, must-revalidate, no-transform";
const PRIVATE_IMMUTABLE_CACHE_CONTROL = "private, max-age=31536000, immutable, no-transform";
/**
 * Names the generation a read answer was served from (its id), so a client or the soak can check
 * the answer against that generation's manifest (docs/http.md, "Headers").
 */
export const GENERATION_HEADER = "Skillshelf-Generation";
/** Errors are never cached, so a transient 404 or 503 cannot outlive its cause. */
export const NO_STORE = "no-store";
/** Cache-Control: no-store on every answer (the admin API's). */
export const noStore = (headers: Headers): void => headers.set("Cache-Control", NO_STORE);

/**
 * The sandboxing policy on every file response: even a mistyped HTML file cannot run script
 * or load anything on the shelf's origin.
 */
const FILE_CSP = "default-src 'none'; sandbox";

/** Headers a browser may read from a cross-origin response (validators, ranges, digests). */
const CORS_EXPOSED_HEADERS = ["ETag", "Content-Length", "Content-Range", "Repr-Digest", "Retry-After"];

/**
 * Which caching policy a response falls under: "immutable" only for stored bytes at a pinned
 * URL; "path" for path URLs and for anything whose content depends on the advisories in force.
 */
export type CacheKind = "immutable" | "path";

/**
 * The Cache-Control value for a successful response.
 * @example cacheControlFor("immutable", "public") // => "public, max-age=31536000, immutable, no-transform"
 */
export function cacheControlFor(kind: CacheKind, visibility: "public" | "private"): string {
  if (visibility === "private") return kind === "immutable" ? PRIVATE_IMMUTABLE_CACHE_CONTROL : PRIVATE_PATH_CACHE_CONTROL;
  return kind === "immutable" ? IMMUTABLE_CACHE_CONTROL : PATH_CACHE_CONTROL;
}

/** Headers as name/value pairs: what an answer is built with in one `new Response(…, { headers })`. */
export type HeaderPairs = ReadonlyArray<readonly [string, string]>;
/** Header pairs an answer is being built with (added to, then handed to the Response constructor). */
export type HeaderList = (readonly [string, string])[];

/**
 * A header policy: sets headers it computed once, when it was built, on an answer's Headers. Its
 * `entries` are the same headers as pairs, for an answer built with them from the start.
 */
export type HeaderPolicy = ((headers: Headers) => void) & { readonly entries: HeaderPairs };

/** A header policy over fixed entries. */
function fixedPolicy(entries: HeaderPairs): HeaderPolicy {
  return Object.assign(
    function setPolicyHeaders(headers: Headers) {
      for (const [name, value] of entries) headers.set(name, value);
    },
    { entries },
  );
}

// Every Headers call crosses from JavaScript into the runtime, which costs more than the work it
// does: an answer built with all its headers at once (one constructor call) is cheaper than one
// built bare and then given a set() per header by each policy around it. Answers built that way
// are marked, and the policies around them skip what is already there.
const dressed = new WeakSet<Response>();

/** Marks an answer as built with every header its route group's policies would set (so they skip it). */
export function markDressed(response: Response): Response {
  dressed.add(response);
  return response;
}

/** True for an answer {@link markDressed} marked: its group's header policies are already on it. */
export function isDressed(response: Response): boolean {
  return dressed.has(response);
}

/** Options of {@link securityHeaders}. */
export interface SecurityHeadersOptions {
  /** The Content-Security-Policy (default: the sandbox every file and JSON answer gets). */
  contentSecurityPolicy?: string;
}

/** The read routes' and every error's policy: a sandboxing CSP on anything we serve. */
export const STRICT_SECURITY: Readonly<Required<SecurityHeadersOptions>> = { contentSecurityPolicy: FILE_CSP };

/**
 * The security headers of a route group, computed once: no MIME sniffing, its CSP, no framing,
 * and no referrer leak of capability URLs. Each group builds its own (the pages their CSP).
 * @example const strict = securityHeaders(); strict(response.headers)
 */
export function securityHeaders(options: SecurityHeadersOptions = STRICT_SECURITY): HeaderPolicy {
  return fixedPolicy([
    ["X-Content-Type-Options", "nosniff"],
    ["Content-Security-Policy", options.contentSecurityPolicy ?? FILE_CSP],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "no-referrer"],
  ]);
}

/** The strict security headers, built once: every read answer and every error carries them. */
export const applySecurityHeaders: HeaderPolicy = securityHeaders();

/** Options of {@link corsHeaders}. */
export interface CorsOptions {
  /** Response headers a cross-origin page may read (default: validators, ranges, digests, Retry-After). */
  exposeHeaders?: readonly string[];
}

/**
 * The CORS headers of a public shelf, computed once: any origin may read, and may see the
 * validators. Applied only to a public shelf's answers, so a browser page on another origin
 * cannot read a private one with a stolen-but-ambient credential.
 * @example const cors = corsHeaders(); if (visibility === "public") cors(response.headers)
 */
export function corsHeaders(options: CorsOptions = {}): HeaderPolicy {
  return fixedPolicy([
    ["Access-Control-Allow-Origin", "*"],
    ["Access-Control-Expose-Headers", (options.exposeHeaders ?? CORS_EXPOSED_HEADERS).join(", ")],
    ["Cross-Origin-Resource-Policy", "cross-origin"],
  ]);
}

/**
 * Middleware: a header policy on every answer of the group it is registered on (errors included).
 * @example app.get("/admin/*", withHeaders(applySecurityHeaders), handler)
 */
export function withHeaders(policy: (headers: Headers) => void): MiddlewareHandler {
  return async function headerPolicy(c, next) {
    await next();
    policy(c.res.headers);
  };
}

/** What a preflight may allow beyond GET and HEAD: POST with a JSON body (POST /v1/select). */
export interface PreflightOptions {
  post?: boolean;
  /** /mcp: POST and DELETE too, and the headers MCP clients send (src/worker/views/mcp). */
  mcp?: boolean;
}

/** Request headers MCP clients send, both protocol eras (2025: session and version; 2026-07-28: method and name). */
const MCP_REQUEST_HEADERS = "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID";

/**
 * The answer to a CORS preflight on the read routes: what may be asked, for a public shelf (the
 * CORS middleware around it adds the origin headers); only `Allow` for a private one.
 */
export function preflightResponse(visibility: "public" | "private", options: PreflightOptions = {}): Response {
  const methods = options.mcp ? "GET, POST, DELETE, OPTIONS" : options.post ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS";
  const headers = new Headers({ "Cache-Control": "public, max-age=86400" });
  if (visibility === "public") {
    const allowed = options.mcp
      ? MCP_REQUEST_HEADERS
      : `Range, If-Range, If-None-Match, If-Modified-Since, Authorization${options.post ? ", Content-Type" : ""}`;
    headers.set("Access-Control-Allow-Methods", methods);
    headers.set("Access-Control-Allow-Headers", allowed);
    headers.set("Access-Control-Max-Age", "86400");
  }
  headers.set("Allow", methods);
  return new Response(null, { status: 204, headers });
}
