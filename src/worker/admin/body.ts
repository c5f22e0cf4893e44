// Request bodies of the admin API, read defensively: the byte caps (413 too_large, counted as the
// body streams in, never buffered whole first), JSON requests read as strict JSON whatever their
// Content-Type says (400 malformed_json or invalid_text, 413 too_deep, 422 for the wrong shape),
// and a body whose client disconnects mid-way answered 400 incomplete_body, never a 500.
import type { MiddlewareHandler } from "hono";
import { readJsonText } from "../../core/publish/json-text.ts";
import { declaredLength, readBodyCapped as readCapped } from "../http/capped-body.ts";
import { adminError } from "./errors.ts";
import type { ShelfError } from "../errors.ts";

/** The 400 for a body whose client disconnected mid-way (named by `what`). */
export function incompleteBody(what: string): ShelfError {
  return adminError("incomplete_body", `the ${what} ended before all of it arrived (the connection dropped); nothing was stored`);
}

/**
 * Middleware: reads the body, refusing it with 413 too_large past `max` bytes (a declared
 * Content-Length over the cap unread; a chunked body as soon as it passes the cap) and with 400
 * incomplete_body when the client disconnects mid-body, then hands it on buffered. hono's
 * body-limit does the counting but lets a dropped connection's read error escape as a 500.
 * @example admin.put("/records/:sha", cappedBody(MAX_DOCUMENT_BYTES, "record"), handler)
 */
export function cappedBody(max: number, what: string): MiddlewareHandler {
  return async function cappedBody(c, next) {
    const declared = declaredLength(c.req.raw.headers);
    if (declared !== null && declared > max) throw adminError("too_large", `The ${what} is larger than ${max} bytes.`);
    const bytes = await readBodyCapped(c.req.raw.body, max, what);
    const headers = new Headers(c.req.raw.headers);
    headers.delete("Content-Length");
    headers.delete("Transfer-Encoding");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: bytes as Uint8Array<ArrayBuffer> });
    await next();
  };
}

/**
 * Middleware for JSON requests, after {@link cappedBody}: reads the body as strict JSON
 * whatever its Content-Type says (curl and older clients send text/plain), refuses anything but
 * a JSON object with 422, and hands it on as `application/json` so the route's schema validates it.
 */
export function jsonObjectBody(): MiddlewareHandler {
  return async function jsonObjectBody(c, next) {
    const read = readJsonText(new Uint8Array(await c.req.arrayBuffer()), "request body");
    if (!read.ok) throw adminError(read.code, `${read.message}; nothing was stored`);
    const body = read.value;
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw adminError("invalid_request", "The request body must be a JSON object.");
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: read.text });
    await next();
  };
}

/**
 * Reads a request body under `max` bytes (http/capped-body.ts): 413 too_large as soon as it
 * passes the cap, 400 incomplete_body when the client goes away.
 * @example const bytes = await readBodyCapped(request.body, MAX_BLOB_BYTES, "blob")
 */
export function readBodyCapped(body: ReadableStream<Uint8Array> | null, max: number, what: string): Promise<Uint8Array> {
  return readCapped(body, max, {
    tooLarge: () => adminError("too_large", `the ${what} is larger than ${max} bytes; nothing was stored`),
    incomplete: () => incompleteBody(what),
  });
}

/**
 * A request body of declared `length` as a stream R2 can store (a known length), which
 * remembers whether reading the client's body failed, so a dropped connection is told apart from
 * R2 failing to take the bytes.
 * @example const { stream, clientFailed } = trackedBody(request.body, length)
 */
export function trackedBody(body: ReadableStream<Uint8Array>, length: number): { stream: ReadableStream<Uint8Array>; clientFailed: () => boolean } {
  let failed = false;
  const fixed = new FixedLengthStream(length);
  const writer = fixed.writable.getWriter();
  const reader = body.getReader();
  reader.closed.catch(() => {}); // a broken body rejects this too, and nothing else awaits it
  // Pumped by hand rather than piped: a failed client read closes the stream short of its
  // length (R2 then refuses the put), so the client's error never travels on as a rejection.
  const pump = async () => {
    let received = 0;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        failed = true;
        break;
      }
      if (chunk.done) break;
      received += chunk.value.byteLength;
      // A body that runs past its Content-Length is the client's failure too.
      if (received > length) {
        failed = true;
        await reader.cancel().catch(() => {});
        break;
      }
      await writer.write(chunk.value);
    }
    // …and so is one that ends short of it.
    if (received < length) failed = true;
    if (failed) await writer.abort(new Error("the client's body broke off"));
    else await writer.close();
  };
  // R2 failing to read is R2's failure, reported by its put; the pump just stops.
  pump().catch(() => {});
  return { stream: fixed.readable, clientFailed: () => failed };
}
