// The isolate's cache of generated documents (src/worker/read/generated.ts) behind every
// generated read answer: a hit builds nothing and reads no storage, and gives the same bytes and
// headers as the miss that filled it; the v2 index is kept per URL prefix (its links carry a
// capability token); an advisories change or a new generation is a new key; the cache is bounded.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { discoveryIndexV1, discoveryIndexV2, staticRootIndex } from "../../../src/worker/read/indexes.ts";
import { ShelfService } from "../../../src/worker/shelf/service.ts";
import { cachedGenerated, GENERATED_CACHE_BYTES, generatedBytes, keepGenerated, resetGenerated } from "../../../src/worker/read/generated.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { LIVE_MEMORY_TTL_MS } from "../../../src/worker/storage/live.ts";
import { adminEnv, adminRequest, workerFetch } from "../admin/helpers.ts";
import { failingEnv } from "../storage/helpers.ts";
import { BLOCKING_ADVISORY, type FixtureSkill, GENERATED_DOCUMENTS, publishFixtureShelf, SOLO_AND_NESTED } from "../fixture-shelf.ts";

const BASE = "https://shelf.test";
const READ_TOKEN = "sk_cache_read_token_0123456789abcdef";

/** The generated documents that take no argument, and the route whose body holds links. */
const DOCUMENTS = GENERATED_DOCUMENTS;

function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, init, bindings));
}

async function snapshot(response: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  return { status: response.status, headers: [...response.headers.entries()].sort(), body: await sha256Hex(new Uint8Array(await response.arrayBuffer())) };
}

const SKILLS: FixtureSkill[] = [...SOLO_AND_NESTED, { name: "bad-skill", description: "Blocked later.", files: { "references/y.md": "y\n" } }];

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-12-01T00:00:00.000Z"));
  resetStorageMemory();
  resetGenerated();
  await publishFixtureShelf(env, SKILLS);
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("a cache hit", () => {
  it.each(DOCUMENTS)("%s: builds nothing, reads no storage, and answers the miss's exact status, headers and bytes", async (path) => {
    const miss = await snapshot(await get(path));
    expect(miss.status).toBe(200);
    const skills = vi.spyOn(ShelfService.prototype, "skills");
    const status = vi.spyOn(ShelfService.prototype, "status");
    const record = vi.spyOn(ShelfService.prototype, "record");
    // Every binding call fails: the generation is in memory, and the body must be too.
    const hit = await snapshot(await get(path, {}, failingEnv()));
    expect(hit).toEqual(miss);
    expect(skills).not.toHaveBeenCalled();
    expect(status).not.toHaveBeenCalled();
    expect(record).not.toHaveBeenCalled();
  });

  it("serves the bytes the index functions produce (the same code the CLI's checks use), and HEAD without them", async () => {
    await get("/.well-known/skills/index.json");
    const shelf = new ShelfService(env);
    const v1 = await (await get("/.well-known/skills/index.json")).text();
    expect(v1).toBe(JSON.stringify(discoveryIndexV1(await shelf.skills())));
    const root = await (await get("/skills/index.json")).text();
    expect(root).toBe(JSON.stringify(staticRootIndex(await shelf.skills())));
    const head = await get("/skills/index.json", { method: "HEAD" });
    expect([head.status, head.headers.get("Content-Length"), await head.text()]).toEqual([200, String(new TextEncoder().encode(root).length), ""]);
  });

  it("answers 304 to its own ETag, hit or miss", async () => {
    for (const path of DOCUMENTS) {
      const etag = (await get(path)).headers.get("ETag")!;
      const again = await get(path, { headers: { "If-None-Match": etag } });
      expect([path, again.status, again.headers.get("ETag")]).toEqual([path, 304, etag]);
    }
  });
});

describe("the v2 index under a capability URL", () => {
  it("keeps one copy per URL prefix: the token's links never reach a caller without it, nor the reverse", async () => {
    const privateEnv = { ...(await adminEnv()), SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN), SHELF_CAPABILITY_URLS: "on" };
    const bearer = { headers: { Authorization: `Bearer ${READ_TOKEN}` } };
    const viaToken = await (await get(`/c/${READ_TOKEN}/.well-known/agent-skills/index.json`, {}, privateEnv)).json<{ skills: { url: string }[] }>();
    const plain = await (await get("/.well-known/agent-skills/index.json", bearer, privateEnv)).json<{ skills: { url: string }[] }>();
    const viaTokenAgain = await (await get(`/c/${READ_TOKEN}/.well-known/agent-skills/index.json`, {}, privateEnv)).json<{ skills: { url: string }[] }>();
    expect(viaToken.skills.every((s) => s.url.startsWith(`/c/${READ_TOKEN}/g/`))).toBe(true);
    expect(plain.skills.every((s) => s.url.startsWith("/g/"))).toBe(true);
    expect(viaTokenAgain).toEqual(viaToken);
    const shelf = new ShelfService(env);
    const generation = await shelf.generation();
    expect(plain).toEqual(discoveryIndexV2(await shelf.skills(), generation.id, ""));
  });
});

describe("what makes a new key", () => {
  it("an advisories change: every index, /v1/shelf and the catalog get a new ETag and new bytes after the memory TTL", async () => {
    // The per-skill index depends only on its record and review mark, which this advisory leaves alone.
    const paths = DOCUMENTS.filter((p) => p !== "/skills/nested/index.json");
    const before = new Map<string, { etag: string | null; body: string }>();
    for (const path of paths) {
      const res = await get(path);
      before.set(path, { etag: res.headers.get("ETag"), body: await res.text() });
      if (path !== "/v1/shelf") expect(before.get(path)!.body, path).toContain("bad-skill");
    }
    const merged = await workerFetch(await adminEnv())(adminRequest("POST", "/advisories", { advisories: [BLOCKING_ADVISORY] }));
    expect(merged.status).toBe(200);
    for (const path of paths) expect((await get(path)).headers.get("ETag"), `${path} within the memory TTL`).toBe(before.get(path)!.etag);
    vi.setSystemTime(Date.now() + LIVE_MEMORY_TTL_MS);
    for (const path of paths) {
      const after = await get(path);
      expect(after.status, path).toBe(200);
      expect(after.headers.get("ETag"), path).not.toBe(before.get(path)!.etag);
      expect(await after.text(), path).not.toBe(before.get(path)!.body);
    }
    const index = await (await get("/.well-known/agent-skills/index.json")).json<{ skills: { name: string }[] }>();
    expect(index.skills.map((s) => s.name)).toEqual(["nested", "solo"]);
  });

  it("a new generation: the next 200 after the memory TTL lists the new skill", async () => {
    const before = await get("/skills/index.json");
    expect((await before.json<{ skills: string[] }>()).skills).not.toContain("added");
    await publishFixtureShelf(env, [...SKILLS, { name: "added", description: "Published later." }]);
    vi.setSystemTime(Date.now() + LIVE_MEMORY_TTL_MS);
    for (const path of ["/skills/index.json", "/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"]) {
      const after = await get(path);
      expect(after.headers.get("ETag"), path).not.toBe(before.headers.get("ETag"));
      expect(await after.text(), path).toContain('"added"');
    }
  });
});

describe("the generated-document cache", () => {
  const doc = (size: number, tag: string) => ({ etag: `"${tag}"`, contentType: "application/json", body: new Uint8Array(size) });

  afterEach(() => resetGenerated());

  it("stays within its byte budget, dropping the least recently used first", () => {
    resetGenerated();
    const size = 1024 * 1024;
    const count = Math.ceil(GENERATED_CACHE_BYTES / size) + 4;
    keepGenerated("first", doc(size, "first"));
    keepGenerated("second", doc(size, "second"));
    expect(cachedGenerated("first")).toBeDefined(); // "first" is now the most recently used
    for (let i = 0; i < count - 2; i++) {
      keepGenerated(`k${i}`, doc(size, `k${i}`));
      cachedGenerated("first");
    }
    expect(generatedBytes()).toBeLessThanOrEqual(GENERATED_CACHE_BYTES);
    expect(cachedGenerated("second")).toBeUndefined();
    expect(cachedGenerated("k0")).toBeUndefined();
    expect(cachedGenerated("first")?.etag).toBe('"first"');
    expect(cachedGenerated(`k${count - 3}`)?.etag).toBe(`"k${count - 3}"`);
  });

  it("keeps nothing larger than its whole budget, and starts empty after a reset", () => {
    keepGenerated("huge", doc(GENERATED_CACHE_BYTES + 1, "huge"));
    expect(cachedGenerated("huge")).toBeUndefined();
    keepGenerated("small", doc(10, "small"));
    expect(generatedBytes()).toBeGreaterThan(10);
    resetGenerated();
    expect([cachedGenerated("small"), generatedBytes()]).toEqual([undefined, 0]);
  });
});
