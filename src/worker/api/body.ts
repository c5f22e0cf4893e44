// JSON request bodies of the read API (POST /v1/select), read defensively: counted as they stream
// in and refused past their cap (413 too_large, a declared Content-Length over it unread), read
// as strict JSON whatever the Content-Type says (a browser can send text/plain without a
// preflight), 400 malformed_json otherwise, then handed to the route's schema as
// application/json so a shape error is the contract's 422 naming the field.
import type { MiddlewareHandler } from "hono";
import { readJsonText } from "../../core/publish/json-text.ts";
import { declaredLength } from "../admin/body.ts";
import { problem } from "./problem.ts";

/**
 * Reads a body, counting bytes as they stream in; past `max` it stops reading and throws the
 * 413 problem, so a chunked body is never buffered whole before the check. A client that goes
 * away mid-body gets the 400 malformed_json problem (what arrived is not the JSON it meant).
 * @example const bytes = await readApiBodyCapped(c.req.raw.body, API_LIMITS.maxSelectBodyBytes)
 */
export async function readApiBodyCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw problem("malformed_json", "The request body ended before all of it arrived (the connection dropped).", { param: "body" });
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(chunk.value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

// readJsonText words its refusals for the admin API ("…; nothing was stored"); a read stores nothing anyway.
function sentence(message: string): string {
  const text = message.replace(/; nothing was stored$/, "");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function tooLarge(max: number) {
  return problem("too_large", `The request body is larger than ${max} bytes.`, { param: "body" });
}

/**
 * Middleware for a route whose body is a JSON object: capped at `max` bytes (413 too_large),
 * strict JSON (400 malformed_json: not UTF-8, not JSON, nested too deep, a lone surrogate), then
 * passed on as `application/json` for the route's schema (422 unprocessable for the wrong shape).
 * @example bindRoute(app, TRUST_API.select, handler, [jsonBody(API_LIMITS.maxSelectBodyBytes)])
 */
export function jsonBody(max: number): MiddlewareHandler {
  return async function apiJsonBody(c, next) {
    const declared = declaredLength(c.req.raw.headers);
    if (declared !== null && declared > max) throw tooLarge(max);
    const read = readJsonText(await readApiBodyCapped(c.req.raw.body, max), "request body");
    if (!read.ok) throw problem("malformed_json", sentence(read.message), { param: "body" });
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    headers.delete("Content-Length");
    headers.delete("Transfer-Encoding");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: read.text });
    await next();
  };
}
