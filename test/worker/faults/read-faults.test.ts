// The read side under storage faults (issue 11, docs/reliability.md's fault matrix): R2 and KV
// wrapped to fail, answer late, answer wrong, truncated or swapped objects, objects without
// checksums, or lose writes, and KV
// tampered with (values rotated among keys of one kind, an older manifest under the current id,
// forged pointer and advisories seqs). Every read route must answer exactly what it answers
// without the fault, or 503; never other bytes, and never a complete 200 whose body is wrong (a
// large body may instead be cut off before its last chunk). The one exception is the named,
// accepted risk: bytes altered at rest inside R2 under their upload checksum are served when the
// object is over 64 KiB. Each answer names its generation.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { CHECKED_BEFORE_ANSWER_BYTES } from "../../../src/worker/http/checked-body.ts";
import { GENERATION_HEADER } from "../../../src/worker/http/headers.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { KV_ADVISORIES_KEY, KV_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { LIVE_MEMORY_TTL_MS, LIVE_R2_REVALIDATE_MS } from "../../../src/worker/storage/live.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { faultyBucket, faultyKv, flipByte, type KvFault, pseudoRandomBytes, type R2Fault } from "./faulty-bindings.ts";
import { advisoryFor } from "../fixture-shelf.ts";

/** Over CHECKED_BEFORE_ANSWER_BYTES (and 1 MiB): believed on R2's checksum, streamed and hashed without one. */
const BIG = pseudoRandomBytes(1_250_000, 1);
/** Over CHECKED_BEFORE_ANSWER_BYTES too, smaller. */
const MEDIUM = pseudoRandomBytes(200_000, 2);
/** Enough skills for two shards. */
const FILLERS = Array.from({ length: 62 }, (_, i) => `filler-${String(i).padStart(2, "0")}`);

let v1: BuiltGeneration;
let v2: BuiltGeneration;

async function publish(built: BuiltGeneration, workerEnv?: object): Promise<void> {
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(workerEnv ?? (await adminEnv())), sleep: async () => {} });
}

/** Builds the two fixture generations (v1: one skill; v2: 66 skills over two shards, a large file, a blocked skill). */
async function buildFixture(): Promise<{ v1: BuiltGeneration; v2: BuiltGeneration; advisory: Record<string, unknown> }> {
  const first = await buildGeneration([await skillInput("solo")]);
  const bad = await skillInput("bad-skill", { "references/y.md": "y\n" });
  const skills = [
    await skillInput("solo"),
    await skillInput("nested", { "references/guide.md": "# Guide\n\nRead me.\n" }),
    await skillInput("large", { "references/big.bin": BIG, "references/medium.bin": MEDIUM }),
    bad,
  ];
  for (const name of FILLERS) skills.push(await skillInput(name));
  const second = await buildGeneration(skills);
  expect(second.manifest.shards.length).toBe(2);
  const advisory = advisoryFor("bad-skill", { official_intent: "does one thing", tree_hash: bad.record.tree_hash, advisory_id: "ADV-FAULTS-1" });
  return { v1: first, v2: second, advisory };
}

/** Publishes the fixture through the admin API (so KV holds the copies it writes) with a blocking advisory. */
async function publishFixture(workerEnv?: object): Promise<void> {
  const built = await buildFixture();
  v1 = built.v1;
  v2 = built.v2;
  await publish(v1, workerEnv);
  await publish(v2, workerEnv);
  const res = await workerFetch(workerEnv ?? (await adminEnv()))(adminRequest("POST", "/advisories", { advisories: [built.advisory] }));
  expect(res.status).toBe(200);
}

/** One request of the matrix. */
interface Probe {
  label: string;
  path: string;
  init: RequestInit;
  /**
   * A file GET of an object over CHECKED_BEFORE_ANSWER_BYTES: believed on R2's checksum (so bytes
   * altered at rest are served), hashed as it streams without one (a bad body may be cut off instead of a 503).
   */
  streamed?: boolean;
  /** Reads a blob (GET or HEAD of a file or archive). */
  blob?: boolean;
}

function probes(): Probe[] {
  const out: Probe[] = [];
  const routes: Array<[string, Partial<Probe>]> = [
    ["/skills/index.json", {}],
    ["/skills/nested/index.json", {}],
    ["/skills/filler-07/index.json", {}],
    ["/skills/solo/SKILL.md", { blob: true }],
    ["/skills/nested/references/guide.md", { blob: true }],
    ["/skills/large/references/medium.bin", { blob: true, streamed: true }],
    ["/skills/large/references/big.bin", { blob: true, streamed: true }],
    ["/skills/bad-skill/SKILL.md", {}],
    ["/skills/bad-skill/references/y.md", {}],
    ["/.well-known/agent-skills/index.json", {}],
    ["/.well-known/agent-skills/nested.tar.gz", { blob: true }],
    ["/.well-known/agent-skills/nested.zip", { blob: true }],
    ["/.well-known/agent-skills/large.zip", { blob: true, streamed: true }],
    ["/.well-known/agent-skills/filler-31/SKILL.md", { blob: true }],
    ["/.well-known/skills/index.json", {}],
    ["/.well-known/skills/nested/references/guide.md", { blob: true }],
    ["/v1/shelf", {}],
    [`/g/${v2.id}/skills/nested/references/guide.md`, { blob: true }],
    [`/g/${v2.id}/.well-known/agent-skills/index.json`, {}],
    [`/g/${v1.id}/skills/solo/SKILL.md`, { blob: true }],
    [`/g/${v1.id}/skills/index.json`, {}],
  ];
  for (const [path, flags] of routes) {
    out.push({ label: `GET ${path}`, path, init: {}, ...flags });
    if (flags.blob) out.push({ label: `HEAD ${path}`, path, init: { method: "HEAD" }, blob: true });
  }
  const ranged: Array<[string, string, Partial<Probe>]> = [
    ["/skills/nested/references/guide.md", "bytes=2-5", {}],
    ["/skills/large/references/medium.bin", `bytes=${CHECKED_BEFORE_ANSWER_BYTES + 10}-${CHECKED_BEFORE_ANSWER_BYTES + 5009}`, { streamed: true }],
    ["/skills/large/references/big.bin", "bytes=100-4195", { streamed: true }],
  ];
  for (const [path, range, flags] of ranged)
    out.push({ label: `GET ${path} Range: ${range}`, path, init: { headers: { Range: range } }, blob: true, ...flags });
  return out;
}

/** What a probe answered: status, the headers that describe the bytes, and the body's SHA-256 (or "aborted"). */
interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

async function ask(probe: Probe, bindings: object, cold = true): Promise<Answer> {
  if (cold) resetStorageMemory();
  const res = await workerFetch(bindings)(new Request(`${WORKER_URL}${probe.path}`, probe.init));
  return describeAnswer(res);
}

async function describeAnswer(res: Response): Promise<Answer> {
  const headers: Record<string, string | null> = {};
  for (const name of ["etag", "repr-digest", "content-length", "content-range", "content-type", GENERATION_HEADER.toLowerCase()])
    headers[name] = res.headers.get(name);
  let body: string;
  try {
    body = await sha256Hex(new Uint8Array(await res.arrayBuffer()));
  } catch {
    body = "aborted";
  }
  return { status: res.status, headers, body };
}

/**
 * How a probe must answer under a fault: exactly as without it; that or 503; 503 (a streamed
 * body may be cut off instead); or, for the accepted risk (an object over 64 KiB altered at rest
 * under its upload checksum), its status and headers, whatever the body.
 */
type Expectation = "exact" | "exact-or-503" | "503" | "served";

function check(probe: Probe, expected: Answer, got: Answer, expectation: Expectation): void {
  const label = probe.label;
  const unavailable = got.status === 503 || (probe.streamed === true && got.status === expected.status && got.body === "aborted");
  if (got.status === 503) expect(got.body, label).not.toBe("aborted");
  if (expectation === "503") {
    expect(unavailable, `${label}: ${got.status}`).toBe(true);
    return;
  }
  if (expectation === "exact-or-503" && unavailable) return;
  if (expectation === "served") {
    expect({ ...got, body: "any" }, label).toEqual({ ...expected, body: "any" });
    return;
  }
  expect(got, label).toEqual(expected);
}

let clean: Map<string, Answer>;

/** The key of a stored blob of the fixture other than `key`. */
function anotherBlobKey(key: string): string {
  const blobs = v2.objects.filter((o) => o.kind === "blob");
  return `blobs/${(key.endsWith(blobs[0]!.sha256) ? blobs[1]! : blobs[0]!).sha256}`;
}

/** Runs every probe (cold) under `bindings` and checks each against its fault-free answer. */
async function sweep(bindings: object, expectation: (probe: Probe) => Expectation, only: (probe: Probe) => boolean = () => true): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const probe of probes().filter(only)) {
    const got = await ask(probe, bindings);
    check(probe, clean.get(probe.label)!, got, expectation(probe));
    answers.push(got);
  }
  return answers;
}

/** The test env with `r2` and `kv` rules wrapped around its bindings. */
async function faulty(
  r2?: (call: { method: string; key: string }) => R2Fault | undefined,
  kv?: (call: { method: string; key: string }) => KvFault | undefined,
): Promise<object> {
  const base = await adminEnv();
  return { ...base, ...(r2 ? { SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, r2) } : {}), ...(kv ? { SHELF_KV: faultyKv(env.SHELF_KV, kv) } : {}) };
}

describe("the read routes under storage faults", () => {
  beforeAll(async () => {
    await reset();
    resetStorageMemory();
    await publishFixture();
    clean = new Map();
    const base = await adminEnv();
    for (const probe of probes()) clean.set(probe.label, await ask(probe, base));
    // The fixture is what the matrix needs: files served, a blocked skill, both big-file paths.
    expect(clean.get("GET /skills/large/references/big.bin")!.status).toBe(200);
    expect(clean.get("GET /skills/bad-skill/SKILL.md")!.status).toBe(410);
    expect(clean.get(`GET /g/${v1.id}/skills/solo/SKILL.md`)!.headers[GENERATION_HEADER.toLowerCase()]).toBe(v1.id);
    expect(MEDIUM.byteLength).toBeGreaterThan(CHECKED_BEFORE_ANSWER_BYTES);
  }, 120_000);

  it("names, on every answer served from a generation, the generation it was served from", () => {
    for (const probe of probes()) {
      const pinned = /^\/g\/([0-9a-f]{64})\//.exec(probe.path)?.[1];
      expect(clean.get(probe.label)!.headers[GENERATION_HEADER.toLowerCase()], probe.label).toBe(pinned ?? v2.id);
    }
  });

  describe("R2", () => {
    it("failing on every call: 503 everywhere", async () => {
      await sweep(await faulty(() => ({ kind: "reject" })), () => "503");
    });

    it("answering every call late: the exact answers", async () => {
      let n = 0;
      await sweep(await faulty(() => ({ kind: "delay", ms: n++ % 7 })), () => "exact");
    });

    const blobGet = (probe: Probe) => probe.blob === true && probe.init.method !== "HEAD";
    const onBlobGets = (fault: R2Fault) => faulty(({ method, key }) => (method === "get" && key.startsWith("blobs/") ? fault : undefined));

    it.each([
      ["truncated by one byte", (b: Uint8Array) => b.slice(0, b.length - 1)],
      ["truncated to half", (b: Uint8Array) => b.slice(0, b.length >> 1)],
      ["one byte too many", (b: Uint8Array) => new Uint8Array([...b, 0x0a])],
    ])("answering a blob %s (its size follows, its upload checksum stays): 503, never those bytes", async (_label, alter) => {
      // Small objects are hashed; larger ones fail on the size R2 reports; HEADs read no bytes.
      await sweep(await onBlobGets({ kind: "bytes", alter }), (probe) => (blobGet(probe) ? "503" : "exact"));
    });

    it("answering another stored blob, with its own size and checksums (a swapped object): 503, never its bytes", async () => {
      // Over 64 KiB R2's checksum is not the manifest's, so even a range of a large object is refused.
      await sweep(await onBlobGets({ kind: "swap", to: anotherBlobKey }), (probe) => (blobGet(probe) ? "503" : "exact"));
    });

    it.each([
      ["a byte changed in the middle", (b: Uint8Array) => flipByte(b)],
      ["the last byte changed", (b: Uint8Array) => flipByte(b, "last")],
    ])("answering a blob without checksums with %s: 503 (a streamed body cut off), never those bytes", async (_label, alter) => {
      await sweep(await onBlobGets({ kind: "bytes", alter, checksums: "none" }), (probe) => (blobGet(probe) ? "503" : "exact"));
    });

    it("answering every blob without checksums, bytes intact: the exact answers (each is hashed instead)", async () => {
      await sweep(await onBlobGets({ kind: "bytes", alter: (b) => b, checksums: "none" }), () => "exact");
    });

    it.each([
      ["a byte changed in the middle", (b: Uint8Array) => flipByte(b)],
      ["the last byte changed", (b: Uint8Array) => flipByte(b, "last")],
    ])("answering a blob altered at rest under its upload checksum (%s): 503 up to 64 KiB, served above (the accepted risk)", async (_label, alter) => {
      const bindings = await onBlobGets({ kind: "bytes", alter });
      await sweep(bindings, (probe) => (!blobGet(probe) ? "exact" : probe.streamed ? "served" : "503"));
      // What "served" means: a full GET of the large file completes with the altered bytes.
      const big = await ask({ label: "big", path: "/skills/large/references/big.bin", init: {} }, bindings);
      expect([big.status, big.body]).toEqual([200, await sha256Hex(alter(BIG))]);
    });

    it("without the blobs (get and head answer nothing): 503 for GET and HEAD alike", async () => {
      const bindings = await faulty(({ key }) => (key.startsWith("blobs/") ? { kind: "missing" } : undefined));
      await sweep(bindings, (probe) => (probe.blob ? "503" : "exact"));
    });

    const documentKinds: Array<[string, string]> = [
      ["manifests", "generations/"],
      ["shards", "shards/"],
      ["records", "records/"],
    ];
    const documentFaults: Array<[string, (bytes: Uint8Array) => Uint8Array]> = [
      ["a byte changed", (b) => flipByte(b)],
      ["truncated", (b) => b.slice(0, b.length - 1)],
      ["another document's valid JSON", () => new TextEncoder().encode("{}")],
    ];
    const documentCases = documentKinds.flatMap(([kind, prefix]) => documentFaults.map(([fault, alter]) => [kind, fault, prefix, alter] as const));
    it.each(documentCases)("answering %s with %s (and KV down): the exact answers or 503, some 503", async (_kind, _fault, prefix, alter) => {
      const bindings = await faulty(
        ({ method, key }) => (method === "get" && key.startsWith(prefix) ? { kind: "bytes", alter } : undefined),
        () => ({ kind: "reject" }),
      );
      const answers = await sweep(bindings, () => "exact-or-503");
      expect(answers.some((a) => a.status === 503)).toBe(true);
    });

    it.each([
      ["pointer.json", "truncated", (b: Uint8Array) => b.slice(0, b.length - 2)],
      ["advisories.json", "truncated", (b: Uint8Array) => b.slice(0, b.length - 2)],
      ["advisories.json", "not an advisories record", () => new TextEncoder().encode('{"seq": 1}')],
    ])("answering %s %s: 503 wherever it is read", async (key, _label, alter) => {
      const bindings = await faulty(({ method, key: k }) => (method === "get" && k === key ? { kind: "bytes", alter } : undefined));
      const answers = await sweep(bindings, () => "exact-or-503");
      expect(answers.filter((a) => a.status !== 503)).toEqual([]);
    });
  });

  describe("KV", () => {
    const allExact = () => "exact" as const;

    it("failing on every call: the exact answers (KV is a cache)", async () => {
      await sweep(await faulty(undefined, () => ({ kind: "reject" })), allExact);
    });

    it("missing every key: the exact answers", async () => {
      await sweep(await faulty(undefined, () => ({ kind: "missing" })), allExact);
    });

    it("answering every call late: the exact answers", async () => {
      let n = 0;
      await sweep(await faulty(undefined, () => ({ kind: "delay", ms: n++ % 5 })), allExact);
    });

    it("answering truncated values: the exact answers", async () => {
      await sweep(await faulty(undefined, () => ({ kind: "value", alter: (text) => (text === null ? null : text.slice(0, text.length - 1)) })), allExact);
    });

    it("with values rotated among the keys of each kind (manifests, shards, records): the exact answers", async () => {
      const keys = (await env.SHELF_KV.list()).keys.map((k) => k.name);
      const rotation = new Map<string, string | null>();
      for (const prefix of ["gen:", "shard:", "record:"]) {
        const ofKind = keys.filter((k) => k.startsWith(prefix)).sort();
        expect(ofKind.length, prefix).toBeGreaterThan(1);
        const values = await Promise.all(ofKind.map((k) => env.SHELF_KV.get(k)));
        for (const [i, k] of ofKind.entries()) rotation.set(k, values[(i + 1) % values.length]!);
      }
      await sweep(await faulty(undefined, ({ key }) => (rotation.has(key) ? { kind: "value", alter: () => rotation.get(key)! } : undefined)), allExact);
    });

    it("holding an older manifest under the current id: the current generation's exact answers", async () => {
      const older = new TextDecoder().decode(v1.manifestBytes);
      await sweep(await faulty(undefined, ({ key }) => (key === `gen:${v2.id}` ? { kind: "value", alter: () => older } : undefined)), allExact);
    });

    it("holding a document of another kind under a key (a record where a shard belongs): the exact answers", async () => {
      const record = v2.objects.find((o) => o.kind === "record")!;
      const text = new TextDecoder().decode(record.bytes);
      await sweep(
        await faulty(undefined, ({ key }) => (key.startsWith("shard:") || key.startsWith("gen:") ? { kind: "value", alter: () => text } : undefined)),
        allExact,
      );
    });
  });

  describe("many requests at once with R2 and KV both answering late", () => {
    it("answer exactly what they answer one at a time, each naming its generation", async () => {
      let n = 0;
      const bindings = await faulty(
        () => ({ kind: "delay", ms: (n++ * 7) % 13 }),
        () => ({ kind: "delay", ms: (n++ * 5) % 11 }),
      );
      resetStorageMemory();
      const all = [...probes(), ...probes()];
      const fetcher = workerFetch(bindings);
      const answers = await Promise.all(all.map(async (probe) => describeAnswer(await fetcher(new Request(`${WORKER_URL}${probe.path}`, probe.init)))));
      for (const [i, probe] of all.entries()) check(probe, clean.get(probe.label)!, answers[i]!, "exact");
    });
  });

  describe("forged live values in KV (pointer and advisories with a seq no publish reached)", () => {
    afterAll(() => {
      vi.useRealTimers();
    });

    it("never serve the forged generation or lift the block, and follow a real publish", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      let now = Date.parse("2026-12-01T00:00:00.000Z");
      vi.setSystemTime(now);
      const base = await adminEnv();
      const get = async (path: string) => describeAnswer(await workerFetch(base)(new Request(`${WORKER_URL}${path}`)));
      resetStorageMemory();
      // Warm: the isolate read the pointer and advisories from R2.
      expect((await get("/skills/bad-skill/SKILL.md")).status).toBe(410);

      await env.SHELF_KV.put(KV_POINTER_KEY, JSON.stringify({ generation: v1.id, seq: 999, published_at: "2026-12-01T00:00:00.000Z" }));
      await env.SHELF_KV.put(
        KV_ADVISORIES_KEY,
        JSON.stringify({ schema: "skillshelf.advisories/1", advisories: [], seq: 999, updated_at: "2026-12-01T00:00:00.000Z" }),
      );
      for (const step of [LIVE_MEMORY_TTL_MS, LIVE_MEMORY_TTL_MS, LIVE_R2_REVALIDATE_MS, LIVE_MEMORY_TTL_MS]) {
        now += step;
        vi.setSystemTime(now);
        const blocked = await get("/skills/bad-skill/SKILL.md");
        expect([blocked.status, blocked.headers[GENERATION_HEADER.toLowerCase()]]).toEqual([410, v2.id]);
        const index = await get("/skills/index.json");
        expect(index).toEqual(clean.get("GET /skills/index.json"));
      }

      // A real publish overwrites the KV pointer (seq 3): the warm isolate follows it within the memory TTL.
      const v3 = await buildGeneration([await skillInput("solo"), await skillInput("fresh")]);
      await publish(v3);
      now += LIVE_MEMORY_TTL_MS;
      vi.setSystemTime(now);
      const fresh = await get("/skills/fresh/SKILL.md");
      expect([fresh.status, fresh.headers[GENERATION_HEADER.toLowerCase()]]).toEqual([200, v3.id]);
    });
  });
});

describe("KV losing every write the admin API makes", () => {
  it("leaves every read route answering exactly what it answers with KV intact", async () => {
    await reset();
    resetStorageMemory();
    const losing = { ...(await adminEnv()), SHELF_KV: faultyKv(env.SHELF_KV, ({ method }) => (method === "put" ? { kind: "lose" } : undefined)) };
    await publishFixture(losing);
    expect((await env.SHELF_KV.list()).keys).toEqual([]);
    // The same generations as above, so the same answers; /v1/shelf shows this publish's time.
    await sweep(
      await adminEnv(),
      () => "exact",
      (probe) => !probe.path.endsWith("/v1/shelf"),
    );
  }, 120_000);
});
