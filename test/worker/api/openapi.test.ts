// GET /v1/openapi.json: an OpenAPI 3.1 document generated from the contracts, covering the read
// API and the admin API, served with an ETag like every generated body.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_API, ADMIN_API_BASE } from "../../../src/core/publish/contract.ts";
import app from "../../../src/worker/index.ts";

function get(path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.request(`https://shelf.test${path}`, init, env));
}

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every admin route under /admin/v1", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    for (const route of Object.values(ADMIN_API)) {
      const path = `${ADMIN_API_BASE}${route.path}`;
      expect(doc.paths[path], path).toBeDefined();
      expect(doc.paths[path]![route.method], `${route.method} ${path}`).toBeDefined();
    }
  });

  it("answers 304 to its own ETag", async () => {
    const first = await get("/v1/openapi.json");
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"openapi-[0-9a-f]{32}"$/);
    const again = await get("/v1/openapi.json", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("expectDocumented", () => {
  it("refuses an answer from a path the document does not list", async () => {
    const { expectDocumented } = await import("./openapi-check.ts");
    const res = await get("/v1/openapi.json");
    await expect(expectDocumented("get", "/v1/no-such-route", res)).rejects.toThrow(/not in the OpenAPI document/);
  });
});
