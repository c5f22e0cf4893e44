// Every error a read route can answer, built as a complete Response and thrown inside an
// HTTPException so the one onError handler returns it unchanged (headers included:
// WWW-Authenticate, Retry-After, Content-Range). Bodies are small JSON objects
// `{error, message}` whose messages never echo storage errors.
import { HTTPException } from "hono/http-exception";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { shelfVisibility, type ReadAccessEnv } from "../auth/read-access.ts";
import { applyCorsHeaders, applySecurityHeaders, NO_STORE } from "./headers.ts";

/** Longest Retry-After we ever send: agentskills-http fails fast on anything above 30 s. */
export const MAX_RETRY_AFTER_SECONDS = 30;
/** Retry-After sent with a storage failure. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Builds an HTTPException whose response is `{error, message}` JSON with `status` and the
 * given extra headers, plus no-store and the security headers.
 * @example throw httpError(404, "not_found", "No skill 'x' on this shelf.")
 */
export function httpError(
  status: ContentfulStatusCode,
  error: string,
  message: string,
  extraHeaders: Record<string, string> = {},
  extraBody: Record<string, unknown> = {},
): HTTPException {
  const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": NO_STORE, ...extraHeaders });
  applySecurityHeaders(headers);
  const res = new Response(JSON.stringify({ error, message, ...extraBody }), { status, headers });
  return new HTTPException(status, { res, message });
}

/** 404 for anything that is not in the manifest. The message names the path asked for. */
export function notFound(what = "This path"): HTTPException {
  return httpError(404, "not_found", `${what} is not on this shelf. Fetch the index to see what is.`);
}

/** 503 with a short Retry-After when storage cannot answer: never a partial 200. */
export function storageUnavailable(retryAfterSeconds = STORAGE_RETRY_AFTER_SECONDS): HTTPException {
  const seconds = Math.min(Math.max(1, Math.round(retryAfterSeconds)), MAX_RETRY_AFTER_SECONDS);
  return httpError(503, "storage_unavailable", "The shelf's storage did not answer; retry shortly.", {
    "Retry-After": String(seconds),
  });
}

/** 416 for a Range that lies wholly outside the file. */
export function rangeNotSatisfiable(contentRange: string): HTTPException {
  return httpError(416, "range_not_satisfiable", "The requested range lies outside the file.", {
    "Content-Range": contentRange,
  });
}

/**
 * Adds the public-shelf CORS headers to an error response, so a browser on another origin can
 * read a 404, 410, 416 or 503 (and its Retry-After) instead of seeing a network error. Private
 * shelves and the admin API get none.
 */
function withPublicCors(res: Response, c: Context): Response {
  if (new URL(c.req.url).pathname.startsWith("/admin/")) return res;
  if (shelfVisibility((c.env ?? {}) as ReadAccessEnv) !== "public") return res;
  const headers = applyCorsHeaders(new Headers(res.headers), "public");
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * The app's single error handler: an HTTPException returns the Response it carries (headers
 * intact, plus CORS on a public shelf); anything else is logged and answered 500 without
 * echoing its message.
 */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof HTTPException) return withPublicCors(err.getResponse(), c);
  console.error("unhandled error", err);
  const headers = applySecurityHeaders(new Headers({ "Content-Type": "application/json", "Cache-Control": NO_STORE }));
  return withPublicCors(new Response(JSON.stringify({ error: "internal", message: "Internal error; it has been logged." }), { status: 500, headers }), c);
}
