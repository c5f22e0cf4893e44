// Every R2 or KV failure on every read path answers 503 with a short Retry-After (never a 500,
// never a partial 200, never the storage error's text): each read route, GET and HEAD, current and
// pinned, with the bindings wrapped to fail, on a cold isolate and at each later read (shard,
// record, blob, pointer, advisories, a pinned generation's head, a read-token lookup).
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectStorageUnavailable } from "../expect-storage-unavailable.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { publishFixtureShelf, SOLO_AND_NESTED } from "../fixture-shelf.ts";

const BASE = "https://shelf.test";
const DETAIL = "storage is down: internal detail";
let current = "";
let older = "";

/** How a wrapped binding fails: a rejected promise, or a throw before any promise exists. */
type FailureMode = "rejects" | "throws";

/** Wraps a binding so that calls for which `fails(method, key)` is true fail. */
function failing<T extends object>(binding: T, mode: FailureMode, fails: (method: string, key: string) => boolean = () => true): T {
  return new Proxy(binding, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (fails(String(prop), String(args[0]))) {
          if (mode === "throws") throw new Error(DETAIL);
          return Promise.reject(new Error(DETAIL));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function request(path: string, init: RequestInit, bindings: object): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, init, bindings));
}

beforeAll(async () => {
  resetStorageMemory();
  older = (await publishFixtureShelf(env, [{ name: "solo", description: "An older generation." }])).generation;
  current = (await publishFixtureShelf(env, SOLO_AND_NESTED, { seq: 2 })).generation;
});

beforeEach(() => resetStorageMemory());

/** Every read route, each reading storage in its own way. */
const ROUTES = [
  "/skills/index.json",
  "/skills/nested/index.json",
  "/skills/solo/SKILL.md",
  "/skills/nested/references/guide.md",
  "/.well-known/agent-skills/index.json",
  "/.well-known/agent-skills/nested.tar.gz",
  "/.well-known/agent-skills/nested.zip",
  "/.well-known/agent-skills/nested/SKILL.md",
  "/.well-known/skills/index.json",
  "/.well-known/skills/nested/references/guide.md",
  "/v1/shelf",
];

describe("a cold isolate whose R2 fails on every call", () => {
  const cases: Array<[string, string, FailureMode]> = [];
  for (const route of ROUTES) {
    for (const method of ["GET", "HEAD"]) {
      for (const mode of ["rejects", "throws"] as const) cases.push([method, route, mode]);
    }
  }
  it.each(cases)("%s %s (R2 %s) → 503", async (method, route, mode) => {
    for (const path of [route, `/g/${current}${route}`]) {
      resetStorageMemory();
      await expectStorageUnavailable(await request(path, { method }, { ...env, SHELF_BUCKET: failing(env.SHELF_BUCKET, mode) }), `${method} ${path}`, {
        allowEmptyBody: true,
      });
    }
  });
});

describe("one later read failing", () => {
  // Each R2 key a request reads after another succeeded; KV holds no copies in this fixture, so
  // every document read reaches R2.
  const cases: Array<[string, string, string, (method: string, key: string) => boolean]> = [
    ["the pointer", "GET", "/skills/solo/SKILL.md", (_m, key) => key === "pointer.json"],
    ["the advisories", "GET", "/skills/index.json", (_m, key) => key === "advisories.json"],
    ["the manifest", "GET", "/v1/shelf", (_m, key) => key.startsWith("generations/")],
    ["a shard (one skill)", "GET", "/skills/solo/SKILL.md", (_m, key) => key.startsWith("shards/")],
    ["a shard (a listing)", "GET", "/.well-known/skills/index.json", (_m, key) => key.startsWith("shards/")],
    ["a record (a file)", "GET", "/skills/nested/references/guide.md", (_m, key) => key.startsWith("records/")],
    ["a record (HEAD of a file)", "HEAD", "/skills/nested/references/guide.md", (_m, key) => key.startsWith("records/")],
    ["a record (per-skill manifest)", "GET", "/skills/nested/index.json", (_m, key) => key.startsWith("records/")],
    ["a blob (SKILL.md)", "GET", "/skills/solo/SKILL.md", (_m, key) => key.startsWith("blobs/")],
    ["a blob (an archive)", "GET", "/.well-known/agent-skills/nested.zip", (_m, key) => key.startsWith("blobs/")],
    ["a blob (a range)", "GET", "/skills/nested/references/guide.md", (_m, key) => key.startsWith("blobs/")],
    ["a pinned generation's head", "GET", "/g/<older>/skills/solo/SKILL.md", (method) => method === "head"],
    ["a pinned generation's manifest", "GET", "/g/<older>/skills/index.json", (method, key) => method === "get" && key === `generations/${older}`],
  ];
  it.each(cases)("%s: %s %s → 503", async (label, method, route, fails) => {
    const path = route.replace("<older>", older);
    for (const mode of ["rejects", "throws"] as const) {
      resetStorageMemory();
      const init: RequestInit = label === "a blob (a range)" ? { method, headers: { Range: "bytes=0-3" } } : { method };
      await expectStorageUnavailable(await request(path, init, { ...env, SHELF_BUCKET: failing(env.SHELF_BUCKET, mode, fails) }), `${label} ${mode}`, {
        allowEmptyBody: true,
      });
    }
  });

  it("a blob read on a warm isolate (everything else from memory) → 503; a blob it already checked is served", async () => {
    // The skill's shard and record are in memory after its SKILL.md and a HEAD of guide.md (which
    // heads the blob); guide.md's bytes are not.
    await (await request("/skills/nested/SKILL.md", {}, env)).arrayBuffer();
    expect((await request("/skills/nested/references/guide.md", { method: "HEAD" }, env)).status).toBe(200);
    const broken = { ...env, SHELF_BUCKET: failing(env.SHELF_BUCKET, "rejects") };
    const res = await request("/skills/nested/references/guide.md", {}, broken);
    await expectStorageUnavailable(res, "warm blob read", { allowEmptyBody: true });
    // SKILL.md's bytes were checked against their digest once: R2 failing does not matter to them.
    const kept = await request("/skills/nested/SKILL.md", {}, broken);
    expect(kept.status).toBe(200);
    await kept.arrayBuffer();
  });
});

describe("a read-token lookup failing (KV is the source of truth there)", () => {
  // Tokens whose hash is in no secret, so each lookup reaches KV; a fresh token per case, since
  // the verifier keeps each KV answer for 30 s.
  let n = 0;
  const token = () => `sk_storage_failure_token_${n++}_0123456789abcdef`;
  const privateEnv = async (mode: FailureMode) => ({
    ...env,
    SHELF_VISIBILITY: "private",
    SHELF_CAPABILITY_URLS: "on",
    READ_TOKEN_SHA256: await sha256Hex("some-other-token-0123456789"),
    SHELF_KV: failing(env.SHELF_KV, mode),
  });

  it.each(["rejects", "throws"] as const)("a bearer token (KV %s) → 503, not 401", async (mode) => {
    for (const route of ROUTES) {
      for (const method of ["GET", "HEAD"]) {
        const res = await request(route, { method, headers: { Authorization: `Bearer ${token()}` } }, await privateEnv(mode));
        await expectStorageUnavailable(res, `${method} ${route}`, { allowEmptyBody: true });
      }
    }
  });

  it.each(["rejects", "throws"] as const)("a capability URL (KV %s) → 503, not 404", async (mode) => {
    for (const route of ROUTES) {
      const res = await request(`/c/${token()}${route}`, {}, await privateEnv(mode));
      await expectStorageUnavailable(res, route, { allowEmptyBody: true });
    }
  });
});
