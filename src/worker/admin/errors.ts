// The admin API's one error carrier: a refusal with a contract error code (its status comes from
// the contract), rendered as `{error, message, ...details}` by the app's one onError, like
// every HTTPException. Thrown from any depth; nothing catches it on the way out.
import { HTTPException } from "hono/http-exception";
import { ADMIN_ERRORS, type AdminErrorCode, type AdminErrorStatus } from "../../core/publish/contract.ts";
import { httpError, STORAGE_RETRY_AFTER_SECONDS } from "../http/errors.ts";

/**
 * A refusal the admin API answers with its code's status and a one-line message; nothing was
 * changed unless the message says otherwise.
 * @example throw new AdminError("pointer_moved", "another publish won; re-run", { current })
 */
export class AdminError extends HTTPException {
  override readonly status: AdminErrorStatus;
  readonly code: AdminErrorCode;
  /** Extra body fields (`missing`, `current`). */
  readonly details: Record<string, unknown>;
  /** Extra response headers (`Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(code: AdminErrorCode, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(ADMIN_ERRORS[code], { message });
    this.name = "AdminError";
    this.status = ADMIN_ERRORS[code];
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  /** The error answer: `{error, message, ...details}` JSON with no-store and the security headers. */
  override getResponse(): Response {
    return httpError(this.status, this.code, this.message, this.headers, this.details).getResponse();
  }

  /**
   * 503 with Retry-After for any R2 failure: the client retries, and nothing was half-written.
   * @example throw AdminError.storageUnavailable("R2 did not store the pointer; nothing changed. Retry shortly")
   */
  static storageUnavailable(message: string): AdminError {
    return new AdminError("storage_unavailable", message, {}, { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) });
  }
}
