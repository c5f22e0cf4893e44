// The app's one error path for the plain answers: whatever was thrown is classified once
// (src/worker/errors.ts) and rendered as plain JSON (errors.ts). Headers that depend on the
// route group (CORS) are added by that group's middleware around the answer, never by looking at
// the URL here. /v1 renders the same classification as problem documents (api/problem.ts).
import type { Context } from "hono";
import { classify } from "../errors.ts";
import { plainErrorResponse } from "./errors.ts";

/**
 * The app's onError: the plain answer of what was thrown, headers intact.
 * @example app.onError(handleError)
 */
export function handleError(err: Error, _c: Context): Response {
  return plainErrorResponse(classify(err));
}
