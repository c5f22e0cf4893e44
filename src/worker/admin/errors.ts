// The admin API's refusals: ShelfErrors (src/worker/errors.ts) with a contract error code whose
// status comes from the contract, rendered as `{error, message, ...members}` by the app's one
// onError like every plain answer. Thrown from any depth; nothing catches them on the way out.
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ADMIN_ERRORS, type AdminErrorCode } from "../../core/publish/contract.ts";
import { ShelfError, STORAGE_RETRY_AFTER_SECONDS } from "../errors.ts";

/**
 * A refusal the admin API answers with its code's status and a one-line message; nothing was
 * changed unless the message says otherwise. `members` are extra body fields (`missing`, `current`).
 * @example throw adminError("pointer_moved", "another publish won; re-run", { current })
 */
export function adminError(code: AdminErrorCode, message: string, members: Record<string, unknown> = {}, headers: Record<string, string> = {}): ShelfError {
  return new ShelfError(code, ADMIN_ERRORS[code] as ContentfulStatusCode, message, { members, headers });
}

/**
 * 503 with Retry-After for any R2 failure: the client retries, and nothing was half-written.
 * @example throw adminStorageUnavailable("R2 did not store the pointer; nothing changed. Retry shortly")
 */
export function adminStorageUnavailable(message: string): ShelfError {
  return adminError("storage_unavailable", message, {}, { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) });
}
