// /v1's refusals: every error on the read API is an RFC 9457 problem document with the contract's
// `code` (src/core/api/contract.ts), built once here. The shelf service's typed errors and
// storage failures are mapped to problems by toProblem, the API's own onError.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { API_ERRORS, PROBLEM_MEDIA_TYPE, type ApiErrorCode, type Problem } from "../../core/api/contract.ts";
import { STORAGE_RETRY_AFTER_SECONDS } from "../http/errors.ts";
import { applySecurityHeaders, NO_STORE } from "../http/headers.ts";
import { NotOnShelfError, SkillBlockedError } from "../shelf/errors.ts";
import { StorageUnavailableError } from "../storage/errors.ts";

/** Reason phrases for the statuses the API answers (problem `title` under type about:blank). */
const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  410: "Gone",
  413: "Content Too Large",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Extra members of a problem: the parameter at fault, and anything the code documents (`keys`, `skills`, `advisory`). */
export interface ProblemExtras {
  param?: string;
  [member: string]: unknown;
}

/**
 * An HTTPException carrying a problem document with the code's status, no-store and the
 * security headers; the app's error path returns its response unchanged.
 * @example throw problem("invalid_parameter", "max_chars must be between 0 and 1000000", { param: "max_chars" })
 */
export function problem(code: ApiErrorCode, detail: string, extras: ProblemExtras = {}, extraHeaders: Record<string, string> = {}): HTTPException {
  const status = API_ERRORS[code] as ContentfulStatusCode;
  const body: Problem = { type: "about:blank", title: TITLES[status] ?? "Error", status, detail, code, ...extras };
  const headers = new Headers({ "Content-Type": PROBLEM_MEDIA_TYPE, "Cache-Control": NO_STORE, ...extraHeaders });
  applySecurityHeaders(headers);
  return new HTTPException(status, { res: new Response(JSON.stringify(body), { status, headers }), message: detail });
}

/** A parameter that is malformed or out of bounds. */
export function invalidParameter(param: string, detail: string): HTTPException {
  return problem("invalid_parameter", `${param}: ${detail}`, { param });
}

/**
 * The problem an error is answered with on /v1: its own when it already is one, the shelf's
 * 404 and 410, storage's 503 with Retry-After, and a logged 500 for anything else.
 */
export function toProblem(err: unknown): HTTPException {
  // Problems built here, and read access's 401 (it keeps its WWW-Authenticate and the body every read route answers).
  if (err instanceof HTTPException) return err;
  if (err instanceof NotOnShelfError) return problem("not_found", `${err.subject} is not on this shelf.`);
  if (err instanceof SkillBlockedError) return problem("blocked", err.message, { skill: err.skill, advisory: err.advisory });
  if (err instanceof StorageUnavailableError) {
    console.error("storage unavailable", err);
    return problem("storage_unavailable", "The shelf's storage did not answer; retry shortly.", {}, { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) });
  }
  console.error("unhandled error", err);
  return problem("internal", "Internal error; it has been logged.");
}

/**
 * The API's onError: the response of {@link toProblem}.
 * @example v1.onError(handleApiError)
 */
export function handleApiError(err: Error, _c: Context): Response {
  return toProblem(err).getResponse();
}
