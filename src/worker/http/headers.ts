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

/** A header policy: sets headers it computed once, when it was built, on an answer's Headers. */
export type HeaderPolicy = (headers: Headers) => void;

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
  const entries: ReadonlyArray<readonly [string, string]> = [
    ["X-Content-Type-Options", "nosniff"],
    ["Content-Security-Policy", options.contentSecurityPolicy ?? FILE_CSP],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "no-referrer"],
  ];
  return function setSecurityHeaders(headers) {
    for (const [name, value] of entries) headers.set(name, value);
  };
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
  const entries: ReadonlyArray<readonly [string, string]> = [
    ["Access-Control-Allow-Origin", "*"],
    ["Access-Control-Expose-Headers", (options.exposeHeaders ?? CORS_EXPOSED_HEADERS).join(", ")],
    ["Cross-Origin-Resource-Policy", "cross-origin"],
  ];
  return function setCorsHeaders(headers) {
    for (const [name, value] of entries) headers.set(name, value);
  };
}

/**
 * Middleware: a header policy on every answer of the group it is registered on (errors included).
 * @example app.get("/healthz", withHeaders(applySecurityHeaders), handler)
 */
export function withHeaders(policy: HeaderPolicy): MiddlewareHandler {
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
