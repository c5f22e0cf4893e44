// Turns one manifest file entry into an HTTP response: 304 from the digest alone (no storage
// read), 206/416 for ranges, HEAD without a body read, and a streamed GET. Storage is reached
// only through the `open` callback, so this module is testable without R2. Caching, CORS and
// security headers are the route group's policy (middleware), not the representation's.
import { etagFor, ifNoneMatchMatches } from "./conditional.ts";
import { reprDigest } from "./digest.ts";
import { rangeNotSatisfiable, storageUnavailable } from "./errors.ts";
import { decideRange } from "./range.ts";
import { servedTypeFor } from "./content-type.ts";

/** What the manifest says about one served file. */
export interface ServedFile {
  /** The path whose extension decides the content type (the skill-relative path or archive name). */
  path: string;
  sha256: string;
  size: number;
  mediaType?: string;
}

/** A byte range to read, or undefined for the whole object. */
export type ByteRange = { offset: number; length: number } | undefined;

/** Opens the stored bytes; resolves null when the object is missing (a storage inconsistency). */
export type OpenBlob = (range: ByteRange) => Promise<ReadableStream<Uint8Array> | null>;

/** How a file is presented. */
export interface FileResponseOptions {
  /** Override the served type (index.json bodies, archives) instead of the path policy. */
  contentType?: string;
}

/** The headers every file response shares, whatever its status. */
function baseHeaders(file: ServedFile, opts: FileResponseOptions): Headers {
  const headers = new Headers();
  headers.set("ETag", etagFor(file.sha256));
  headers.set("Repr-Digest", reprDigest(file.sha256));
  headers.set("Accept-Ranges", "bytes");
  const served = opts.contentType ? { contentType: opts.contentType } : servedTypeFor(file.path, file.mediaType);
  headers.set("Content-Type", served.contentType);
  if ("disposition" in served && served.disposition) headers.set("Content-Disposition", served.disposition);
  return headers;
}

/**
 * Answers a GET or HEAD for one stored file. Throws an HTTPException for 416 and for storage
 * failures (503, never a partial 200).
 * @example return serveFile(c.req.raw, file, (range) => file.open(range))
 */
export async function serveFile(
  request: Request,
  file: ServedFile,
  open: OpenBlob,
  opts: FileResponseOptions = {},
): Promise<Response> {
  const headers = baseHeaders(file, opts);
  if (ifNoneMatchMatches(request.headers.get("If-None-Match"), headers.get("ETag")!)) {
    headers.delete("Content-Type");
    headers.delete("Content-Disposition");
    return new Response(null, { status: 304, headers });
  }

  // If-Range with anything but our current strong ETag means "send it all".
  const ifRange = request.headers.get("If-Range");
  const rangeHeader = ifRange && ifRange.trim() !== headers.get("ETag") ? null : request.headers.get("Range");
  const decision = decideRange(rangeHeader, file.size);
  if (decision.kind === "unsatisfiable") throw rangeNotSatisfiable(decision.contentRange);

  const range: ByteRange = decision.kind === "partial" ? { offset: decision.offset, length: decision.length } : undefined;
  const status = decision.kind === "partial" ? 206 : 200;
  const length = decision.kind === "partial" ? decision.length : file.size;
  if (decision.kind === "partial") headers.set("Content-Range", decision.contentRange);
  headers.set("Content-Length", String(length));

  if (request.method === "HEAD") return new Response(null, { status, headers });

  // The headers are decided; whatever keeps the bytes from opening now is a storage failure.
  let body: ReadableStream<Uint8Array> | null;
  try {
    body = await open(range);
  } catch (err) {
    console.error("blob read failed", file.sha256, err);
    throw storageUnavailable();
  }
  if (body === null) {
    console.error("blob missing from storage", file.sha256);
    throw storageUnavailable();
  }
  return new Response(body, { status, headers });
}

/**
 * Answers a GET or HEAD for a small generated JSON body (an index) whose ETag is given.
 * 304 when If-None-Match matches; never reads storage itself.
 * @example return serveJson(c.req.raw, JSON.stringify(body), etagFor("static-…"))
 */
export function serveJson(request: Request, body: string, etag: string): Response {
  const headers = new Headers();
  headers.set("ETag", etag);
  if (ifNoneMatchMatches(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  headers.set("Content-Type", "application/json");
  const bytes = new TextEncoder().encode(body);
  headers.set("Content-Length", String(bytes.byteLength));
  return new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers });
}
