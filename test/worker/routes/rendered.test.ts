// Shelf-wide documents kept in R2 (src/worker/read/rendered.ts, docs/storage.md "rendered/"): the
// first isolate that builds a listing of the generation puts its bytes under rendered/<generation>/,
// and a later cold isolate serves those bytes reading no shard and no record, on workers.dev (no
// Cache API) and on a private shelf alike; a request with a query string, a per-skill answer and a
// deployment without its version id keep nothing; an object that is not what the Worker wrote for
// the key is rebuilt; R2 failing is a miss; gc deletes a collected generation's documents.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SHELF_WIDE_LISTINGS } from "../../../src/core/api/listings.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { resetGenerated, resetIsolateGenerated } from "../../../src/worker/read/generated.ts";
import { ShelfService } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { R2_RENDERED_PREFIX } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, clockedBucket, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { keyRecordingEnv } from "../budget/storage-ops.ts";
import { type PublishedFixture, publishFixtureShelf, SOLO_AND_NESTED } from "../fixture-shelf.ts";

/** A workers.dev host: the Cache API is off there, so only R2 can spare a cold isolate the shards. */
const ORIGIN = "https://skillshelf.acme.workers.dev";
const READ_TOKEN = "sk_rendered_read_token_0123456789abcdef";

/** Every shelf-wide listing the Worker keeps in R2: the list `publish --wait` asks for (src/core/api/listings.ts). */
const SHELF_WIDE = SHELF_WIDE_LISTINGS;

let fixture: PublishedFixture;

/** A cold isolate: nothing in its memory (R2 keeps what it holds). */
function coldIsolate(): void {
  resetStorageMemory();
  resetIsolateGenerated();
}

/** One request through the whole Worker, its body read, with the keys it touched. */
async function fetched(url: string, bindings: Cloudflare.Env, headers: Record<string, string> = {}) {
  const log: string[] = [];
  const response = await app.request(url, { headers }, keyRecordingEnv(bindings, log));
  return { response, body: await response.text(), log };
}

/** The keys of a generation's rendered documents in R2. */
async function renderedKeys(generation: string): Promise<string[]> {
  const listed = await env.SHELF_BUCKET.list({ prefix: `${R2_RENDERED_PREFIX}${generation}/` });
  return listed.objects.map((o) => o.key);
}

/** A read of a shard or a record, in R2 or KV: what a rendered document spares a cold isolate. */
const readsShelfData = (line: string) => /^(r2 get (shards|records)\/|kv get (shard|record):)/.test(line);

async function privateEnv(): Promise<Cloudflare.Env> {
  return { ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN), SHELF_CAPABILITY_URLS: "on" } as unknown as Cloudflare.Env;
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-12-01T00:00:00.000Z"));
  coldIsolate();
  // The fixture's generation id is the same in every test: start with nothing rendered for it.
  const kept = await env.SHELF_BUCKET.list({ prefix: R2_RENDERED_PREFIX });
  if (kept.objects.length > 0) await env.SHELF_BUCKET.delete(kept.objects.map((o) => o.key));
  fixture = await publishFixtureShelf(env, SOLO_AND_NESTED);
  coldIsolate();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("a shelf-wide document", () => {
  it.each(SHELF_WIDE)("%s: the first cold isolate keeps it in R2, the next serves it reading no shard or record", async (path) => {
    const first = await fetched(`${ORIGIN}${path}`, env);
    expect(first.response.status).toBe(200);
    expect(first.log.some(readsShelfData)).toBe(true);
    const kept = await renderedKeys(fixture.generation);
    expect(kept).toHaveLength(1);
    expect(first.log).toContain(`r2 put ${kept[0]}`);

    coldIsolate();
    const listed = vi.spyOn(ShelfService.prototype, "skills");
    const second = await fetched(`${ORIGIN}${path}`, env);
    expect(second.response.status).toBe(200);
    expect(second.body).toBe(first.body);
    expect([...second.response.headers].sort()).toEqual([...first.response.headers].sort());
    expect(listed).not.toHaveBeenCalled();
    expect(second.log.filter(readsShelfData)).toEqual([]);
    expect(second.log).toContain(`r2 get ${kept[0]}`);
    expect(second.log.filter((l) => l.startsWith("r2 put"))).toEqual([]);
  });

  it("is kept per generation: after a publish the listing is the new generation's, kept under its id", async () => {
    await fetched(`${ORIGIN}/skills/index.json`, env);
    const next = await publishFixtureShelf(env, [{ name: "fresh", description: "The only skill of the second generation." }], { seq: 2 });
    coldIsolate();
    const after = await fetched(`${ORIGIN}/skills/index.json`, env);
    expect(JSON.parse(after.body)).toEqual({ skills: ["fresh"] });
    expect(await renderedKeys(next.generation)).toHaveLength(1);
    expect(await renderedKeys(fixture.generation)).toHaveLength(1);
  });

  it("is rebuilt when the object at its key is not one the Worker wrote for it (no metadata, or another key's)", async () => {
    const first = await fetched(`${ORIGIN}/v1/catalog`, env);
    const [key] = await renderedKeys(fixture.generation);
    const other = await fetched(`${ORIGIN}/.well-known/skills/index.json`, env);
    const otherKey = (await renderedKeys(fixture.generation)).find((k) => k !== key)!;
    for (const planted of [
      // bytes put by hand, without what the Worker writes beside them
      async () => env.SHELF_BUCKET.put(key!, "{}"),
      // another document moved to this key, with its own metadata and checksum
      async () => {
        const moved = (await env.SHELF_BUCKET.get(otherKey))!;
        await env.SHELF_BUCKET.put(key!, await moved.arrayBuffer(), { customMetadata: moved.customMetadata!, sha256: moved.customMetadata!.sha256! });
      },
    ]) {
      await planted();
      coldIsolate();
      const rebuilt = await fetched(`${ORIGIN}/v1/catalog`, env);
      expect([rebuilt.response.status, rebuilt.body]).toEqual([200, first.body]);
      expect(rebuilt.log.some(readsShelfData)).toBe(true);
      expect(rebuilt.log).toContain(`r2 put ${key}`);
      // And it was put back: the next cold isolate takes it.
      coldIsolate();
      const again = await fetched(`${ORIGIN}/v1/catalog`, env);
      expect([again.body, again.log.some(readsShelfData)]).toEqual([first.body, false]);
    }
    expect(other.body).not.toBe(first.body);
  });

  it("is built as if absent when R2 fails to read or keep it", async () => {
    const expected = (await fetched(`${ORIGIN}/.well-known/agent-skills/index.json`, env)).body;
    const failing = (method: "get" | "put"): Cloudflare.Env => {
      const bucket = new Proxy(env.SHELF_BUCKET, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop !== method) return typeof value === "function" ? value.bind(target) : value;
          return async (key: string, ...rest: unknown[]) => {
            if (key.startsWith(R2_RENDERED_PREFIX)) throw new Error(`R2 ${method} failed (planted)`);
            return (value as (...a: unknown[]) => unknown).apply(target, [key, ...rest]);
          };
        },
      });
      return { ...env, SHELF_BUCKET: bucket };
    };
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const method of ["get", "put"] as const) {
      coldIsolate();
      const response = await app.request(`${ORIGIN}/.well-known/agent-skills/index.json`, {}, failing(method));
      expect([method, response.status, await response.text()]).toEqual([method, 200, expected]);
    }
    expect(warn).toHaveBeenCalled();
  });
});

describe("kept nowhere but the isolate", () => {
  it("a request with a query string: nothing is written, and each cold isolate builds its own", async () => {
    // The catalog keeps only its formats spelled exactly: any other query string is the caller's.
    for (const path of ["/v1/catalog?format=markdown&max_chars=4000", "/v1/catalog?format=xml", "/v1/skills?limit=1", "/skills/index.json?x=1"]) {
      coldIsolate();
      const first = await fetched(`${ORIGIN}${path}`, env);
      expect([path, first.response.status]).toEqual([path, 200]);
      expect(first.log.filter((l) => l.includes(R2_RENDERED_PREFIX))).toEqual([]);
    }
    expect(await renderedKeys(fixture.generation)).toEqual([]);
  });

  it("a per-skill answer (its own record is read anyway)", async () => {
    for (const path of ["/v1/skills/nested", "/skills/nested/index.json", "/v1/trust/nested"]) {
      const answer = await fetched(`${ORIGIN}${path}`, env);
      expect([path, answer.response.status]).toEqual([path, 200]);
    }
    expect(await renderedKeys(fixture.generation)).toEqual([]);
  });

  it("a deployment without its version id ([version_metadata] in wrangler.toml): it cannot name the code that built a document", async () => {
    const { CF_VERSION_METADATA: _version, ...unversioned } = env as unknown as Record<string, unknown>;
    const answer = await fetched(`${ORIGIN}/skills/index.json`, unversioned as unknown as Cloudflare.Env);
    expect(answer.response.status).toBe(200);
    expect(answer.log.filter((l) => l.includes(R2_RENDERED_PREFIX))).toEqual([]);
    expect(await renderedKeys(fixture.generation)).toEqual([]);
  });
});

describe("a private shelf", () => {
  it("keeps its documents apart from the public Worker's over the same bucket, and each caller prefix's apart", async () => {
    const bindings = await privateEnv();
    const path = "/.well-known/agent-skills/index.json";
    const asPublic = await fetched(`${ORIGIN}${path}`, env);
    // Another Worker's isolate (one isolate serves one Worker's settings).
    coldIsolate();
    const byToken = await fetched(`${ORIGIN}${path}`, bindings, { Authorization: `Bearer ${READ_TOKEN}` });
    const byCapability = await fetched(`${ORIGIN}/c/${READ_TOKEN}${path}`, bindings);
    expect([asPublic.response.status, byToken.response.status, byCapability.response.status]).toEqual([200, 200, 200]);
    // Three documents: the public Worker's, and the private one's for each prefix (its URLs carry it).
    expect(await renderedKeys(fixture.generation)).toHaveLength(3);
    expect(byCapability.body).toContain(`/c/${READ_TOKEN}/g/`);
    expect(byToken.body).not.toContain(READ_TOKEN);

    coldIsolate();
    const again = await fetched(`${ORIGIN}/c/${READ_TOKEN}${path}`, bindings);
    expect([again.body, again.log.some(readsShelfData)]).toEqual([byCapability.body, false]);
    // Read access still comes first: no token, no document.
    coldIsolate();
    const refused = await fetched(`${ORIGIN}${path}`, bindings);
    expect(refused.response.status).toBe(401);
    expect(refused.log.filter((l) => l.includes(R2_RENDERED_PREFIX))).toEqual([]);
  });
});

describe("a pinned page", () => {
  it("/g/<id>/ui/ shows the shelf's history as it is now, not as it was when an isolate first kept the page", async () => {
    const call = workerFetch(await adminEnv());
    const publish = async (names: string[]) => {
      const built = await buildGeneration(await Promise.all(names.map((n) => skillInput(n))));
      await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: async () => {}, onLog: () => {} });
      return built.id;
    };
    // Skills of their own: gc's test below counts on its generations being new to the bucket.
    const first = await publish(["gamma"]);
    coldIsolate();
    const before = await (await call(new Request(`${WORKER_URL}/g/${first}/ui/`))).text();
    await publish(["gamma", "delta"]);
    coldIsolate();
    const after = await (await call(new Request(`${WORKER_URL}/g/${first}/ui/`))).text();
    // What a Worker keeping nothing between requests builds now.
    resetGenerated();
    coldIsolate();
    const { CF_VERSION_METADATA: _version, ...unversioned } = (await adminEnv()) as unknown as Record<string, unknown>;
    const built = await (await workerFetch(unversioned)(new Request(`${WORKER_URL}/g/${first}/ui/`))).text();
    expect(after).not.toBe(before);
    expect(after).toBe(built);
  });
});

describe("gc", () => {
  it("deletes the rendered documents of the generations it collects, and those written before the newest history entry; keeps the rest", async () => {
    vi.setSystemTime(new Date("2026-12-01T00:00:00.000Z"));
    const bucket = clockedBucket(env.SHELF_BUCKET);
    const call = workerFetch({ ...(await adminEnv()), SHELF_BUCKET: bucket });
    const publish = async (names: string[]) => {
      const built = await buildGeneration(await Promise.all(names.map((n) => skillInput(n))));
      await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: async () => {}, onLog: () => {} });
      coldIsolate();
      expect((await call(new Request(`${WORKER_URL}/v1/catalog`))).status).toBe(200);
      return built.id;
    };
    const old = await publish(["alpha"]);
    const current = (await buildGeneration([await skillInput("alpha"), await skillInput("beta")])).id;
    // A copy under the next generation's id from before its publish (as an earlier deployment or
    // advisories state would have left): the next history entry makes it stale.
    vi.setSystemTime(Date.now() + 60_000);
    const stale = `${R2_RENDERED_PREFIX}${current}/${"e".repeat(64)}`;
    await bucket.put(stale, "{}");
    vi.setSystemTime(Date.now() + 60_000);
    expect(await publish(["alpha", "beta"])).toBe(current);
    expect([(await renderedKeys(old)).length, (await renderedKeys(current)).length]).toEqual([1, 2]);

    vi.setSystemTime(Date.now() + 2 * 3600 * 1000);
    const gc = await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }));
    expect(gc.status).toBe(200);
    expect(await renderedKeys(old)).toEqual([]);
    const kept = await renderedKeys(current);
    expect(kept).toHaveLength(1);
    expect(kept).not.toContain(stale);
  });
});
