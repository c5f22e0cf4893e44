// The plain error answer: a ShelfError (src/worker/errors.ts) rendered as `{error, message,
// ...members}` JSON with no-store, the security headers and the headers it carries
// (WWW-Authenticate, Retry-After, Content-Range). The static layout, the well-known indexes,
// read access, /mcp before the SDK and the admin API answer this way; messages never echo storage errors.
import { ShelfError } from "../errors.ts";
import { NotOnShelfError } from "../shelf/errors.ts";
import { applySecurityHeaders, NO_STORE } from "./headers.ts";

/**
 * The plain answer for a ShelfError: its code as `error`, its detail (and hint) as `message`.
 * @example plainErrorResponse(NotOnShelfError.path()).status // => 404
 */
export function plainErrorResponse(error: ShelfError): Response {
  const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": NO_STORE, ...error.headers });
  applySecurityHeaders(headers);
  const message = error.hint ? `${error.detail} ${error.hint}` : error.detail;
  return new Response(JSON.stringify({ error: error.code, message, ...error.members }), { status: error.status, headers });
}

/** 404 for anything that is not in the manifest or on any route. */
export function notFound(): NotOnShelfError {
  return NotOnShelfError.path();
}

/** 416 for a Range that lies wholly outside the file. */
export function rangeNotSatisfiable(contentRange: string): ShelfError {
  return new ShelfError("range_not_satisfiable", 416, "The requested range lies outside the file.", { headers: { "Content-Range": contentRange } });
}
