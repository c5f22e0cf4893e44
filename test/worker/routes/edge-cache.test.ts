// The platform's caches (src/worker/read/edge-cache.ts, docs/deploy.md "Caches"): a public shelf's
// generated documents go through the Cache API, so a cold isolate in a location where another built
// them reads no shard and builds nothing; a private shelf never uses the Cache API and never sends a
// Cache-Control a shared cache may keep; neither does a workers.dev host nor SHELF_EDGE_CACHE=off.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { resetGenerated, resetIsolateGenerated } from "../../../src/worker/read/generated.ts";
import { ShelfService } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { countCacheCalls, countingEnv, noOps, type StorageOps } from "../budget/storage-ops.ts";
import { GENERATED_DOCUMENTS, type PublishedFixture, publishFixtureShelf, SOLO_AND_NESTED } from "../fixture-shelf.ts";

const READ_TOKEN = "sk_edge_read_token_0123456789abcdef";
const bearer = { Authorization: `Bearer ${READ_TOKEN}` };

/** Generated documents: the static layout's and both well-known indexes, /v1/shelf, a computed /v1 answer. */
const DOCUMENTS = GENERATED_DOCUMENTS;

let fixture: PublishedFixture;

/** A cold isolate: nothing in its memory (the Cache API, shared by the location, keeps what it holds). */
function coldIsolate(): void {
  resetStorageMemory();
  resetIsolateGenerated();
}

/** One request through the whole Worker with its storage and Cache API calls counted; the answer read to its end. */
async function counted(url: string, bindings: object, headers: Record<string, string> = {}): Promise<{ response: Response; body: string; ops: StorageOps }> {
  const ops = noOps();
  countCacheCalls(ops);
  try {
    const response = await app.request(url, { headers }, countingEnv(bindings as Cloudflare.Env, ops));
    return { response, body: await response.text(), ops };
  } finally {
    countCacheCalls(undefined);
  }
}

async function privateEnv(): Promise<Cloudflare.Env> {
  return { ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN), SHELF_CAPABILITY_URLS: "on" } as unknown as Cloudflare.Env;
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-12-01T00:00:00.000Z"));
  resetGenerated();
  coldIsolate();
  fixture = await publishFixtureShelf(env, SOLO_AND_NESTED);
  coldIsolate();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("a public shelf", () => {
  it.each(DOCUMENTS)("%s: the second cold isolate takes the document from the Cache API, reading no shard and building nothing", async (path) => {
    const first = await counted(`https://shelf.test${path}`, env);
    expect(first.response.status).toBe(200);
    expect(first.ops.cache).toEqual({ match: 1, put: 1 });

    coldIsolate();
    const listed = vi.spyOn(ShelfService.prototype, "skills");
    const second = await counted(`https://shelf.test${path}`, env);
    expect(second.response.status).toBe(200);
    expect(second.ops.cache).toEqual({ match: 1 });
    expect(second.body).toBe(first.body);
    expect([...second.response.headers].sort()).toEqual([...first.response.headers].sort());
    expect(listed).not.toHaveBeenCalled();
    // Only what names the document's key is read (pointer, manifest, advisories): never a shard or a record.
    const reads = (ops: StorageOps) => (ops.r2.get ?? 0) + (ops.kv.get ?? 0);
    expect(reads(second.ops)).toBeLessThan(reads(first.ops));
  });

  it("keeps each origin's documents apart (links are absolute on some), and a warm isolate asks the Cache API nothing", async () => {
    await counted("https://shelf.test/skills/index.json", env);
    coldIsolate();
    const other = await counted("https://mirror.test/skills/index.json", env);
    expect(other.ops.cache).toEqual({ match: 1, put: 1 });
    const warm = await counted("https://mirror.test/skills/index.json", env);
    expect(warm.ops.cache).toEqual({});
  });

  it("sends Cache-Control a shared cache keeps: a year and immutable at pinned file URLs, revalidated at path URLs", async () => {
    const pinned = await app.request(`https://shelf.test/g/${fixture.generation}/skills/nested/SKILL.md`, {}, env);
    expect([pinned.status, pinned.headers.get("Cache-Control")]).toEqual([200, "public, max-age=31536000, immutable, no-transform"]);
    const archive = await app.request(`https://shelf.test/g/${fixture.generation}/.well-known/agent-skills/nested.tar.gz`, {}, env);
    expect([archive.status, archive.headers.get("Cache-Control")]).toEqual([200, "public, max-age=31536000, immutable, no-transform"]);
    const index = await app.request("https://shelf.test/skills/index.json", {}, env);
    expect(index.headers.get("Cache-Control")).toBe("public, max-age=60, must-revalidate, no-transform");
  });
});

describe("never the Cache API", () => {
  it.each(DOCUMENTS)("a private shelf: %s asks it nothing, cold or warm, with a token or a capability URL", async (path) => {
    const bindings = await privateEnv();
    for (const [url, headers] of [
      [`https://shelf.test${path}`, bearer],
      [`https://shelf.test/c/${READ_TOKEN}${path}`, {}],
    ] as const) {
      coldIsolate();
      const cold = await counted(url, bindings, headers);
      const warm = await counted(url, bindings, headers);
      expect([cold.response.status, cold.ops.cache, warm.ops.cache]).toEqual([200, {}, {}]);
    }
  });

  it("on workers.dev (it stores nothing there) nor with SHELF_EDGE_CACHE=off", async () => {
    const devHost = await counted("https://skillshelf.acme.workers.dev/skills/index.json", env);
    expect([devHost.response.status, devHost.ops.cache]).toEqual([200, {}]);
    coldIsolate();
    const off = await counted("https://shelf.test/skills/index.json", { ...env, SHELF_EDGE_CACHE: "off" });
    expect([off.response.status, off.ops.cache]).toEqual([200, {}]);
  });
});

describe("a private shelf's headers", () => {
  it("never carry a Cache-Control a shared cache may keep: private on every success, pinned files and archives included", async () => {
    const bindings = await privateEnv();
    const paths = [
      ...DOCUMENTS,
      "/skills/nested/SKILL.md",
      "/skills/nested/references/guide.md",
      `/g/${fixture.generation}/skills/nested/SKILL.md`,
      `/g/${fixture.generation}/.well-known/agent-skills/nested.tar.gz`,
      "/.well-known/agent-skills/nested.tar.gz",
    ];
    for (const path of paths) {
      for (const [url, headers] of [
        [`https://shelf.test${path}`, bearer],
        [`https://shelf.test/c/${READ_TOKEN}${path}`, {}],
      ] as const) {
        const response = await app.request(url, { headers }, bindings);
        await response.arrayBuffer();
        const cacheControl = response.headers.get("Cache-Control") ?? "";
        expect([url, response.status, cacheControl.startsWith("private,"), /\bpublic\b/.test(cacheControl)]).toEqual([url, 200, true, false]);
      }
    }
    // Refusals carry no-store.
    const refused = await app.request("https://shelf.test/skills/index.json", {}, bindings);
    expect([refused.status, refused.headers.get("Cache-Control")]).toEqual([401, "no-store"]);
  });
});
