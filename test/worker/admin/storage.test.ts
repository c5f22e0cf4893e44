// Every R2 failure on every admin route answers 503 storage_unavailable with a Retry-After (never
// a 500, never the storage error's text) and leaves nothing half-written: each route with R2
// failing on every call (rejecting, or throwing before any promise exists), the routes that read
// stored JSON with R2 failing to read a body, and each write failing after its checks passed.
// KV is a cache, so with KV failing a publish still completes (readers fall back to R2).
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { expectStorageUnavailable } from "../expect-storage-unavailable.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { isDigestMismatch } from "../../../src/worker/admin/storage.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key, R2_ADVISORIES_KEY, R2_GC_LEASE_KEY, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, bucketKeys, buildGeneration, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const DETAIL = "R2 is down: internal detail";

/** How a wrapped binding fails: a rejected promise, a throw before any promise exists, or (R2 get) a body that cannot be read. */
type FailureMode = "rejects" | "throws" | "body";

/** Wraps a binding so that calls for which `fails(method, args)` is true fail in `mode`. */
function failing<T extends object>(binding: T, mode: FailureMode, fails: (method: string, args: unknown[]) => boolean = () => true): T {
  return new Proxy(binding, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const call = () => (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!fails(String(prop), args)) return call();
        if (mode === "throws") throw new Error(DETAIL);
        if (mode === "rejects") return Promise.reject(new Error(DETAIL));
        if (prop !== "get") return call();
        return (call() as Promise<R2ObjectBody | null>).then((object) => {
          if (!object) return object;
          void object.body.cancel();
          const broken = () => Promise.reject(new Error(DETAIL));
          return new Proxy(object, { get: (o, p) => (p === "json" || p === "text" || p === "arrayBuffer" ? broken : Reflect.get(o, p)) });
        });
      };
    },
  });
}

/** Everything in R2 and KV, with the mutable objects' contents: "nothing changed" compares two of these. */
async function storageState(): Promise<unknown> {
  const text = async (key: string) => (await env.SHELF_BUCKET.get(key))?.text() ?? null;
  return {
    r2: await bucketKeys(env.SHELF_BUCKET),
    pointer: await text(R2_POINTER_KEY),
    advisories: await text(R2_ADVISORIES_KEY),
    kv: (await env.SHELF_KV.list()).keys.map((k) => k.name).sort(),
  };
}

function put(path: string, body: Uint8Array): Request {
  return new Request(`${WORKER_URL}/admin/v1${path}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: body as Uint8Array<ArrayBuffer> });
}

const ADVISORY = {
  name: "beta",
  source: "elsewhere",
  official_intent: "Guides.",
  hidden_issue: "Misleads.",
  severity: "high",
  reference: "https://example.test/a/1",
  advisory_id: "ASA-STORAGE-1",
};

async function shelves() {
  const v1 = await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/guide.md": "# Guide\n" })]);
  const v2 = await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/guide.md": "# Guide, updated\n" })]);
  return { v1, v2 };
}

async function publish(built: Awaited<ReturnType<typeof shelves>>["v1"]) {
  return publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: async () => {} });
}

/** v1 published, with an advisory in force (so advisories.json is stored and read). */
async function publishedV1() {
  const { v1, v2 } = await shelves();
  await publish(v1);
  const inForce = { ...ADVISORY, name: "gamma", advisory_id: "ASA-STORAGE-0" };
  expect((await workerFetch(await adminEnv())(adminRequest("POST", "/advisories", { advisories: [inForce] }))).status).toBe(200);
  return { v1, v2 };
}

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

/** One request per admin route (gc twice: dry run and apply), against v1 published and v2 not uploaded. */
function everyRoute(v1: { id: string }, v2: Awaited<ReturnType<typeof shelves>>["v2"]): [string, Request][] {
  const newBlob = v2.objects.find((o) => o.kind === "blob" && o.bytes.length > 0)!;
  const of = (kind: string) => v2.objects.find((o) => o.kind === kind)!;
  return [
    ["GET /pointer", adminRequest("GET", "/pointer")],
    ["GET /history", adminRequest("GET", "/history")],
    ["GET /advisories", adminRequest("GET", "/advisories")],
    ["POST /missing", adminRequest("POST", "/missing", { blob: [newBlob.sha256], generation: [v2.id] })],
    ["PUT /blobs", put(`/blobs/${newBlob.sha256}`, newBlob.bytes)],
    ["PUT /records", put(`/records/${of("record").sha256}`, of("record").bytes)],
    ["PUT /shards", put(`/shards/${of("shard").sha256}`, of("shard").bytes)],
    ["PUT /generations", put(`/generations/${v2.id}`, v2.manifestBytes)],
    ["POST /pointer", adminRequest("POST", "/pointer", { generation: v2.id, previous: v1.id })],
    ["POST /rollback", adminRequest("POST", "/rollback", { generation: v1.id, previous: v1.id })],
    ["POST /advisories", adminRequest("POST", "/advisories", { advisories: [ADVISORY] })],
    ["POST /gc", adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0 })],
    ["POST /gc apply", adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })],
  ];
}

describe("R2 failing on every call", () => {
  it.each(["rejects", "throws"] as const)("every admin route answers 503 with Retry-After and changes nothing (R2 %s)", async (mode) => {
    const { v1, v2 } = await publishedV1();
    const before = await storageState();
    const call = workerFetch({ ...(await adminEnv()), SHELF_BUCKET: failing(env.SHELF_BUCKET, mode) });
    for (const [label, request] of everyRoute(v1, v2)) await expectStorageUnavailable(await call(request), label);
    expect(await storageState()).toEqual(before);
  });
});

describe("R2 failing to read a stored document's body", () => {
  it("every route that reads stored JSON answers 503 with Retry-After and changes nothing", async () => {
    const { v1, v2 } = await publishedV1();
    const before = await storageState();
    const call = workerFetch({ ...(await adminEnv()), SHELF_BUCKET: failing(env.SHELF_BUCKET, "body") });
    const readers = new Set([
      "GET /pointer",
      "GET /history",
      "GET /advisories",
      "POST /pointer",
      "POST /rollback",
      "POST /advisories",
      "POST /gc",
      "POST /gc apply",
    ]);
    const routes = everyRoute(v1, v2).filter(([label]) => readers.has(label));
    expect(routes).toHaveLength(readers.size);
    for (const [label, request] of routes) await expectStorageUnavailable(await call(request), label);
    expect(await storageState()).toEqual(before);
  });
});

describe("R2 failing to write once every check has passed", () => {
  it("each write answers 503 with Retry-After and stores nothing; the same request succeeds once R2 is back", async () => {
    const { v1, v2 } = await publishedV1();
    const working = workerFetch(await adminEnv());
    const writesFail = workerFetch({
      ...(await adminEnv()),
      SHELF_BUCKET: failing(env.SHELF_BUCKET, "rejects", (method) => method === "put" || method === "delete"),
    });
    const stored = async (kind: "blob" | "record" | "shard" | "generation", sha: string) => (await env.SHELF_BUCKET.head(r2Key(kind, sha))) !== null;
    const v1Only = v1.objects.filter((o) => !v2.objects.some((n) => n.kind === o.kind && n.sha256 === o.sha256));

    // Uploads, bottom-up: each level's write fails after its children were verified present.
    for (const kind of ["blob", "record", "shard"] as const) {
      for (const o of v2.objects.filter((x) => x.kind === kind)) {
        if (await stored(kind, o.sha256)) continue;
        const path = `/${kind}s/${o.sha256}`;
        await expectStorageUnavailable(await writesFail(put(path, o.bytes)), `PUT ${path}`);
        expect(await stored(kind, o.sha256), path).toBe(false);
        expect((await working(put(path, o.bytes))).status, path).toBe(201);
      }
    }
    await expectStorageUnavailable(await writesFail(put(`/generations/${v2.id}`, v2.manifestBytes)), "PUT /generations");
    expect(await stored("generation", v2.id)).toBe(false);
    expect((await working(put(`/generations/${v2.id}`, v2.manifestBytes))).status).toBe(201);

    // Pointer moves: the compare-and-swap write fails, the pointer stays where it was.
    let before = await storageState();
    await expectStorageUnavailable(await writesFail(adminRequest("POST", "/pointer", { generation: v2.id, previous: v1.id })), "POST /pointer");
    expect(await storageState()).toEqual(before);
    expect((await working(adminRequest("POST", "/pointer", { generation: v2.id, previous: v1.id }))).status).toBe(200);
    before = await storageState();
    await expectStorageUnavailable(await writesFail(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id })), "POST /rollback");
    expect(await storageState()).toEqual(before);

    // Advisories: the merge's conditional write fails, the advisories in force are unchanged.
    await expectStorageUnavailable(await writesFail(adminRequest("POST", "/advisories", { advisories: [ADVISORY] })), "POST /advisories");
    expect(await storageState()).toEqual(before);

    // gc: its lease cannot be taken, so it deletes nothing and leaves no lease behind.
    await expectStorageUnavailable(await writesFail(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })), "POST /gc apply (lease)");
    expect(await storageState()).toEqual(before);
    expect(v1Only.length).toBeGreaterThan(0);
  });

  it("gc whose deletes fail answers 503 with Retry-After, deletes nothing, and releases its lease", async () => {
    const { v1, v2 } = await shelves();
    await publish(v1);
    await publish(v2);
    const before = await storageState();
    // Batch deletes fail; the lease's own (single-key) delete works.
    const deletesFail = workerFetch({
      ...(await adminEnv()),
      SHELF_BUCKET: failing(env.SHELF_BUCKET, "rejects", (method, args) => method === "delete" && Array.isArray(args[0])),
    });
    const res = await pastMinGrace(() => deletesFail(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })));
    await expectStorageUnavailable(res.clone(), "POST /gc apply (deletes)");
    expect(((await res.json()) as { message: string }).message).toMatch(/Deleted so far: 0 generation\(s\).*Rerun gc --apply/);
    expect(await storageState()).toEqual(before);
    expect(await env.SHELF_BUCKET.head(R2_GC_LEASE_KEY)).toBeNull();
    // With R2 back, the same gc collects v1's own objects.
    const applied = (await pastMinGrace(async () =>
      (await workerFetch(await adminEnv())(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }))).json(),
    )) as {
      deleted: Record<string, number>;
    };
    expect(applied.deleted.generation).toBe(1);
  });
});

describe("KV failing", () => {
  it("does not fail a publish: KV is a cache, R2 holds what was published", async () => {
    const { v1 } = await shelves();
    const kvDown = { ...(await adminEnv()), SHELF_KV: failing(env.SHELF_KV, "rejects") };
    const result = await publishGeneration(memorySource(v1), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(kvDown), sleep: async () => {} });
    expect(result.generation).toBe(v1.id);
    expect(((await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json()) as { generation: string }).generation).toBe(v1.id);
    expect((await env.SHELF_KV.list()).keys).toEqual([]);
    const gc = await workerFetch(kvDown)(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }));
    expect(gc.status).toBe(200);
  });
});

describe("isDigestMismatch", () => {
  it("tells R2's refusal of bytes that do not hash to the given SHA-256 from a storage failure", async () => {
    const refused = await env.SHELF_BUCKET.put("digest-probe", "hello", { sha256: "a".repeat(64) }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDigestMismatch(refused)).toBe(true);
    expect(isDigestMismatch(new Error("network connection lost"))).toBe(false);
    expect(isDigestMismatch(undefined)).toBe(false);
  });
});
