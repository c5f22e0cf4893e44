// JSON request bodies of the read API (POST /v1/select), read defensively: counted as they stream
// in and refused past their cap (413 too_large, a declared Content-Length over it unread), read
// as strict JSON whatever the Content-Type says (a browser can send text/plain without a
// preflight), 400 malformed_json otherwise, then handed to the route's schema as
// application/json so a shape error is the contract's 422 naming the field.
import type { MiddlewareHandler } from "hono";
import { readJsonText } from "../../../core/publish/json-text.ts";
import { declaredLength, readBodyCapped } from "../../http/capped-body.ts";
import { problem } from "./problem.ts";

// readJsonText words its refusals as clauses; a problem's detail is a sentence.
function sentence(text: string): string {
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
    const bytes = await readBodyCapped(c.req.raw.body, max, {
      tooLarge: () => tooLarge(max),
      // What arrived is not the JSON the client meant.
      incomplete: () => problem("malformed_json", "The request body ended before all of it arrived (the connection dropped).", { param: "body" }),
    });
    const read = readJsonText(bytes, "request body");
    if (!read.ok) throw problem("malformed_json", sentence(read.message), { param: "body" });
    const headers = new Headers(c.req.raw.headers);
    headers.set("Content-Type", "application/json");
    headers.delete("Content-Length");
    headers.delete("Transfer-Encoding");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: read.text });
    await next();
  };
}
