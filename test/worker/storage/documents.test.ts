// The cache tiers of src/worker/storage/documents.ts: memory, then KV, then R2; KV failures,
// misses, malformed copies and copies that do not hash to their key fall back to R2; R2 bytes
// that do not hash to their key are a storage failure; the KV byte budget and the memory
// accounting; in-flight loads shared within a request only.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import {
  forgetDocument,
  MEMORY_COST_PER_TEXT_CHAR,
  readDocument,
  RequestReads,
  SHARD_COST_PER_TEXT_CHAR,
  storageMemoryBytes,
} from "../../../src/worker/storage/documents.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { openGeneration, resetStorageMemory, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
import { LIVE_MEMORY_TTL_MS } from "../../../src/worker/storage/live.ts";
import { KV_POINTER_KEY, kvKey, r2Key } from "../../../src/worker/storage/keys.ts";
import { adminEnv, buildGeneration, memorySource, newCounts, skillInput, TOKEN, total, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { failingKv, publishShelf } from "./helpers.ts";

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

describe("the KV byte budget", () => {
  it("counts UTF-8 bytes as stored, not UTF-16 length", async () => {
    const skill = await skillInput("multibyte");
    skill.record.description = "Çà et là, ünïcödé: ".repeat(200) + "✓".repeat(500);
    const built = await buildGeneration([skill]);
    await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: async () => {} });
    resetStorageMemory();
    const counts = newCounts();
    const gen = (await openGeneration(await adminEnv(counts)))!;
    const entry = (await gen.findSkill("multibyte"))!;
    await gen.readRecord(entry);
    // Cold isolate: pointer and advisories come from R2; manifest, shard and record from KV.
    const stored = built.manifestBytes.length + built.objects.filter((o) => o.kind !== "blob").reduce((n, o) => n + o.bytes.length, 0);
    expect(gen.kvBytesRead).toBe(stored);
    expect(counts.kvBytesRead).toBe(stored);
  });
});

describe("the memory cache", () => {
  it("accounts each parsed document at MEMORY_COST_PER_TEXT_CHAR (a shard SHARD_COST_PER_TEXT_CHAR) times its JSON text, not the text length", async () => {
    const built = await publishShelf(["alpha", "beta"]);
    resetStorageMemory();
    const gen = (await openGeneration(env))!;
    const entry = (await gen.findSkill("beta"))!;
    await gen.readRecord(entry);
    const shardRef = built.manifest.shards.find((s) => s.sha256 === built.manifest.shards[0]!.sha256)!;
    const texts = await Promise.all([
      env.SHELF_BUCKET.get(`generations/${built.id}`).then((o) => o!.text()),
      env.SHELF_BUCKET.get(`shards/${shardRef.sha256}`).then((o) => o!.text()),
      env.SHELF_BUCKET.get(`records/${entry.record.sha256}`).then((o) => o!.text()),
    ]);
    expect(built.manifest.shards).toHaveLength(1);
    expect(MEMORY_COST_PER_TEXT_CHAR).toBeGreaterThanOrEqual(2);
    expect(SHARD_COST_PER_TEXT_CHAR).toBeGreaterThanOrEqual(1.5);
    const [manifest, shard, record] = texts.map((t) => t.length);
    expect(storageMemoryBytes()).toBe(MEMORY_COST_PER_TEXT_CHAR * (manifest! + record!) + Math.ceil(SHARD_COST_PER_TEXT_CHAR * shard!));
  });
});

describe("a listing's shards in memory", () => {
  /** Stores `count` record documents of about 1 MiB of JSON each and reads them through the cache (over 44 MiB estimated in all). */
  async function readBigRecords(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const text = JSON.stringify({ filler: `${i}:${"x".repeat(1024 * 1024)}` });
      const sha256 = await sha256Hex(new TextEncoder().encode(text));
      await env.SHELF_BUCKET.put(r2Key("record", sha256), text);
      await readDocument(env, "record", sha256, text.length, new RequestReads(), (t) => JSON.parse(t) as unknown);
    }
  }

  it("stay there whatever records are read after them: a warm listing reads no shard", async () => {
    const built = await publishShelf(["alpha", "beta", "gamma"]);
    resetStorageMemory();
    const first = await (await openGeneration(env))!.listSkills();
    expect(first.map((e) => e.name)).toEqual(["alpha", "beta", "gamma"]);
    // Records enough to fill one budget shared with the shards several times over.
    await readBigRecords(25);
    // Opening may read the manifest again (records and manifests share their own budget); the listing reads nothing.
    const counts = newCounts();
    const gen = (await openGeneration(await adminEnv(counts)))!;
    expect(gen.id).toBe(built.id);
    const opened = { ...counts.calls };
    expect(await gen.listSkills()).toEqual(first);
    expect(counts.calls).toEqual(opened);
  });

  it("lists the same after a shard is forgotten, reading only that shard again; callers get their own array", async () => {
    const built = await publishShelf(["alpha", "beta", "gamma"]);
    resetStorageMemory();
    const first = await (await openGeneration(env))!.listSkills();
    first.reverse();
    const again = await (await openGeneration(env))!.listSkills();
    expect(again.map((e) => e.name)).toEqual(["alpha", "beta", "gamma"]);
    forgetDocument("shard", built.manifest.shards[0]!.sha256);
    const counts = newCounts();
    const reread = await (await openGeneration(await adminEnv(counts)))!.listSkills();
    expect(reread).toEqual(again);
    expect(reread[0]).not.toBe(again[0]); // parsed afresh, not the forgotten shard's entries
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(1);
  });
});

describe("in-flight loads", () => {
  it("are shared within a request but never across requests (a promise is bound to its request's I/O)", async () => {
    const built = await publishShelf(["alpha", "beta"]);
    resetStorageMemory();
    const counts = newCounts();
    const counted = await adminEnv(counts);
    // Two cold requests at once: each reads the pointer, advisories and manifest itself.
    const [a, b] = await Promise.all([openGeneration(counted), openGeneration(counted)]);
    expect(a!.id).toBe(built.id);
    expect(b!.id).toBe(built.id);
    expect(counts.calls["R2.get"]).toBe(4); // pointer and advisories, twice
    expect(counts.calls["KV.get"]).toBe(2); // the manifest, twice
    // Within one request, concurrent lookups of one shard read it once.
    resetStorageMemory();
    const gen = (await openGeneration(counted))!;
    const before = total(counts, "R2.") + total(counts, "KV.");
    const found = await Promise.all([gen.findSkill("alpha"), gen.findSkill("beta"), gen.findSkill("alpha")]);
    expect(found.map((e) => e?.name)).toEqual(["alpha", "beta", "alpha"]);
    expect(total(counts, "R2.") + total(counts, "KV.") - before).toBe(1);
  });
});

describe("memory, then KV, then R2", () => {
  it("serves from R2 when KV fails or misses, and never writes KV", async () => {
    const built = await publishShelf(["alpha", "beta"]);
    resetStorageMemory();
    const counts = newCounts();
    const withoutKv = { ...(await adminEnv(counts)), SHELF_KV: failingKv() };
    const gen = await openGeneration(withoutKv);
    expect(gen!.id).toBe(built.id);
    const entry = (await gen!.findSkill("beta"))!;
    const record = await gen!.readRecord(entry);
    const opened = await gen!.openBlob(record.files[0]!.sha256);
    expect(await new Response(opened!.body).text()).toContain("name: beta");

    // KV emptied (a cold edge): everything still resolves from R2.
    resetStorageMemory();
    for (const { name } of (await env.SHELF_KV.list()).keys) await env.SHELF_KV.delete(name);
    const cold = newCounts();
    const gen2 = await openGeneration(await adminEnv(cold));
    expect((await gen2!.listSkills()).map((s) => s.name)).toEqual(["alpha", "beta"]);
    expect(cold.calls["KV.put"] ?? 0).toBe(0);
  });

  it("reads R2 when a KV copy is malformed (pointer, advisories, manifest, shard, record) instead of answering 503", async () => {
    let now = 7_000_000;
    const clock = () => now;
    const v1 = await publishShelf(["alpha"]);
    expect((await openGeneration(env, { clock }))!.id).toBe(v1.id); // cold: pointer from R2
    const v2 = await publishShelf(["alpha", "beta"]);
    const gen = v2.manifest;
    const shardKey = kvKey("shard", gen.shards[0]!.sha256);
    const shard = JSON.parse((await env.SHELF_KV.get(shardKey))!) as { skills: { name: string; record: { sha256: string } }[] };
    const recordKey = kvKey("record", shard.skills.find((s) => s.name === "beta")!.record.sha256);
    // A pointer naming something that is not a generation id, and documents that are not JSON
    // or not their schema: each a broken cache entry, none the truth.
    await env.SHELF_KV.put(KV_POINTER_KEY, JSON.stringify({ generation: "../pointer.json", seq: 99, published_at: "x" }));
    await env.SHELF_KV.put("advisories", "{not json");
    await env.SHELF_KV.put(kvKey("generation", v2.id), "{not json");
    await env.SHELF_KV.put(shardKey, JSON.stringify({ schema: "wrong" }));
    await env.SHELF_KV.put(recordKey, "[]");
    now += LIVE_MEMORY_TTL_MS; // memory stale, R2 revalidation not due: KV is asked first
    const opened = await openGeneration(env, { clock });
    expect(opened!.id).toBe(v2.id);
    expect(opened!.seq).toBe(2);
    expect((await opened!.listSkills()).map((s) => s.name)).toEqual(["alpha", "beta"]);
    const entry = (await opened!.findSkill("beta"))!;
    expect((await opened!.readRecord(entry)).name).toBe("beta");
  });

  it("reads each cached document from KV when memory is cold, not from R2", async () => {
    await publishShelf(["alpha", "beta"]);
    // Warm the pointer (cold isolates read it from R2), then drop the documents from memory.
    const now = 10_000_000;
    await openGeneration(env, { clock: () => now });
    const counts = newCounts();
    const counted = await adminEnv(counts);
    const gen = await openGeneration(counted, { clock: () => now });
    const entry = (await gen!.findSkill("alpha"))!;
    await gen!.readRecord(entry);
    // Pointer, advisories and manifest from memory; the shard and the record from KV (the admin
    // API cached them at upload): nothing from R2.
    expect(counts.calls["R2.get"] ?? 0).toBe(0);
    expect(counts.calls["KV.get"]).toBe(2);
    expect(await env.SHELF_KV.get(kvKey("record", entry.record.sha256))).not.toBeNull();
  });
});

describe("content addresses", () => {
  it("uses a KV copy only when it hashes to its key: an older manifest stored under the current id is not served", async () => {
    const v1 = await publishShelf(["alpha"]);
    const v2 = await publishShelf(["alpha", "beta"]);
    // A valid manifest, but v1's, under v2's key (a bad `kv put`, or someone with KV write access).
    await env.SHELF_KV.put(kvKey("generation", v2.id), new TextDecoder().decode(v1.manifestBytes));
    resetStorageMemory();
    const gen = (await openGeneration(env))!;
    expect(gen.id).toBe(v2.id);
    expect(gen.manifest).toEqual(v2.manifest);
    expect((await gen.listSkills()).map((s) => s.name)).toEqual(["alpha", "beta"]);
  });

  it("uses a KV copy only when it hashes to its key: records rotated among their keys are not served", async () => {
    const built = await publishShelf(["alpha", "beta", "gamma"]);
    const records = built.objects.filter((o) => o.kind === "record");
    const texts = records.map((r) => new TextDecoder().decode(r.bytes));
    // Each record key now holds the next skill's record: every copy valid JSON of the right schema.
    for (const [i, record] of records.entries()) await env.SHELF_KV.put(kvKey("record", record.sha256), texts[(i + 1) % texts.length]!);
    resetStorageMemory();
    const gen = (await openGeneration(env))!;
    for (const name of ["alpha", "beta", "gamma"]) {
      const entry = (await gen.findSkill(name))!;
      expect((await gen.readRecord(entry)).name).toBe(name);
    }
  });

  it("checks each KV copy once per isolate: a warm read costs no hashing and no storage", async () => {
    await publishShelf(["alpha"]);
    resetStorageMemory();
    const now = 60_000_000;
    const gen = (await openGeneration(env, { clock: () => now }))!;
    await gen.readRecord((await gen.findSkill("alpha"))!);
    const counts = newCounts();
    const warm = (await openGeneration(await adminEnv(counts), { clock: () => now }))!;
    expect((await warm.readRecord((await warm.findSkill("alpha"))!)).name).toBe("alpha");
    expect(counts.calls).toEqual({});
  });

  it("answers StorageUnavailableError, never the document, when R2's copy does not hash to its key", async () => {
    const built = await publishShelf(["alpha", "beta"]);
    const alpha = built.objects.find((o) => o.kind === "record" && new TextDecoder().decode(o.bytes).includes('"name":"alpha"'))!;
    const beta = built.objects.find((o) => o.kind === "record" && o.sha256 !== alpha.sha256)!;
    await env.SHELF_KV.delete(kvKey("record", alpha.sha256));
    await env.SHELF_BUCKET.put(r2Key("record", alpha.sha256), beta.bytes);
    resetStorageMemory();
    const gen = (await openGeneration(env))!;
    await expect(gen.readRecord((await gen.findSkill("alpha"))!)).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
