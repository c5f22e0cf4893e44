// The error carrier: every error answer is built as a complete Response and thrown inside an
// HTTPException, so the one onError (error-handler.ts) returns it unchanged (headers included:
// WWW-Authenticate, Retry-After, Content-Range). Bodies are small JSON objects
// `{error, message}` whose messages never echo storage errors.
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { applySecurityHeaders, NO_STORE } from "./headers.ts";

/** Longest Retry-After we ever send: agentskills-http fails fast on anything above 30 s. */
const MAX_RETRY_AFTER_SECONDS = 30;
/** Retry-After sent with a storage failure. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Builds an HTTPException whose response is `{error, message}` JSON with `status` and the
 * given extra headers, plus no-store and the security headers (an error body is a document we
 * wrote, so the strict policy fits it whatever route group it answers for).
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

/** 500 for a bug: logged by the caller, never echoed. */
export function internalError(): HTTPException {
  return httpError(500, "internal", "Internal error; it has been logged.");
}
