// Storage failures the read routes must answer with 503 (never a partial 200), kept apart from
// "not found", which is a normal answer. Both are ShelfErrors (src/worker/errors.ts).
import { ShelfError, STORAGE_RETRY_AFTER_SECONDS } from "../errors.ts";

/**
 * R2 failed, or an object the published generation references is missing, malformed or of other
 * bytes (a storage inconsistency): 503 with a short Retry-After. The message is for logs only:
 * clients are told that storage did not answer.
 * @example throw new StorageUnavailableError(`blob ${sha256} is missing from storage`)
 */
export class StorageUnavailableError extends ShelfError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("storage_unavailable", 503, "The shelf's storage did not answer; retry shortly.", {
      headers: { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) },
      cause: options?.cause,
    });
    this.name = "StorageUnavailableError";
    this.message = message;
  }
}

/**
 * A document that should be in R2 is not. Under a published generation that is an inconsistency
 * (503 like any storage failure); for a pinned generation's own manifest it means gc collected
 * it, which the caller answers as "no such generation".
 */
export class MissingObjectError extends StorageUnavailableError {
  /** The R2 key that was not found. */
  readonly key: string;
  constructor(key: string) {
    super(`${key} is referenced but missing`);
    this.name = "MissingObjectError";
    this.key = key;
  }
}
