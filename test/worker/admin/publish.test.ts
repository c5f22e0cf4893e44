// Publishing through the admin API inside workerd, with real local R2 and KV: into empty storage,
// unchanged republish, bad tokens, mismatched uploads, racing publishers, an interrupted publish,
// rollback, advisories published after a build, and gc.
import { reset } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { AdminClient, PublishError, publishGeneration } from "../../../src/core/publish/client.ts";
import { ADMIN_API, MAX_BLOB_BYTES, MAX_DOCUMENT_BYTES, MAX_JSON_BODY_BYTES, MIN_GC_GRACE_SECONDS, type GcReport } from "../../../src/core/publish/contract.ts";
import { openGeneration, openGenerationById, resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { PINNED_CHECK_TTL_MS } from "../../../src/worker/storage/index.ts";
import { r2Key, R2_GC_LEASE_KEY, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { ShelfError } from "../../../src/worker/errors.ts";
import { GarbageCollector, GC_MAX_OPERATIONS, GC_OPERATION_MARGIN } from "../../../src/worker/admin/gc.ts";
import { GC_LEASE_MIN_LEFT_MS, GC_LEASE_MS } from "../../../src/worker/admin/gc-lease.ts";
import { AdminStorage } from "../../../src/worker/admin/storage.ts";
import {
  adminEnv,
  adminRequest,
  bucketKeys,
  buildGeneration,
  memorySource,
  newCounts,
  pastMinGrace,
  skillInput,
  TOKEN,
  total,
  WORKER_URL,
  workerFetch,
} from "./helpers.ts";

const noSleep = async () => {};

async function shelfV1() {
  return buildGeneration([
    await skillInput("alpha"),
    await skillInput("beta", { "references/guide.md": "# Guide\n\nRead me.\n", "assets/logo.bin": new Uint8Array([0, 1, 2, 255]) }),
    await skillInput("gamma", { "scripts/run.py": "print('hello')\n" }),
  ]);
}

async function shelfV2() {
  return buildGeneration([
    await skillInput("alpha"),
    await skillInput("beta", { "references/guide.md": "# Guide\n\nRead me. Updated.\n", "assets/logo.bin": new Uint8Array([0, 1, 2, 255]) }),
    await skillInput("gamma", { "scripts/run.py": "print('hello')\n" }),
  ]);
}

async function publish(built: Awaited<ReturnType<typeof shelfV1>>, fetchImpl?: (r: Request) => Promise<Response>) {
  return publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: fetchImpl ?? workerFetch(await adminEnv()), sleep: noSleep });
}

async function getText(path: string): Promise<{ status: number; text: string }> {
  resetStorageMemory(); // a fresh isolate's view: no memory cache
  const res = await workerFetch(await adminEnv())(new Request(`${WORKER_URL}${path}`));
  return { status: res.status, text: await res.text() };
}

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

describe("publish into empty storage", () => {
  it("uploads every object, moves the pointer, and the shelf serves the exact bytes", async () => {
    const built = await shelfV1();
    const result = await publish(built);
    expect(result.previous).toBeNull();
    expect(result.alreadyCurrent).toBe(false);
    const blobs = built.objects.filter((o) => o.kind === "blob").length;
    expect(result.uploaded).toEqual({ blob: blobs, record: 3, shard: built.manifest.shards.length, generation: 1 });

    const gen = await openGeneration(env);
    expect(gen?.id).toBe(built.id);
    const beta = await gen!.findSkill("beta");
    expect(beta?.file_count).toBe(3);
    const record = await gen!.readRecord(beta!);
    expect(record.files.map((f) => f.path)).toEqual(["SKILL.md", "assets/logo.bin", "references/guide.md"]);

    const served = await getText("/skills/beta/references/guide.md");
    expect(served).toEqual({ status: 200, text: "# Guide\n\nRead me.\n" });
    // Every stored object is under its SHA-256.
    for (const o of built.objects) expect(await env.SHELF_BUCKET.head(r2Key(o.kind, o.sha256))).not.toBeNull();
    expect(await env.SHELF_BUCKET.head(r2Key("generation", built.id))).not.toBeNull();
  });

  it("republishing an unchanged build uploads nothing", async () => {
    const built = await shelfV1();
    await publish(built);
    const again = await publish(await shelfV1());
    expect(again.alreadyCurrent).toBe(true);
    expect(again.bytesUploaded).toBe(0);
    expect(again.uploaded).toEqual({ blob: 0, record: 0, shard: 0, generation: 0 });
    expect(again.requests).toBe(1);
  });

  it("publishing a changed build uploads only what changed", async () => {
    await publish(await shelfV1());
    const v2 = await shelfV2();
    const result = await publish(v2);
    // beta's guide.md, beta's three archives (.tar.gz, .zip, plugin zip); beta's record; the one shard; the manifest.
    expect(result.uploaded).toEqual({ blob: 4, record: 1, shard: 1, generation: 1 });
    expect((await getText("/skills/beta/references/guide.md")).text).toBe("# Guide\n\nRead me. Updated.\n");
  });
});

describe("admin authentication", () => {
  it("is mounted on the Worker at /admin/v1 and refuses a request without a token", async () => {
    const res = await exports.default.fetch(adminRequest("GET", "/history", undefined, null));
    // 401 when a token hash is configured (.dev.vars locally), 503 when none is.
    expect([401, 503]).toContain(res.status);
  });

  it("refuses calls without a token or with a wrong one, and changes nothing", async () => {
    const call = workerFetch(await adminEnv());
    const built = await shelfV1();
    const blob = built.objects.find((o) => o.kind === "blob")!;
    const attempts = [
      adminRequest("POST", "/missing", { blob: [blob.sha256] }, null),
      adminRequest("POST", "/pointer", { generation: built.id, previous: null }, "wrong-token"),
      adminRequest("POST", "/gc", { apply: true, keep: 0, grace_seconds: 0 }, "Bearer"),
      new Request(`${WORKER_URL}/admin/v1/blobs/${blob.sha256}`, {
        method: "PUT",
        headers: { Authorization: `Basic ${btoa("a:b")}` },
        body: blob.bytes as Uint8Array<ArrayBuffer>,
      }),
      new Request(`${WORKER_URL}/admin/v1/blobs/${blob.sha256}`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${await sha256Hex(TOKEN)}` },
        body: blob.bytes as Uint8Array<ArrayBuffer>,
      }),
    ];
    for (const request of attempts) {
      const res = await call(request);
      expect(res.status).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="skillshelf-admin"/);
      expect(((await res.json()) as { error: string }).error).toBe("unauthorized");
    }
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
    expect((await env.SHELF_KV.list()).keys).toEqual([]);
  });

  it("answers 503 when the Worker has no publish token configured", async () => {
    const res = await workerFetch({ ...env, PUBLISH_TOKEN_SHA256: undefined })(adminRequest("GET", "/history"));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/PUBLISH_TOKEN_SHA256/);
  });
});

describe("verified uploads", () => {
  it("rejects a blob whose body does not hash to its key, storing nothing", async () => {
    const call = workerFetch(await adminEnv());
    const claimed = await sha256Hex("the real content");
    const res = await call(
      new Request(`${WORKER_URL}/admin/v1/blobs/${claimed}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: "something else" }),
    );
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: string }).error).toBe("digest_mismatch");
    expect(await env.SHELF_BUCKET.head(r2Key("blob", claimed))).toBeNull();
    const ok = await call(
      new Request(`${WORKER_URL}/admin/v1/blobs/${claimed}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: "the real content" }),
    );
    expect(ok.status).toBe(201);
  });

  it("rejects documents that are mis-hashed, not canonical, malformed, or reference missing objects", async () => {
    const call = workerFetch(await adminEnv());
    const built = await shelfV1();
    const record = built.objects.find((o) => o.kind === "record")!;
    const put = (path: string, body: Uint8Array | string) =>
      call(new Request(`${WORKER_URL}/admin/v1${path}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: body as BodyInit }));

    const wrongKey = await put(`/records/${"0".repeat(64)}`, record.bytes);
    expect(wrongKey.status).toBe(422);
    const pretty = JSON.stringify(JSON.parse(new TextDecoder().decode(record.bytes)), null, 2);
    const notCanonical = await put(`/records/${await sha256Hex(pretty)}`, pretty);
    expect(((await notCanonical.json()) as { error: string }).error).toBe("not_canonical");
    const junk = '{"schema":"skillshelf.skill/1"}';
    expect(((await (await put(`/records/${await sha256Hex(junk)}`, junk)).json()) as { error: string }).error).toBe("invalid_document");
    // The record is fine but its blobs were never uploaded.
    const missing = await put(`/records/${record.sha256}`, record.bytes);
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: string; missing: string[] }).missing.length).toBeGreaterThan(0);
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);

    // A shard whose blob list is not exactly what its records reference is refused.
    await publish(built);
    const shard = built.objects.find((o) => o.kind === "shard")!;
    const forged = JSON.parse(new TextDecoder().decode(shard.bytes)) as { blobs: string[] };
    forged.blobs = forged.blobs.slice(1);
    const forgedBytes = canonicalJson(forged);
    const forgedRes = await put(`/shards/${await sha256Hex(forgedBytes)}`, forgedBytes);
    expect(forgedRes.status).toBe(422);
    expect(((await forgedRes.json()) as { message: string }).message).toMatch(/blob list/);
    // So is one whose entry lists other paths than its record (the v0.1 index serves them).
    const forgedPaths = JSON.parse(new TextDecoder().decode(shard.bytes)) as { skills: Array<{ paths: string[] }> };
    forgedPaths.skills[0]!.paths = [...forgedPaths.skills[0]!.paths, "references/not-there.md"];
    const forgedPathBytes = canonicalJson(forgedPaths);
    const forgedPathRes = await put(`/shards/${await sha256Hex(forgedPathBytes)}`, forgedPathBytes);
    expect(forgedPathRes.status).toBe(422);
    expect(((await forgedPathRes.json()) as { message: string }).message).toMatch(/entry for \S+ differs from its record in paths/);
    // And every other field an entry derives from its record (served without reading it): the
    // SKILL.md blob (the v0.2 digest), the tree hash, the trust marks, the description, the name.
    const shardJson = () =>
      JSON.parse(new TextDecoder().decode(shard.bytes)) as {
        skills: Array<Record<string, unknown> & { skill_md: { sha256: string }; trust: { requires_review: boolean } }>;
      };
    const forgeries: [string, (e: ReturnType<typeof shardJson>["skills"][number]) => void][] = [
      ["skill_md", (e) => void (e.skill_md.sha256 = "f".repeat(64))],
      ["tree_hash", (e) => void (e.tree_hash = "0".repeat(64))],
      ["trust", (e) => void (e.trust.requires_review = !e.trust.requires_review)],
      ["description", (e) => void (e.description = "Something else entirely.")],
      ["archives", (e) => void ((e.archives as { zip: { size: number } }).zip.size += 1)],
      ["has_scripts", (e) => void (e.has_scripts = !e.has_scripts)],
      // What MCP skills/list and /v1/trust serve from the entry: file digests, the SKILL.md head, validations.
      ["listing", (e) => void ((e.listing as { file_sizes: number[] }).file_sizes[0]! += 1)],
      ["listing", (e) => void ((e.listing as { skill_md_head: string }).skill_md_head = "---\nname: other\ndescription: x\n---\n")],
      ["listing", (e) => void (e.listing as { validations: unknown[] }).validations.push({ level: "first_party" })],
    ];
    for (const [field, forge] of forgeries) {
      const doc = shardJson();
      forge(doc.skills[0]!);
      const bytes = canonicalJson(doc);
      const res = await put(`/shards/${await sha256Hex(bytes)}`, bytes);
      expect(res.status, field).toBe(422);
      expect(((await res.json()) as { message: string }).message, field).toMatch(new RegExp(`differs from its record in ${field}`));
    }
    // An entry without `listing` (as builds before it wrote) is still accepted: readers read the record.
    const legacy = shardJson();
    for (const entry of legacy.skills) delete entry.listing;
    const legacyBytes = canonicalJson(legacy);
    expect((await put(`/shards/${await sha256Hex(legacyBytes)}`, legacyBytes)).status).toBe(201);
    // A manifest must say what its shards hold: the count, the index and the shard_count.
    const manifestJson = () =>
      JSON.parse(new TextDecoder().decode(built.manifestBytes)) as {
        skill_count: number;
        shard_count: number;
        shards: Array<{ index: number; count: number }>;
      };
    const manifestForgeries: [RegExp, (m: ReturnType<typeof manifestJson>) => void][] = [
      [/holds 4 skill\(s\), it holds 3/, (m) => void ((m.shards[0]!.count = 4), (m.skill_count = 4))],
      [/totals/, (m) => void (m.skill_count += 1)],
      [/built for 1 shards, the manifest says 2/, (m) => void (m.shard_count = 2)],
      [/shard ref 1 is not below its shard_count 1/, (m) => void (m.shards[0]!.index = 1)],
    ];
    expect(manifestJson().shards).toHaveLength(1);
    for (const [message, forge] of manifestForgeries) {
      const doc = manifestJson();
      forge(doc);
      const bytes = canonicalJson(doc);
      const res = await put(`/generations/${await sha256Hex(bytes)}`, bytes);
      expect(res.status, String(message)).toBe(422);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
    await reset();

    // A manifest whose shards are absent is refused too, and the pointer cannot name an unstored generation.
    expect((await put(`/generations/${built.id}`, built.manifestBytes)).status).toBe(422);
    const move = await call(adminRequest("POST", "/pointer", { generation: built.id, previous: null }));
    expect(move.status).toBe(422);
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});

describe("request body limits", () => {
  /** A chunked body (no Content-Length) of `total` MiB, counting how many MiB were pulled. */
  function chunked(totalMiB: number, fill = 0x20): { body: ReadableStream<Uint8Array>; pulled: () => number } {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= totalMiB) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(1024 * 1024).fill(fill));
      },
    });
    return { body, pulled: () => pulled };
  }

  it("stops reading a body without Content-Length as soon as it passes the cap (413), for documents, JSON and blobs", async () => {
    const call = workerFetch(await adminEnv());
    const cases: [string, string, number, number][] = [
      ["PUT", `/records/${"a".repeat(64)}`, 64, MAX_DOCUMENT_BYTES],
      ["POST", "/missing", 64, MAX_JSON_BODY_BYTES],
      ["PUT", `/blobs/${"b".repeat(64)}`, 96, MAX_BLOB_BYTES],
    ];
    for (const [method, path, totalMiB, cap] of cases) {
      const { body, pulled } = chunked(totalMiB);
      const req = new Request(`${WORKER_URL}/admin/v1${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}` }, body, duplex: "half" } as RequestInit);
      expect(req.headers.get("Content-Length"), path).toBeNull();
      const res = await call(req);
      expect(res.status, path).toBe(413);
      expect(((await res.json()) as { error: string }).error, path).toBe("too_large");
      // It read at most the cap plus a chunk or two of lookahead, not the whole body.
      expect(pulled(), path).toBeLessThanOrEqual(cap / (1024 * 1024) + 3);
    }
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});

describe("racing publishers", () => {
  it("lets exactly one of two pointer moves from the same previous generation win", async () => {
    const v1 = await shelfV1();
    await publish(v1);
    const a = await shelfV2();
    const b = await buildGeneration([await skillInput("alpha"), await skillInput("delta")]);
    const call = workerFetch(await adminEnv());
    // Both generations fully uploaded (publishing is rerunnable; only the pointer move races).
    for (const built of [a, b]) {
      const src = memorySource(built);
      for (const o of built.objects) {
        const path = { blob: "blobs", record: "records", shard: "shards" }[o.kind];
        expect([200, 201]).toContain(
          (
            await call(
              new Request(`${WORKER_URL}/admin/v1/${path}/${o.sha256}`, {
                method: "PUT",
                headers: { Authorization: `Bearer ${TOKEN}` },
                body: (await src.read(o.kind, o.sha256)) as Uint8Array<ArrayBuffer>,
              }),
            )
          ).status,
        );
      }
    }
    // Upload order above is blobs, records, shards (objects are sorted by kind), so manifests go last.
    for (const built of [a, b]) {
      expect(
        (
          await call(
            new Request(`${WORKER_URL}/admin/v1/generations/${built.id}`, {
              method: "PUT",
              headers: { Authorization: `Bearer ${TOKEN}` },
              body: built.manifestBytes as Uint8Array<ArrayBuffer>,
            }),
          )
        ).status,
      ).toBe(201);
    }
    const [ra, rb] = await Promise.all([
      call(adminRequest("POST", "/pointer", { generation: a.id, previous: v1.id })),
      call(adminRequest("POST", "/pointer", { generation: b.id, previous: v1.id })),
    ]);
    const statuses = [ra.status, rb.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = ra.status === 200 ? a.id : b.id;
    const pointer = (await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json()) as { generation: string; seq: number; history: unknown[] };
    expect(pointer.generation).toBe(winner);
    expect(pointer.seq).toBe(2);
    expect(pointer.history).toHaveLength(2);
  });

  it("reports success when a retried pointer move or rollback conflicts with its own earlier, lost, success", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    const inner = workerFetch(await adminEnv());
    // The Worker moves the pointer, but the response is lost (a 502 from a proxy): the client
    // retries, and the retry finds the pointer no longer at `previous`.
    const losing = (path: string) => {
      let dropped = false;
      return async (r: Request) => {
        const res = await inner(r);
        if (!dropped && r.method === "POST" && new URL(r.url).pathname.endsWith(path)) {
          dropped = true;
          return new Response("bad gateway", { status: 502 });
        }
        return res;
      };
    };
    const result = await publish(v2, losing("/pointer"));
    expect(result.generation).toBe(v2.id);
    expect((await openGeneration(env))!.id).toBe(v2.id);
    const client = new AdminClient({ url: WORKER_URL, token: TOKEN, fetch: losing("/rollback"), sleep: noSleep });
    expect((await client.request(ADMIN_API.rollback, { json: { generation: v1.id, previous: v2.id } })).status).toBe(200);
    resetStorageMemory();
    expect((await openGeneration(env))!.id).toBe(v1.id);
    // A real conflict (the pointer is elsewhere) still fails with 409.
    const stale = new AdminClient({ url: WORKER_URL, token: TOKEN, fetch: inner, sleep: noSleep });
    await expect(stale.request(ADMIN_API.movePointer, { json: { generation: v2.id, previous: v2.id } })).rejects.toMatchObject({ status: 409 });
  });

  it("makes the losing publish fail with 409 and leave storage consistent", async () => {
    const v1 = await shelfV1();
    await publish(v1);
    const a = await shelfV2();
    const b = await buildGeneration([await skillInput("alpha"), await skillInput("delta")]);
    const results = await Promise.allSettled([publish(a), publish(b)]);
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(PublishError);
    expect((rejected[0]!.reason as PublishError).status).toBe(409);
    const gen = await openGeneration(env);
    const winner = (fulfilled[0] as PromiseFulfilledResult<{ generation: string }>).value.generation;
    expect(gen!.id).toBe(winner);
    // Every skill of the winner is readable end to end.
    for (const entry of await gen!.listSkills()) {
      const record = await gen!.readRecord(entry);
      for (const f of record.files) expect(await env.SHELF_BUCKET.head(r2Key("blob", f.sha256))).not.toBeNull();
    }
  });
});

describe("interrupted publish", () => {
  it("leaves readers on the previous generation, and a rerun completes it", async () => {
    const v1 = await shelfV1();
    await publish(v1);
    const v2 = await shelfV2();
    const inner = workerFetch(await adminEnv());
    for (const failAfter of [2, 4, 6, 7, 8]) {
      let calls = 0;
      const flaky = async (request: Request) => {
        if (++calls > failAfter) throw new TypeError("network connection lost");
        return inner(request);
      };
      await expect(publishGeneration(memorySource(v2), { url: WORKER_URL, token: TOKEN, fetch: flaky, sleep: noSleep, attempts: 1 })).rejects.toBeInstanceOf(
        PublishError,
      );
      resetStorageMemory();
      expect((await openGeneration(env))!.id).toBe(v1.id);
      expect((await getText("/skills/beta/references/guide.md")).text).toBe("# Guide\n\nRead me.\n");
    }
    const rerun = await publish(v2);
    expect(rerun.generation).toBe(v2.id);
    resetStorageMemory();
    expect((await openGeneration(env))!.id).toBe(v2.id);
  });

  it("retries transient failures with backoff", async () => {
    const inner = workerFetch(await adminEnv());
    let failures = 0;
    const waits: number[] = [];
    const flaky = async (request: Request) => {
      if (failures < 2) {
        failures++;
        return new Response("busy", { status: 503, headers: { "Retry-After": "1" } });
      }
      return inner(request);
    };
    const result = await publishGeneration(memorySource(await shelfV1()), {
      url: WORKER_URL,
      token: TOKEN,
      fetch: flaky,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(result.uploaded.generation).toBe(1);
    expect(waits).toEqual([1000, 1000]);
  });
});

describe("history and rollback", () => {
  it("rolls back to an earlier generation and records it", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    await publish(v2);
    const call = workerFetch(await adminEnv());
    const rolled = await call(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }));
    expect(rolled.status).toBe(200);
    const listed = (await (await call(adminRequest("GET", "/history"))).json()) as {
      current: string;
      history: { generation: string; action: string; seq: number }[];
    };
    expect(listed.current).toBe(v1.id);
    expect(listed.history.map((h) => [h.seq, h.action, h.generation])).toEqual([
      [3, "rollback", v1.id],
      [2, "publish", v2.id],
      [1, "publish", v1.id],
    ]);
    expect((await getText("/skills/beta/references/guide.md")).text).toBe("# Guide\n\nRead me.\n");
    // The rolled-back-from generation stays readable by id; an unknown id is null.
    const pinned = await openGenerationById(env, v2.id);
    expect(pinned?.manifest.shards).toEqual(v2.manifest.shards);
    expect(await openGenerationById(env, "f".repeat(64))).toBeNull();
    expect(await openGenerationById(env, "../pointer.json")).toBeNull();
    const history = await call(adminRequest("GET", "/history"));
    expect(history.headers.get("Cache-Control")).toBe("no-store");
    // A stale rollback (previous no longer current) conflicts; an unknown generation is 404.
    expect((await call(adminRequest("POST", "/rollback", { generation: v2.id, previous: v2.id }))).status).toBe(409);
    expect((await call(adminRequest("POST", "/rollback", { generation: "e".repeat(64), previous: v1.id }))).status).toBe(404);
  });
});

describe("/v1/shelf revalidation", () => {
  it("changes its ETag when a publish and a rollback return to the same generation (published_at changed)", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    const call = workerFetch(await adminEnv());
    resetStorageMemory();
    const first = await call(new Request(`${WORKER_URL}/v1/shelf`));
    const etag = first.headers.get("ETag")!;
    const before = (await first.json()) as { generation: string; published_at: string };
    await new Promise((r) => setTimeout(r, 5)); // a later published_at
    await publish(v2);
    expect((await call(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }))).status).toBe(200);
    resetStorageMemory();
    const cond = await call(new Request(`${WORKER_URL}/v1/shelf`, { headers: { "If-None-Match": etag } }));
    expect(cond.status).toBe(200);
    const after = (await cond.json()) as { generation: string; published_at: string };
    expect(after.generation).toBe(before.generation);
    expect(after.published_at).not.toBe(before.published_at);
    expect(cond.headers.get("ETag")).not.toBe(etag);
    // Unchanged, it still revalidates to 304.
    expect((await call(new Request(`${WORKER_URL}/v1/shelf`, { headers: { "If-None-Match": cond.headers.get("ETag")! } }))).status).toBe(304);
  });
});

describe("advisories published after a build", () => {
  it("block a skill on every route, and a rollback does not bring it back", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    await publish(v2);
    const gen = await openGeneration(env);
    const gamma = (await gen!.findSkill("gamma"))!;
    expect((await getText("/skills/gamma/SKILL.md")).status).toBe(200);

    const call = workerFetch(await adminEnv());
    const advisory = {
      name: "gamma",
      source: "elsewhere",
      official_intent: "Runs a greeting script.",
      hidden_issue: "The script exfiltrates environment variables.",
      severity: "low",
      reference: "https://example.com/ASA-TEST-1",
      tree_hash: gamma.tree_hash,
      advisory_id: "ASA-TEST-1",
    };
    const res = await call(adminRequest("POST", "/advisories", { advisories: [advisory] }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { changed: boolean }).changed).toBe(true);

    // A new isolate (or one whose 30 s memory TTL has passed) applies it at once.
    resetStorageMemory();
    const blockedRoutes = [
      "/skills/gamma/SKILL.md",
      "/skills/gamma/scripts/run.py",
      "/skills/gamma/index.json",
      "/.well-known/agent-skills/gamma/SKILL.md",
      "/.well-known/agent-skills/gamma.tar.gz",
      "/.well-known/agent-skills/gamma.zip",
      "/.well-known/skills/gamma/SKILL.md",
      `/g/${v2.id}/skills/gamma/SKILL.md`,
      `/g/${v1.id}/.well-known/agent-skills/gamma.tar.gz`,
    ];
    for (const path of blockedRoutes) {
      const r = await getText(path);
      expect(r.status, path).toBe(410);
      expect(r.text).toContain("ASA-TEST-1");
    }
    for (const index of [
      "/skills/index.json",
      "/.well-known/agent-skills/index.json",
      "/.well-known/skills/index.json",
      `/g/${v1.id}/.well-known/agent-skills/index.json`,
    ]) {
      const r = await getText(index);
      expect(r.status, index).toBe(200);
      expect(r.text, index).not.toContain("gamma");
      expect(r.text, index).toContain("alpha");
    }
    expect((await getText("/skills/alpha/SKILL.md")).status).toBe(200);

    // Roll back to v1: gamma's tree hash is the same there, and the advisory is in force.
    expect((await call(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }))).status).toBe(200);
    expect((await getText("/skills/gamma/SKILL.md")).status).toBe(410);

    // The same advisory again is no change (whatever order its keys arrive in).
    const same = await call(adminRequest("POST", "/advisories", { advisories: [Object.fromEntries(Object.entries(advisory).reverse())] }));
    expect(((await same.json()) as { changed: boolean }).changed).toBe(false);
    // Republishing advisories without the entry never drops it; a withdrawal replaces it.
    const again = await call(adminRequest("POST", "/advisories", { advisories: [] }));
    expect(((await again.json()) as { changed: boolean }).changed).toBe(false);
    await call(adminRequest("POST", "/advisories", { advisories: [{ ...advisory, status: "withdrawn", withdrawn_reason: "false alarm" }] }));
    expect((await getText("/skills/gamma/SKILL.md")).status).toBe(200);
  });

  it("reach an isolate within the memory TTL given by its clock", async () => {
    await publish(await shelfV1());
    let now = 1_000_000;
    const clock = () => now;
    expect((await openGeneration(env, { clock }))!.advisories).toHaveLength(0);
    const call = workerFetch(await adminEnv());
    const gamma = (await (await openGeneration(env, { clock }))!.findSkill("gamma"))!;
    await call(
      adminRequest("POST", "/advisories", {
        advisories: [{ name: "gamma", source: "x", official_intent: "i", hidden_issue: "h", severity: "critical", reference: "r", tree_hash: gamma.tree_hash }],
      }),
    );
    now += 29_000;
    expect((await openGeneration(env, { clock }))!.advisories).toHaveLength(0);
    now += 2_000;
    expect((await openGeneration(env, { clock }))!.advisories).toHaveLength(1);
  });

  it("refuses malformed advisories, changing nothing", async () => {
    const call = workerFetch(await adminEnv());
    const res = await call(adminRequest("POST", "/advisories", { advisories: [{ name: "x", severity: "catastrophic" }] }));
    expect(res.status).toBe(422);
    expect(await env.SHELF_BUCKET.head("advisories.json")).toBeNull();
  });
});

describe("gc", () => {
  // Older shard documents: shard/1 without entry paths (before the shard/2 upgrade), and the
  // earliest shard/1 without a blob list either, which gc must read through its records.
  it.each([
    ["without entry paths", false],
    ["without entry paths or a blob list", true],
  ])("reads shard/1 documents %s and keeps their blobs", async (_label, dropBlobList) => {
    const v1 = await shelfV1();
    await publish(v1);
    for (const o of v1.objects.filter((x) => x.kind === "shard")) {
      const old = JSON.parse(new TextDecoder().decode(o.bytes)) as { schema: string; blobs?: unknown; skills: Array<Record<string, unknown>> };
      old.schema = "skillshelf.shard/1";
      if (dropBlobList) delete old.blobs;
      for (const e of old.skills) delete e.paths;
      await env.SHELF_BUCKET.put(r2Key("shard", o.sha256), canonicalJson(old));
    }
    const res = await workerFetch(await adminEnv())(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0 }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { deletable: Record<string, number> }).deletable).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });
    await reset();
  });

  it("is a dry run by default and never deletes a blob a kept generation references", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    await publish(v2);
    const call = workerFetch(await adminEnv());
    const before = await bucketKeys(env.SHELF_BUCKET);

    // Within the grace period nothing is deletable.
    const graced = (await (await call(adminRequest("POST", "/gc", { keep: 0 }))).json()) as { deletable: Record<string, number> };
    expect(graced.deletable).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });

    // grace_seconds 0 cannot undercut the minimum grace: objects uploaded within the hour stay.
    const unGraced = (await (await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0 }))).json()) as GcReport;
    expect(unGraced.deletable).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });
    expect(unGraced.grace_seconds).toBe(MIN_GC_GRACE_SECONDS);

    // An hour later, keeping only the current generation, v1-only objects are deletable; dry run deletes nothing.
    const dry = (await pastMinGrace(async () => (await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0 }))).json())) as {
      applied: boolean;
      deletable: Record<string, number>;
    };
    expect(dry.applied).toBe(false);
    expect(dry.deletable).toEqual({ generation: 1, shard: 1, record: 1, blob: 4 });
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual(before);

    // keep=1 keeps v1 too: nothing to delete.
    const keepOne = (await pastMinGrace(async () => (await call(adminRequest("POST", "/gc", { keep: 1, grace_seconds: 0 }))).json())) as {
      deletable: Record<string, number>;
    };
    expect(keepOne.deletable).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });

    const applied = (await pastMinGrace(async () => (await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }))).json())) as {
      deleted: Record<string, number>;
    };
    expect(applied.deleted).toEqual({ generation: 1, shard: 1, record: 1, blob: 4 });
    expect(await env.SHELF_BUCKET.head(r2Key("generation", v1.id))).toBeNull();
    // Everything v2 references is still there, including blobs v1 shared with it.
    for (const o of v2.objects) expect(await env.SHELF_BUCKET.head(r2Key(o.kind, o.sha256)), `${o.kind} ${o.sha256}`).not.toBeNull();
    resetStorageMemory();
    expect((await getText("/skills/gamma/scripts/run.py")).text).toBe("print('hello')\n");
    // Rolling back to a collected generation is refused, saying gc collected it and how to republish it.
    const rolled = await call(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }));
    expect(rolled.status).toBe(410);
    const refusal = (await rolled.json()) as { error: string; message: string };
    expect(refusal.error).toBe("generation_collected");
    expect(refusal.message).toMatch(new RegExp(`generation ${v1.id} was collected by gc.*skillshelf build.*skillshelf publish`));
    expect(refusal.message).not.toMatch(/upload its manifest/);
    // gc released its lease and left the pointer alone.
    expect(await env.SHELF_BUCKET.head(R2_GC_LEASE_KEY)).toBeNull();
    const pointer = (await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json()) as Record<string, unknown>;
    expect([pointer.generation, pointer.seq]).toEqual([v2.id, 2]);

    // Defence in depth: a generation whose objects are gone cannot become current, because the
    // pointer move re-checks what it does not share with the current generation.
    await env.SHELF_BUCKET.put(r2Key("generation", v1.id), v1.manifestBytes);
    const stale = await call(adminRequest("POST", "/pointer", { generation: v1.id, previous: v2.id }));
    expect(stale.status).toBe(422);
    expect(((await stale.json()) as { message: string }).message).toMatch(/no longer stored \(collected by gc\); rerun publish/);
    await env.SHELF_BUCKET.delete(r2Key("generation", v1.id));
    expect((await publish(v1)).generation).toBe(v1.id); // publishing it again uploads what gc removed
  });

  it("makes a collected pinned generation 404 on a warm isolate once its R2 check expires, and on a cold one", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    await publish(v2);
    const call = workerFetch(await adminEnv());
    const pinned = `${WORKER_URL}/g/${v1.id}`;
    // Warm this isolate on the pinned, no longer current generation.
    expect((await call(new Request(`${pinned}/.well-known/agent-skills/index.json`))).status).toBe(200);
    expect((await call(new Request(`${pinned}/skills/beta/references/guide.md`))).status).toBe(200);
    const t0 = Date.now();
    expect(await openGenerationById(env, v1.id, { clock: () => t0 })).not.toBeNull();
    expect((await pastMinGrace(() => call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })))).status).toBe(200);
    expect(await env.SHELF_BUCKET.head(r2Key("generation", v1.id))).toBeNull();
    // Within PINNED_CHECK_TTL_MS the isolate may still answer from memory; after it, R2 decides.
    expect(await openGenerationById(env, v1.id, { clock: () => t0 + PINNED_CHECK_TTL_MS })).toBeNull();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(t0 + PINNED_CHECK_TTL_MS + 1_000);
      for (const path of ["/.well-known/agent-skills/index.json", "/skills/index.json", "/skills/beta/references/guide.md", "/v1/shelf"]) {
        expect((await call(new Request(`${pinned}${path}`))).status, path).toBe(404);
      }
    } finally {
      vi.useRealTimers();
    }
    // A cold isolate with a leftover KV copy of the manifest (KV deletes are capped) also says 404.
    resetStorageMemory();
    await env.SHELF_KV.put(`gen:${v1.id}`, new TextDecoder().decode(v1.manifestBytes));
    expect((await call(new Request(`${pinned}/.well-known/agent-skills/index.json`))).status).toBe(404);
    // The current generation is unaffected.
    expect((await call(new Request(`${WORKER_URL}/g/${v2.id}/skills/beta/references/guide.md`))).status).toBe(200);
  });

  it("keeps every binding operation of an applying gc within the per-invocation limit, leaving surplus KV copies", async () => {
    const v1 = await shelfV1();
    await publish(v1);
    const shardBytes = v1.objects.find((o) => o.kind === "shard")!.bytes;
    // 700 old, unreferenced records with KV copies (to delete), then 600 young shards (kept by
    // the grace period, and read: gc reads every surviving shard), so planning alone takes ~610
    // operations and the KV deletes must fit in what is left.
    const hex = (prefix: string, i: number) => (prefix + i.toString(16)).padStart(64, "0");
    const junk = Array.from({ length: 700 }, (_, i) => hex("a", i));
    for (let i = 0; i < junk.length; i += 50) {
      await Promise.all(
        junk.slice(i, i + 50).map(async (sha) => {
          await env.SHELF_BUCKET.put(r2Key("record", sha), "{}");
          await env.SHELF_KV.put(`record:${sha}`, "{}");
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 20));
    const boundary = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 600; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => env.SHELF_BUCKET.put(r2Key("shard", hex("b", i + j)), shardBytes)));
    }
    const counts = newCounts();
    const bindings = await adminEnv(counts);
    // The minimum grace ending at `boundary`: the records are older, the shards younger.
    const gc = new GarbageCollector(new AdminStorage(bindings), { clock: () => boundary + MIN_GC_GRACE_SECONDS * 1000, sleep: async () => {}, settleMs: 0 });
    const report = await gc.run({ keep: 0, graceSeconds: 0, apply: true });
    const ops = total(counts, "R2.") + total(counts, "KV.");
    expect(ops).toBeLessThanOrEqual(GC_MAX_OPERATIONS - GC_OPERATION_MARGIN);
    expect(ops).toBeGreaterThan(900); // it did use what was left for KV deletes
    expect(report.deleted.record).toBe(700);
    for (const sha of junk.slice(0, 5)) expect(await env.SHELF_BUCKET.head(r2Key("record", sha))).toBeNull();
    // Some KV copies are left behind (harmless: nothing references them); some were deleted.
    const junkKeys = new Set(junk.map((sha) => `record:${sha}`));
    const leftInKv = (await env.SHELF_KV.list({ prefix: "record:" })).keys.filter((k) => junkKeys.has(k.name)).length;
    expect(leftInKv).toBeGreaterThan(0);
    expect(leftInKv).toBeLessThan(700);
    expect(await env.SHELF_BUCKET.head(R2_GC_LEASE_KEY)).toBeNull();
  });

  it("stops before deleting when its lease is about to expire (planning took too long), with storage consistent", async () => {
    const v1 = await shelfV1();
    const v2 = await shelfV2();
    await publish(v1);
    await publish(v2);
    let now = Date.now() + (MIN_GC_GRACE_SECONDS + 60) * 1000;
    // The settle wait stands in for slow listing: it leaves the lease with less than the minimum.
    const gc = new GarbageCollector(new AdminStorage(await adminEnv()), {
      clock: () => now,
      sleep: async () => void (now += GC_LEASE_MS - GC_LEASE_MIN_LEFT_MS + 1),
      settleMs: 1,
    });
    const err = await gc.run({ keep: 0, graceSeconds: 0, apply: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShelfError);
    expect((err as ShelfError).status).toBe(503);
    expect((err as ShelfError).message).toMatch(/lease has \d+ s left .*Deleted so far: 0 generation\(s\).*Rerun gc --apply/);
    // Nothing was deleted, the lease was released, and v1 is still whole.
    expect(await env.SHELF_BUCKET.head(r2Key("generation", v1.id))).not.toBeNull();
    expect(await env.SHELF_BUCKET.head(R2_GC_LEASE_KEY)).toBeNull();
    // With time to spare it proceeds.
    const ok = new GarbageCollector(new AdminStorage(await adminEnv()), { clock: () => now, sleep: async () => {}, settleMs: 0 });
    expect((await ok.run({ keep: 0, graceSeconds: 0, apply: true })).deleted.generation).toBe(1);
  });

  it("holds uploads and pointer moves back while it lists and deletes, and refuses to run twice at once", async () => {
    const v1 = await shelfV1();
    await publish(v1);
    // As gc does while it runs: a lease object with its expiry.
    await env.SHELF_BUCKET.put(R2_GC_LEASE_KEY, "", { customMetadata: { until: new Date(Date.now() + 60_000).toISOString() } });
    const call = workerFetch(await adminEnv());
    const v2 = await shelfV2();
    const blocked = await publishGeneration(memorySource(v2), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep, attempts: 2 }).catch(
      (e: unknown) => e,
    );
    expect(blocked).toBeInstanceOf(PublishError);
    expect((blocked as PublishError).message).toMatch(/503/);
    const move = await call(adminRequest("POST", "/pointer", { generation: v2.id, previous: v1.id }));
    expect(move.status).toBe(503);
    expect(Number(move.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(move.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
    expect((await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }))).status).toBe(409);
    const record = v2.objects.find((o) => o.kind === "record" && !v1.objects.some((p) => p.sha256 === o.sha256))!;
    const upload = await call(
      new Request(`${WORKER_URL}/admin/v1/records/${record.sha256}`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${TOKEN}` },
        body: record.bytes as Uint8Array<ArrayBuffer>,
      }),
    );
    expect(upload.status).toBe(503);
    // Once the lease has expired, the same publish goes through.
    await env.SHELF_BUCKET.put(R2_GC_LEASE_KEY, "", { customMetadata: { until: new Date(Date.now() - 1000).toISOString() } });
    expect((await publish(v2)).generation).toBe(v2.id);
    const gc = await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }));
    expect(gc.status).toBe(200);
    expect(await env.SHELF_BUCKET.head(R2_GC_LEASE_KEY)).toBeNull();
  });
});

describe("a private shelf", () => {
  it("publishes with the publish token, which grants no reads", async () => {
    const privateEnv = { ...(await adminEnv()), SHELF_VISIBILITY: "private" };
    const call = workerFetch(privateEnv);
    const built = await shelfV1();
    const result = await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    expect(result.uploaded.generation).toBe(1);
    resetStorageMemory();
    const read = await call(new Request(`${WORKER_URL}/skills/alpha/SKILL.md`, { headers: { Authorization: `Bearer ${TOKEN}` } }));
    expect(read.status).toBe(401);
  });
});
