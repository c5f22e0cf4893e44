// Storage failures the read routes must answer with 503 (never a partial 200), kept apart from
// "not found", which is a normal answer.

/**
 * R2 failed, or an object the published generation references is missing or malformed (a
 * storage inconsistency). The message is for logs only: routes answer a generic 503.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StorageUnavailableError";
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
