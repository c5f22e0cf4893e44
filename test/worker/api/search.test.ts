// GET /v1/search on a fixture shelf: the ranking equals core's over the index the build stored,
// blocked skills are left out (and come back when the advisory goes), every answer matches the
// OpenAPI document, bad arguments are problems naming the parameter, the stored index is read
// once per isolate and a repeated search reads no storage, and a generation published before
// the index existed is searched through an index of its entries.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../src/core/api/contract.ts";
import { buildSearchIndex } from "../../../src/core/search/bm25.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import app from "../../../src/worker/index.ts";
import { resetSearchIndexCache, searchIndexOf } from "../../../src/worker/shelf/search.ts";
import { resetBodyCache, ShelfService } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { setFixtureAdvisories, type PublishedFixture } from "../fixture-shelf.ts";
import { expectDocumented } from "./openapi-check.ts";
import { expectedHits, publishSearchShelf, republishWithSearchIndex, SEARCH_ADVISORIES } from "./search-fixture.ts";

const BASE = "https://shelf.test";
let published: PublishedFixture;
let searchBlob: string;

async function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await app.request(`${BASE}${path}`, init, bindings);
  await expectDocumented("get", path, res);
  return res;
}

interface SearchAnswer {
  query: string;
  terms: string[];
  generation: string;
  results: Array<{ name: string; description: string; score: number; tags: string[]; trust: { level: string; requires_review: boolean }; url: string }>;
}

async function search(q: string, extra = "", bindings: object = env): Promise<SearchAnswer> {
  const res = await get(`/v1/search?q=${encodeURIComponent(q)}${extra}`, {}, bindings);
  expect(res.status, q).toBe(200);
  return (await res.json()) as SearchAnswer;
}

/** The bindings with every R2 and KV call recorded (method and key). */
function recordingEnv(calls: string[]) {
  const wrap = <T extends object>(target: T, label: string): T =>
    new Proxy(target, {
      get(obj, prop) {
        const value = Reflect.get(obj, prop);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(`${label}.${String(prop)} ${typeof args[0] === "string" ? args[0] : "…"}`);
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  return { ...env, SHELF_BUCKET: wrap(env.SHELF_BUCKET, "R2"), SHELF_KV: wrap(env.SHELF_KV, "KV") };
}

function resetIsolate(): void {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  resetSearchIndexCache();
}

beforeAll(async () => {
  published = await publishSearchShelf();
  const manifest = (await (await env.SHELF_BUCKET.get(r2Key("generation", published.generation)))!.json()) as { search?: { sha256: string } };
  searchBlob = manifest.search!.sha256;
});

beforeEach(async () => {
  await setFixtureAdvisories(env, SEARCH_ADVISORIES, 1);
  resetIsolate();
});

describe("GET /v1/search", () => {
  it.each([
    "review my pull request",
    "production is down, an alert fired",
    "write up the incident timeline",
    "rotate the keys",
    "Upgrading dependencies",
    "incident review",
  ])("ranks %j as core does over the stored index, with each skill's listing fields and URL", async (q) => {
    const answer = await search(q);
    const expected = expectedHits(published, q, API_LIMITS.defaultSearchResults);
    expect(expected.length).toBeGreaterThan(0);
    expect(answer.generation).toBe(published.generation);
    expect(answer.results.map((r) => r.name)).toEqual(expected.map((h) => h.name));
    answer.results.forEach((result, i) => {
      const entry = published.entries.get(result.name)!;
      expect(result.score).toBeCloseTo(expected[i]!.score, 4);
      expect(result).toEqual({
        name: entry.name,
        description: entry.description,
        score: result.score,
        tags: entry.tags,
        trust: { level: entry.trust.level, requires_review: entry.trust.requires_review },
        url: `/v1/skills/${entry.name}`,
      });
    });
  });

  it("finds a skill by a section title (the build's index has them)", async () => {
    expect((await search("rotate the keys")).results[0]?.name).toBe("secrets-handling");
  });

  it("leaves a blocked skill out, and serves it again once the advisory is withdrawn", async () => {
    const q = "formats dates in reports";
    expect((await search(q)).results.map((r) => r.name)).not.toContain("bad-skill");
    await setFixtureAdvisories(env, [], 2);
    resetStorageMemory(); // the new advisories reach this isolate (the memory TTL, shortened)
    const after = await search(q);
    expect(after.results[0]?.name).toBe("bad-skill");
    expect(after.results.map((r) => r.name)).toEqual(expectedHits(published, q, 10, { blocked: [] }).map((h) => h.name));
  });

  it("ranks past a blocked skill at any limit: limit 1 with the blocked one ranked first is the next servable one", async () => {
    const q = "formats dates in reports";
    expect(expectedHits(published, q, 1, { blocked: [] })[0]?.name).toBe("bad-skill");
    for (const limit of [1, 2, 3]) {
      resetIsolate();
      const answer = await search(q, `&limit=${limit}`);
      expect(answer.results.map((r) => r.name)).toEqual(expectedHits(published, q, limit).map((h) => h.name));
    }
  });

  it("says the terms it ranked by, and answers no results for a query of common words only", async () => {
    const answer = await search("  Reviewing   the PRs ");
    expect(answer.query).toBe("reviewing the prs");
    expect(answer.terms).toEqual(["review", "pull", "request"]);
    const empty = await search("what should I do about this?");
    expect(empty).toEqual({ query: "what should i do about this?", terms: [], generation: published.generation, results: [] });
  });

  it("takes limit from 1 to maxSearchResults, defaulting to defaultSearchResults", async () => {
    const q = "incident review write";
    const all = expectedHits(published, q, API_LIMITS.maxSearchResults).map((h) => h.name);
    expect(all.length).toBeGreaterThan(2);
    expect((await search(q, "&limit=1")).results.map((r) => r.name)).toEqual(all.slice(0, 1));
    expect((await search(q, "&limit=2")).results.map((r) => r.name)).toEqual(all.slice(0, 2));
    expect((await search(q, `&limit=${API_LIMITS.maxSearchResults}`)).results.map((r) => r.name)).toEqual(all);
  });

  it.each([
    ["no q", "", "q"],
    ["a blank q", "?q=%20%20%09", "q"],
    ["a q one character too long", `?q=${"a".repeat(API_LIMITS.maxQueryChars + 1)}`, "q"],
    ["limit 0", "?q=review&limit=0", "limit"],
    ["a limit over the cap", `?q=review&limit=${API_LIMITS.maxSearchResults + 1}`, "limit"],
    ["a limit that is not a number", "?q=review&limit=ten", "limit"],
    ["a negative limit", "?q=review&limit=-1", "limit"],
  ])("refuses %s with a problem naming the parameter", async (_label, query, param) => {
    const res = await get(`/v1/search${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 400, code: "invalid_parameter", param });
  });

  it("accepts a query of exactly maxQueryChars characters", async () => {
    const answer = await search("review ".repeat(API_LIMITS.maxQueryChars / 8).padEnd(API_LIMITS.maxQueryChars, "x"));
    expect(answer.results[0]?.name).toBe("code-review");
  });

  it("answers 404 not_found when nothing is published at a pinned id", async () => {
    const res = await get(`/g/${"0".repeat(64)}/v1/search?q=review`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "not_found" });
  });

  it("serves pinned and capability forms, with URLs under the caller's access prefix", async () => {
    const pinned = await search("incident", "", env);
    const viaPin = (await (await get(`/g/${published.generation}/v1/search?q=incident`)).json()) as SearchAnswer;
    expect(viaPin.results.map((r) => r.name)).toEqual(pinned.results.map((r) => r.name));
    const token = "sk_test_read_0123456789abcdef01234567";
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join("");
    const bindings = { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: digest };
    expect((await get("/v1/search?q=incident", {}, bindings)).status).toBe(401);
    const res = await get(`/c/${token}/v1/search?q=incident`, {}, bindings);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as SearchAnswer;
    expect(answer.results.length).toBeGreaterThan(0);
    for (const r of answer.results) expect(r.url).toBe(`/c/${token}/v1/skills/${r.name}`);
  });

  it("answers 304 to its ETag, and the ETag changes with the query, the limit and the advisories", async () => {
    const first = await get("/v1/search?q=incident");
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"v1-[0-9a-f]{40}"$/);
    expect((await get("/v1/search?q=incident", { headers: { "If-None-Match": etag } })).status).toBe(304);
    // Equal after normalization: the same answer and ETag.
    expect((await get("/v1/search?q=%20INCIDENT%20")).headers.get("ETag")).toBe(etag);
    expect((await get("/v1/search?q=incidents")).headers.get("ETag")).not.toBe(etag);
    expect((await get("/v1/search?q=incident&limit=3")).headers.get("ETag")).not.toBe(etag);
    await setFixtureAdvisories(env, SEARCH_ADVISORIES, 5);
    resetStorageMemory();
    expect((await get("/v1/search?q=incident")).headers.get("ETag")).not.toBe(etag);
  });
});

describe("storage reads", () => {
  it("read the stored index once per isolate; a repeated search and a new query on a warm isolate read nothing", async () => {
    const calls: string[] = [];
    const bindings = recordingEnv(calls);
    await search("incident timeline", "", bindings);
    expect(calls.filter((c) => c === `R2.get ${r2Key("blob", searchBlob)}`)).toHaveLength(1);
    calls.length = 0;
    await search("incident timeline", "", bindings);
    await search("Incident   TIMELINE", "", bindings);
    expect(calls).toEqual([]);
    await search("review a diff", "&limit=3", bindings);
    expect(calls).toEqual([]);
  });

  it("cost a query of common words only nothing beyond the generation itself", async () => {
    const calls: string[] = [];
    await search("what is this", "", recordingEnv(calls));
    expect(calls.filter((c) => c.includes("blobs/"))).toEqual([]);
  });

  it("answer 503 storage_unavailable when the stored index is missing or does not hash to its key", async () => {
    const key = r2Key("blob", searchBlob);
    const original = new Uint8Array(await (await env.SHELF_BUCKET.get(key))!.arrayBuffer());
    try {
      await env.SHELF_BUCKET.put(key, original.slice(0, -1));
      const res = await get("/v1/search?q=incident");
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: "storage_unavailable" });
      resetIsolate();
      await env.SHELF_BUCKET.delete(key);
      expect((await get("/v1/search?q=incident")).status).toBe(503);
    } finally {
      await env.SHELF_BUCKET.put(key, original);
    }
    resetIsolate();
    expect((await get("/v1/search?q=incident")).status).toBe(200);
  });
});

describe("a generation published before the search index", () => {
  let legacyId: string;
  beforeAll(async () => {
    legacyId = await republishWithSearchIndex(published, null, 2);
  });

  it("is searched through an index of its entries (no section titles), built once per isolate", async () => {
    resetIsolate();
    for (const q of ["incident timeline", "review my pull request", "upgrade dependencies"]) {
      const answer = await search(q);
      expect(answer.generation).toBe(legacyId);
      expect(
        answer.results.map((r) => r.name),
        q,
      ).toEqual(expectedHits(published, q, 10, { legacy: true }).map((h) => h.name));
    }
    // Its subject is only in a section title, which entries do not carry.
    expect((await search("key rotation drills")).results.map((r) => r.name)).not.toContain("secrets-handling");
    // Two requests' shelf services get the very same index object: built once, then kept.
    const first = await searchIndexOf(new ShelfService(env));
    expect(await searchIndexOf(new ShelfService(env))).toBe(first);
    // The index of the generation with a stored index is another one, read from its blob.
    const pinned = await searchIndexOf(new ShelfService(env, { generation: published.generation }));
    expect(pinned).not.toBe(first);
    expect(pinned.postings("rotation")).toBeDefined();
    expect(first.postings("rotation")).toBeUndefined();
  });
});

describe("a stored index whose postings are malformed (it hashes to its key, but a publisher bug wrote it)", () => {
  it("answers 503 storage_unavailable for a query that uses the bad term, and ranks the others", async () => {
    const names = [...published.entries.keys()].sort();
    const index = {
      ...buildSearchIndex([]),
      names,
      lengths: names.map(() => [0, 0, 0, 0, 0]),
      avgdl: [0, 0, 0, 0, 0],
      terms: { incident: [99, 100], review: [1, 100] },
    };
    await republishWithSearchIndex(published, index, 3);
    resetIsolate();
    const res = await get("/v1/search?q=incident");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "storage_unavailable" });
    expect((await search("review")).results.map((r) => r.name)).toEqual([names[1]]);
  });
});
