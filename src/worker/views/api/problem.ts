// /v1's refusals: every error on the read API is an RFC 9457 problem document with the contract's
// `code` (src/core/api/contract.ts). What was thrown is classified once (src/worker/errors.ts)
// and rendered here, by the API's own onError.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { API_ERRORS, PROBLEM_MEDIA_TYPE, type ApiErrorCode, type Problem } from "../../../core/api/contract.ts";
import { classify, ShelfError } from "../../errors.ts";
import { plainErrorResponse } from "../../http/errors.ts";
import { applySecurityHeaders, NO_STORE } from "../../http/headers.ts";
import { SkillBlockedError } from "../../shelf/errors.ts";

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
 * A /v1 refusal: a ShelfError with the contract code's status, rendered as a problem document.
 * @example throw problem("invalid_parameter", "max_chars must be between 0 and 1000000", { param: "max_chars" })
 */
export function problem(code: ApiErrorCode, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}): ShelfError {
  return new ShelfError(code, API_ERRORS[code] as ContentfulStatusCode, detail, { members: extras, headers });
}

/** A parameter that is malformed or out of bounds. */
export function invalidParameter(param: string, detail: string): ShelfError {
  return problem("invalid_parameter", `${param}: ${detail}`, { param });
}

/**
 * The not_found problem of an `include` naming skills not served here (absent, or blocked by an
 * advisory in force, which at the edge is the same), listing them; /v1/catalog and /v1/skills.
 */
export function refuseUnknownIncludes(served: readonly { name: string }[], include: readonly string[] | null): void {
  if (include === null) return;
  const known = new Set(served.map((s) => s.name));
  const unknown = include.filter((name) => !known.has(name));
  if (unknown.length === 0) return;
  throw problem("not_found", `include names skills this shelf does not serve (absent, or blocked by an advisory in force): ${unknown.join(", ")}`, {
    param: "include",
    skills: unknown,
  });
}

/**
 * The problem document for a ShelfError, with no-store, the security headers and its own headers.
 * A code the /v1 contract does not name (a file answer's 416 range_not_satisfiable) keeps the
 * plain answer, as its headers say how to ask again. A blocked skill's problem also names the skill.
 */
export function problemResponse(error: ShelfError): Response {
  if (!Object.hasOwn(API_ERRORS, error.code)) return plainErrorResponse(error);
  const members = error instanceof SkillBlockedError ? { skill: error.skill, ...error.members } : error.members;
  const body: Problem = {
    type: "about:blank",
    title: TITLES[error.status] ?? "Error",
    status: error.status,
    detail: error.detail,
    code: error.code as ApiErrorCode,
    ...members,
  };
  const headers = new Headers({ "Content-Type": PROBLEM_MEDIA_TYPE, "Cache-Control": NO_STORE, ...error.headers });
  applySecurityHeaders(headers);
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

/**
 * The API's onError: what was thrown, classified once, as a problem document.
 * @example v1.onError(handleApiError)
 */
export function handleApiError(err: Error, _c: Context): Response {
  return problemResponse(classify(err));
}
