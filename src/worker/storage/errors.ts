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
