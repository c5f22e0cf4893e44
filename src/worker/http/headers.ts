// The header policies a route group applies: caching, security headers and CORS, as values and
// plain functions over a Headers object (each testable on its own), and the security-headers
// middleware built from the same values. src/worker/routes/policy.ts applies them to the reads.
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

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

/**
 * Sets the security headers every read response and every error carries: no MIME sniffing, a
 * sandboxing CSP, no framing, and no referrer leak of capability URLs.
 */
export function applySecurityHeaders(headers: Headers): Headers {
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Content-Security-Policy", FILE_CSP);
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "no-referrer");
  return headers;
}

/**
 * Sets the CORS headers for a public shelf: any origin may read, and may see the validators.
 * Private shelves get none, so a browser page on another origin cannot read them with a
 * stolen-but-ambient credential.
 */
export function applyCorsHeaders(headers: Headers, visibility: "public" | "private"): Headers {
  if (visibility !== "public") return headers;
  headers.set("Access-Control-Allow-Origin", "*");
  headers.set("Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS.join(", "));
  headers.set("Cross-Origin-Resource-Policy", "cross-origin");
  return headers;
}

/**
 * Middleware: the headers of {@link applySecurityHeaders} on every answer of the group, set by
 * hono's secure-headers with everything else it offers switched off (a route group that serves
 * pages will want its own CSP instead).
 * @example reads.use("/skills/*", strictSecurityHeaders())
 */
export function strictSecurityHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: { defaultSrc: ["'none'"], sandbox: [] },
    xContentTypeOptions: true,
    xFrameOptions: "DENY",
    referrerPolicy: "no-referrer",
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    strictTransportSecurity: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
}

/** What a preflight may allow beyond GET and HEAD: POST with a JSON body (POST /v1/select). */
export interface PreflightOptions {
  post?: boolean;
  /** /mcp: POST and DELETE too, and the headers MCP clients send (src/worker/mcp). */
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
