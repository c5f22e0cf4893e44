// The app (src/worker/index.ts): /healthz, and each route group's own header policy around its
// answers (the reads' CORS on a public shelf, none for the admin API), decided by the group a path
// belongs to, not by the URL in the error handler.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/worker/index.ts";

describe("/healthz", () => {
  it("answers ok without storage", async () => {
    const res = await exports.default.fetch("https://shelf.test/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
  });
});

describe("route groups", () => {
  const publicEnv = { SHELF_VISIBILITY: "public" };

  it.each(["/", "/nope", "/g/not-a-generation/nope", "/skills/", "/v1/other"])("the read group answers %s with its JSON 404 and CORS", async (path) => {
    const res = await app.request(`https://shelf.test${path}`, {}, publicEnv);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
  });

  it.each(["/admin", "/admin/other", "/admin/v2/pointer"])("the admin group answers %s with the JSON 404 and no CORS", async (path) => {
    const res = await app.request(`https://shelf.test${path}`, {}, publicEnv);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("answers a bug with a JSON 500 that does not echo it", async () => {
    // A var of the wrong type makes the discovery check throw a TypeError: a bug, not a storage failure.
    const res = await app.request("https://shelf.test/.well-known/skills/index.json", {}, { ...publicEnv, SHELF_DISCOVERY: 5 });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; message: string };
    expect(body).toEqual({ error: "internal", message: "Internal error; it has been logged." });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });
});
