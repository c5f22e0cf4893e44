// Turns one manifest file entry into an HTTP response: 304 from the digest alone (no storage
// read), 206/416 for ranges, HEAD from a head of the object, and a GET whose bytes are checked
// against the digest it advertises: up to 64 KiB read whole and hashed (by the file's
// `readChecked` when it has one: the shelf's keeps checked bytes), above that by the SHA-256 R2
// checked at upload (hashed here only when the object carries none). Storage is reached only
// through the file's `open`, `head` and `readChecked`, so this module is testable without R2.
// Caching, CORS and security headers are the route group's policy (middleware), not the
// representation's.
import { BodyMismatchError, CHECKED_BEFORE_ANSWER_BYTES, checkedBody } from "./checked-body.ts";
import { etagFor, ifNoneMatchMatches } from "./conditional.ts";
import { reprDigest } from "./digest.ts";
import { StorageUnavailableError } from "../storage/errors.ts";
import { rangeNotSatisfiable } from "./errors.ts";
import { decideRange } from "./range.ts";
import { servedTypeFor } from "./content-type.ts";
import type { HeaderList, HeaderPairs } from "./headers.ts";

/** What the manifest says about one served file. */
export interface ServedFile {
  /** The path whose extension decides the content type (the skill-relative path or archive name). */
  path: string;
  sha256: string;
  size: number;
  mediaType?: string;
}

/** A byte range to read. */
export type ByteRange = { offset: number; length: number };

/** An opened object: its bytes (or a range of them) and what storage says of the whole object. */
export interface OpenedBytes {
  body: ReadableStream<Uint8Array>;
  /** The whole stored object's size. */
  size: number;
  /** The SHA-256 storage checked the bytes against when they were stored (R2's checksum); null when it has none. */
  sha256: string | null;
}

/**
 * Where a served file's bytes are. Either call may throw (a storage failure) or resolve null
 * (the object is missing: a storage inconsistency); both answer 503.
 */
export interface StoredBytes {
  /** Streams the whole object, or a range of it, with what storage says of the whole object. */
  open(range?: ByteRange): Promise<OpenedBytes | null>;
  /** What storage says of the object without reading it: its size, and its SHA-256 when recorded. */
  head(): Promise<{ size: number; sha256: string | null } | null>;
  /**
   * The whole object's bytes, already checked against the file's digest and size (throws
   * StorageUnavailableError when they are not stored or not those bytes). Optional: when present,
   * objects up to CHECKED_BEFORE_ANSWER_BYTES are read with it instead of streamed and hashed here.
   */
  readChecked?(): Promise<Uint8Array>;
}

/** How a file is presented. */
export interface FileResponseOptions {
  /** Override the served type (index.json bodies, archives) instead of the path policy. */
  contentType?: string;
  /**
   * More headers for a successful answer (the route group's policies, read/answer-headers.ts),
   * none of them one this module sets. Every header goes into the one Response constructor call.
   */
  headers?: HeaderPairs;
}

// Headers are gathered as pairs and handed to the Response constructor once: each Headers call is a
// crossing into the runtime (http/headers.ts markDressed).

/** The validators every file response carries, whatever its status (a 304 carries only these), and the caller's headers. */
function validatorHeaders(file: ServedFile, etag: string, opts: FileResponseOptions): HeaderList {
  return [["ETag", etag], ["Repr-Digest", reprDigest(file.sha256)], ["Accept-Ranges", "bytes"], ...(opts.headers ?? [])];
}

/** The representation headers of a 200, 206 or HEAD: its type, and a disposition for attachments. */
function setTypeHeaders(headers: HeaderList, file: ServedFile, opts: FileResponseOptions): void {
  const served = opts.contentType ? { contentType: opts.contentType } : servedTypeFor(file.path, file.mediaType);
  headers.push(["Content-Type", served.contentType]);
  if ("disposition" in served && served.disposition) headers.push(["Content-Disposition", served.disposition]);
}

/**
 * Answers a GET or HEAD for one stored file. Throws a ShelfError for 416 and StorageUnavailableError for storage
 * failures (503, never a partial 200). A HEAD heads the object, so it answers 503 exactly when
 * the object is missing or of another size or digest. A GET never serves bytes other than those
 * storage certified under the advertised digest: objects up to CHECKED_BEFORE_ANSWER_BYTES are
 * read whole and hashed (or taken checked from `readChecked`); larger ones (and ranges of them)
 * are served when R2's stored SHA-256 checksum and size are the manifest's (R2 refuses an upload
 * whose bytes do not hash to the checksum it is given, so a substituted object cannot carry it),
 * and hashed as they stream
 * (see checked-body.ts) only when the object carries no checksum. Bytes altered inside R2 after
 * upload are the accepted risk (docs/reliability.md).
 * @example return serveFile(c.req.raw, file)
 */
export async function serveFile(request: Request, file: ServedFile & StoredBytes, opts: FileResponseOptions = {}): Promise<Response> {
  const etag = etagFor(file.sha256);
  const headers = validatorHeaders(file, etag, opts);
  if (ifNoneMatchMatches(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  setTypeHeaders(headers, file, opts);

  // If-Range with anything but our current strong ETag means "send it all".
  const ifRange = request.headers.get("If-Range");
  const rangeHeader = ifRange && ifRange.trim() !== etag ? null : request.headers.get("Range");
  const decision = decideRange(rangeHeader, file.size);
  if (decision.kind === "unsatisfiable") throw rangeNotSatisfiable(decision.contentRange);

  const window: ByteRange = decision.kind === "partial" ? { offset: decision.offset, length: decision.length } : { offset: 0, length: file.size };
  const status = decision.kind === "partial" ? 206 : 200;
  if (decision.kind === "partial") headers.push(["Content-Range", decision.contentRange]);
  headers.push(["Content-Length", String(window.length)]);

  // The headers are decided; whatever keeps the bytes from opening now is a storage failure.
  if (request.method === "HEAD") {
    await confirmStored(file);
    return new Response(null, { status, headers });
  }
  if (file.size <= CHECKED_BEFORE_ANSWER_BYTES && file.readChecked) return new Response(windowOf(await file.readChecked(), window), { status, headers });

  // Small objects are always hashed; a larger one is opened as asked and believed on R2's word.
  const small = file.size <= CHECKED_BEFORE_ANSWER_BYTES;
  let opened = await openStored(file, small ? undefined : window.length === file.size ? undefined : window);
  if (!small && opened.sha256 !== null) {
    if (opened.sha256 !== file.sha256 || opened.size !== file.size) {
      opened.body.cancel().catch(() => {});
      throw new StorageUnavailableError(`stored blob does not match the manifest (R2's checksum or size differs): ${file.sha256}`);
    }
    return new Response(opened.body, { status, headers });
  }
  // No checksum to go on: hash the whole object as it streams (a range means reading it all).
  if (!small && window.length !== file.size) {
    opened.body.cancel().catch(() => {});
    opened = await openStored(file, undefined);
  }
  let body: Uint8Array | ReadableStream<Uint8Array>;
  try {
    body = await checkedBody(opened.body, file, window);
  } catch (err) {
    throw new StorageUnavailableError(`${err instanceof BodyMismatchError ? "blob bytes do not match the manifest" : "blob read failed"}: ${file.sha256}`, {
      cause: err,
    });
  }
  return new Response(body instanceof Uint8Array ? body : fixedLength(body, window.length), { status, headers });
}

/** The part of a small object's checked bytes a window asks for (a view: the bytes may be shared). */
function windowOf(bytes: Uint8Array, window: ByteRange): Uint8Array {
  return window.offset === 0 && window.length === bytes.byteLength ? bytes : bytes.subarray(window.offset, window.offset + window.length);
}

/** Opens the bytes; a failure or a missing object is a 503. */
async function openStored(file: ServedFile & StoredBytes, range: ByteRange | undefined): Promise<OpenedBytes> {
  let opened: OpenedBytes | null;
  try {
    opened = await file.open(range);
  } catch (err) {
    throw new StorageUnavailableError(`blob read failed: ${file.sha256}`, { cause: err });
  }
  if (opened === null) throw new StorageUnavailableError(`blob missing from storage: ${file.sha256}`);
  return opened;
}

/** For a HEAD: the object is stored, with the manifest's size and (when R2 recorded one) digest; 503 otherwise. */
async function confirmStored(file: ServedFile & StoredBytes): Promise<void> {
  let head: { size: number; sha256: string | null } | null;
  try {
    head = await file.head();
  } catch (err) {
    throw new StorageUnavailableError(`blob head failed: ${file.sha256}`, { cause: err });
  }
  if (head === null || head.size !== file.size || (head.sha256 !== null && head.sha256 !== file.sha256)) {
    throw new StorageUnavailableError(`${head === null ? "blob missing from storage" : "stored blob does not match the manifest"}: ${file.sha256}`);
  }
}

/** A checked stream with its length declared, so the response keeps its Content-Length. */
function fixedLength(body: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  const fixed = new FixedLengthStream(length);
  // A failed check errors `body`, which aborts the pipe and so errors the response body.
  body.pipeTo(fixed.writable).catch(() => {});
  return fixed.readable;
}

/**
 * Answers a GET or HEAD for a small generated JSON body (an index) whose ETag is given, as text
 * or already encoded (bytes are copied into the response, never changed), with `more` headers
 * (the route group's policies) on a 200 or 304. 304 when If-None-Match matches; never reads storage itself.
 * @example return serveJson(c.req.raw, JSON.stringify(body), etagFor("static-…"))
 */
export function serveJson(request: Request, body: string | Uint8Array, etag: string, more: HeaderPairs = []): Response {
  const headers: HeaderList = [["ETag", etag], ...more];
  if (ifNoneMatchMatches(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  headers.push(["Content-Type", "application/json"], ["Content-Length", String(bytes.byteLength)]);
  return new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers });
}
