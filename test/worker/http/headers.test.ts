// Unit tests of src/worker/http/headers.ts: the cache values, the preflight, and the header-policy
// factories (security headers per group, CORS) and their middleware.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { applySecurityHeaders, cacheControlFor, corsHeaders, preflightResponse, securityHeaders, withHeaders } from "../../../src/worker/http/headers.ts";

describe("securityHeaders", () => {
  it("builds the strict policy by default, a group's own CSP when given, and nothing else", () => {
    const strict = new Headers();
    applySecurityHeaders(strict);
    expect([...strict.entries()].sort()).toEqual([
      ["content-security-policy", "default-src 'none'; sandbox"],
      ["referrer-policy", "no-referrer"],
      ["x-content-type-options", "nosniff"],
      ["x-frame-options", "DENY"],
    ]);
    const page = new Headers();
    securityHeaders({ contentSecurityPolicy: "default-src 'none'; img-src 'self'" })(page);
    expect(page.get("Content-Security-Policy")).toBe("default-src 'none'; img-src 'self'");
    expect(page.get("X-Frame-Options")).toBe("DENY");
  });

  it("applies as middleware to every answer of its route, and nothing else", async () => {
    const app = new Hono();
    app.get("/x", withHeaders(applySecurityHeaders), () => new Response("x"));
    const res = await app.request("/x");
    const expected = new Headers({ "Content-Type": "text/plain;charset=UTF-8" });
    applySecurityHeaders(expected);
    expect([...res.headers.entries()].sort()).toEqual([...expected.entries()].sort());
  });
});

describe("corsHeaders", () => {
  it("lets any origin read and see the validators; the exposed list is an option", () => {
    const headers = new Headers();
    corsHeaders()(headers);
    expect(headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(headers.get("Access-Control-Expose-Headers")).toBe("ETag, Content-Length, Content-Range, Repr-Digest, Retry-After");
    expect(headers.get("Cross-Origin-Resource-Policy")).toBe("cross-origin");
    const narrow = new Headers();
    corsHeaders({ exposeHeaders: ["ETag"] })(narrow);
    expect(narrow.get("Access-Control-Expose-Headers")).toBe("ETag");
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
