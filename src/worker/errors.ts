// The Worker's one error carrier and its one classifier. Shelf, storage, file-response, read
// access and admin code throw a ShelfError (code, status, headers, detail); every renderer (the
// plain JSON answer, /v1's problem documents, the pages, /mcp's tool and JSON-RPC errors) asks
// classify() what a thrown value is and words it its own way, by code, never by status or text.
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Retry-After sent with a storage failure (agentskills-http fails fast on anything above 30 s). */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** What a ShelfError carries besides its code, status and sentence. */
export interface ShelfErrorOptions {
  /** Response headers the answer must keep (WWW-Authenticate, Retry-After, Content-Range). */
  headers?: Readonly<Record<string, string>>;
  /** Extra members of the answer's body (`advisory`, `param`, `missing`, `current`, …). */
  members?: Readonly<Record<string, unknown>>;
  /** What to do next, for clients that read the plain answer ("Fetch the index to see what is."). */
  hint?: string;
  cause?: unknown;
}

/**
 * A refusal or failure with everything an answer needs: a machine code (the admin and /v1
 * contracts' codes, and the read routes' own), its HTTP status, the headers the answer keeps,
 * and `detail`, the sentence a client is shown (Error.message may say more, for the log).
 * @example throw new ShelfError("invalid_parameter", 400, "include: at most 100 names")
 */
export class ShelfError extends Error {
  readonly code: string;
  readonly status: ContentfulStatusCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly detail: string;
  readonly members: Readonly<Record<string, unknown>>;
  readonly hint: string | undefined;

  constructor(code: string, status: ContentfulStatusCode, detail: string, options: ShelfErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ShelfError";
    this.code = code;
    this.status = status;
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.members = options.members ?? {};
    this.hint = options.hint;
  }
}

/**
 * What a thrown value is, as a ShelfError: itself when it is one; anything else is a bug, logged
 * here once and answered as a 500 that never echoes it. Storage failures are logged here too.
 * @example classify(new TypeError("x")).code // => "internal"
 */
export function classify(error: unknown): ShelfError {
  if (error instanceof ShelfError) {
    if (error.code === "storage_unavailable") console.error("storage unavailable", error);
    return error;
  }
  console.error("unhandled error", error);
  return new ShelfError("internal", 500, "Internal error; it has been logged.", { cause: error });
}
