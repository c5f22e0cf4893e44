// Unit tests of src/worker/http/headers.ts: the cache values, the preflight, and the security
// headers middleware setting exactly what the error carrier's applySecurityHeaders sets.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { applySecurityHeaders, cacheControlFor, preflightResponse, strictSecurityHeaders } from "../../../src/worker/http/headers.ts";

describe("strictSecurityHeaders", () => {
  it("sets the same headers as applySecurityHeaders, and nothing else", async () => {
    const app = new Hono();
    app.get("/x", strictSecurityHeaders(), () => new Response("x"));
    const res = await app.request("/x");
    const expected = applySecurityHeaders(new Headers({ "Content-Type": "text/plain;charset=UTF-8" }));
    expect([...res.headers.entries()].sort()).toEqual([...expected.entries()].sort());
  });
});

describe("cacheControlFor", () => {
  it.each([
    ["immutable", "public", "public, max-age=31536000, immutable, no-transform"],
    ["path", "public", "public, max-age=60, must-revalidate, no-transform"],
    ["immutable", "private", "private, max-age=31536000, immutable, no-transform"],
    ["path", "private", "private, max-age=60, must-revalidate, no-transform"],
  ] as const)("%s on a %s shelf → %s", (kind, visibility, value) => {
    expect(cacheControlFor(kind, visibility)).toBe(value);
  });
});

describe("preflightResponse", () => {
  it("allows the read methods and headers on a public shelf, and only names the methods on a private one", () => {
    const open = preflightResponse("public");
    expect(open.status).toBe(204);
    expect(open.headers.get("Access-Control-Allow-Methods")).toBe("GET, HEAD, OPTIONS");
    const closed = preflightResponse("private");
    expect(closed.headers.get("Access-Control-Allow-Methods")).toBeNull();
    expect(closed.headers.get("Allow")).toBe("GET, HEAD, OPTIONS");
  });
});
