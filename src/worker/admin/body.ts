// Request bodies of the admin API: the byte caps (hono's body-limit for JSON requests and
// documents, a streaming counter for blobs, which R2 takes as a stream), answered with 413
// too_large, and JSON requests read as JSON whatever their Content-Type says.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AdminError } from "./errors.ts";

/**
 * Middleware: refuses a body over `max` bytes with 413 too_large before the handler runs. A
 * declared Content-Length over the cap is refused unread; a body without one is counted as it
 * streams in and refused as soon as it passes the cap, never buffered whole first.
 * @example admin.put("/records/:sha", cappedBody(MAX_DOCUMENT_BYTES, "record"), handler)
 */
export function cappedBody(max: number, what: string): MiddlewareHandler {
  return bodyLimit({
    maxSize: max,
    onError(c) {
      const declared = c.req.raw.headers.has("Content-Length") && !c.req.raw.headers.has("Transfer-Encoding");
      throw new AdminError("too_large", declared ? `The ${what} is larger than ${max} bytes.` : `the ${what} is larger than ${max} bytes; nothing was stored`);
    },
  });
}

/**
 * Middleware for JSON requests: parses the body as JSON whatever its Content-Type says (curl
 * and older clients send text/plain), refuses anything but a JSON object with 400, and hands it
 * on as `application/json` so the route's schema validates it.
 */
export function jsonObjectBody(): MiddlewareHandler {
  return async function jsonObjectBody(c, next) {
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AdminError("bad_request", "The request body must be a JSON object.");
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    headers.delete("Content-Length");
    headers.delete("Transfer-Encoding");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: text });
    await next();
  };
}

/**
 * Reads a request body, counting bytes as they stream in, and stops with 413 as soon as it
 * passes `max`: a body without Content-Length (chunked) is never buffered whole before the check.
 * @example const bytes = await readBodyCapped(request.body, MAX_BLOB_BYTES, "blob")
 */
export async function readBodyCapped(body: ReadableStream<Uint8Array> | null, max: number, what: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new AdminError("too_large", `the ${what} is larger than ${max} bytes; nothing was stored`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
