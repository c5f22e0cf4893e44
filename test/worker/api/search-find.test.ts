// GET /api/search, the `skills` CLI's find contract (mcp-find-signing.md §6): the same ranking as
// /v1/search, as {"skills":[{id, name, source}]} with source the shelf's base URL under the
// caller's prefix (so `skills add <source> --skill <name>` installs it), no `installs`, refusals
// as problems (the CLI shows any non-2xx as no results), described in the OpenAPI document, and a
// repeated find reads no storage.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import app from "../../../src/worker/index.ts";
import { resetSearchIndexCache } from "../../../src/worker/shelf/search.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import type { PublishedFixture } from "../fixture-shelf.ts";
import { expectDocumented, openApiDocument } from "./openapi-check.ts";
import { expectedHits, publishSearchShelf } from "./search-fixture.ts";

const BASE = "https://shelf.test";
const TOKEN = "sk_test_read_0123456789abcdef01234567";
let published: PublishedFixture;

async function get(url: string, bindings: object = env, init: RequestInit = {}): Promise<Response> {
  const res = await app.request(url.startsWith("http") ? url : `${BASE}${url}`, init, bindings);
  await expectDocumented("get", url.replace(/^https:\/\/[^/]+/, ""), res);
  return res;
}

/** What skills 1.7.4's searchSkillsAPI makes of an answer (dist/cli.mjs): non-2xx or a bad shape is "no results". */
async function asTheCliReadsIt(res: Response): Promise<Array<{ name: string; slug: string; source: string }>> {
  try {
    if (!res.ok) return [];
    const body = (await res.json()) as { skills: Array<{ id: string; name: string; source?: string; installs?: number }> };
    return body.skills.map((s) => ({ name: s.name, slug: s.id, source: s.source || "" }));
  } catch {
    return [];
  }
}

async function privateBindings() {
  const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(TOKEN))), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  return { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: digest };
}

beforeAll(async () => {
  published = await publishSearchShelf();
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  resetSearchIndexCache();
});

describe("GET /api/search", () => {
  it("answers what the CLI sends (q, limit=20) with the /v1/search ranking as {id, name, source}, and nothing else", async () => {
    const q = "incident review";
    const res = await get(`/api/search?${new URLSearchParams({ q, limit: "20" })}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = (await res.clone().json()) as { skills: Array<Record<string, unknown>> };
    const expected = expectedHits(published, q, 20).map((h) => h.name);
    expect(expected.length).toBeGreaterThan(1);
    expect(body).toEqual({ skills: expected.map((name) => ({ id: name, name, source: BASE })) });
    expect(body.skills.some((s) => "installs" in s)).toBe(false);
    expect((await asTheCliReadsIt(res)).map((s) => s.name)).toEqual(expected);
    // The same order as /v1/search.
    const v1 = (await (await get(`/v1/search?q=${encodeURIComponent(q)}&limit=20`)).json()) as { results: Array<{ name: string }> };
    expect(v1.results.map((r) => r.name)).toEqual(expected);
  });

  it("leaves a blocked skill out", async () => {
    const found = await asTheCliReadsIt(await get("/api/search?q=formats+dates+in+reports&limit=20"));
    expect(found.map((s) => s.name)).not.toContain("bad-skill");
  });

  it("accepts and ignores --owner's owner parameter", async () => {
    const plain = await (await get("/api/search?q=incident&limit=20")).json();
    expect(await (await get("/api/search?q=incident&limit=20&owner=someone")).json()).toEqual(plain);
  });

  it("names the origin the caller used, and the pinned generation when the request pinned one", async () => {
    const other = (await (await get("https://skills.example.test/api/search?q=incident")).json()) as { skills: Array<{ source: string }> };
    expect(other.skills[0]?.source).toBe("https://skills.example.test");
    const pinned = (await (await get(`/g/${published.generation}/api/search?q=incident`)).json()) as { skills: Array<{ source: string }> };
    expect(pinned.skills[0]?.source).toBe(`${BASE}/g/${published.generation}`);
  });

  it("on a private shelf answers through a capability URL with the capability URL as source (the CLI sends no credentials)", async () => {
    const bindings = await privateBindings();
    expect((await get("/api/search?q=incident", bindings)).status).toBe(401);
    const found = await asTheCliReadsIt(await get(`/c/${TOKEN}/api/search?q=incident&limit=20`, bindings));
    expect(found.length).toBeGreaterThan(0);
    for (const s of found) expect(s.source).toBe(`${BASE}/c/${TOKEN}`);
  });

  it.each([
    ["no q", "/api/search?limit=20", "q"],
    ["a blank q", "/api/search?q=+&limit=20", "q"],
    ["a q over the cap", `/api/search?q=${"a".repeat(257)}`, "q"],
    ["limit 0", "/api/search?q=incident&limit=0", "limit"],
  ])("refuses %s with a problem (the CLI shows no results)", async (_label, path, param) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await res.clone().json()).toMatchObject({ code: "invalid_parameter", param });
    expect(await asTheCliReadsIt(res)).toEqual([]);
  });

  it("answers an empty list for a query of common words only", async () => {
    expect(await (await get("/api/search?q=what+is+this&limit=20")).json()).toEqual({ skills: [] });
  });

  it("is in the OpenAPI document at /api/search, outside /v1", async () => {
    const doc = await openApiDocument();
    expect(Object.keys(doc.paths)).toContain("/api/search");
    expect(Object.keys(doc.paths)).not.toContain("/v1/api/search");
    expect(doc.paths["/api/search"]!.get!.responses["200"]).toBeDefined();
  });

  it("reads no storage when repeated, and answers 304 to its ETag", async () => {
    const calls: string[] = [];
    const wrap = <T extends object>(target: T, label: string): T =>
      new Proxy(target, {
        get(obj, prop) {
          const value = Reflect.get(obj, prop);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            calls.push(`${label}.${String(prop)}`);
            return (value as (...a: unknown[]) => unknown).apply(obj, args);
          };
        },
      });
    const bindings = { ...env, SHELF_BUCKET: wrap(env.SHELF_BUCKET, "R2"), SHELF_KV: wrap(env.SHELF_KV, "KV") };
    const first = await get("/api/search?q=incident&limit=20", bindings);
    expect(calls.length).toBeGreaterThan(0);
    calls.length = 0;
    await get("/api/search?q=incident&limit=20", bindings);
    expect(calls).toEqual([]);
    const etag = first.headers.get("ETag")!;
    expect((await get("/api/search?q=incident&limit=20", bindings, { headers: { "If-None-Match": etag } })).status).toBe(304);
  });
});
