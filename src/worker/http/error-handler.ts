// The app's one error path: every typed domain error is mapped to its HTTP answer here, once
// (the shelf service's and storage's), and an HTTPException (the admin API's AdminError is one)
// returns the Response it carries. Headers that depend on the route group (CORS) are added by
// that group's middleware around the answer, never by looking at the URL here.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { NotOnShelfError, SkillBlockedError } from "../shelf/errors.ts";
import { StorageUnavailableError } from "../storage/errors.ts";
import { httpError, internalError, notFound, storageUnavailable } from "./errors.ts";

/**
 * The HTTPException an error is answered with: its own when it is one (the admin API's errors
 * included), 404 and 410 for the shelf's answers, 503 with Retry-After for storage failures, 500
 * for anything else (logged, never echoed).
 * @example toHttpException(NotOnShelfError.skill("x")).status // => 404
 */
export function toHttpException(err: unknown): HTTPException {
  if (err instanceof HTTPException) return err;
  if (err instanceof NotOnShelfError) return notFound(err.subject);
  if (err instanceof SkillBlockedError) return httpError(410, "blocked", err.message, {}, { advisory: err.advisory });
  if (err instanceof StorageUnavailableError) {
    console.error("storage unavailable", err);
    return storageUnavailable();
  }
  console.error("unhandled error", err);
  return internalError();
}

/**
 * The app's onError: the Response of {@link toHttpException}, headers intact.
 * @example app.onError(handleError)
 */
export function handleError(err: Error, _c: Context): Response {
  return toHttpException(err).getResponse();
}
