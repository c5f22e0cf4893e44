// The storage budgets from the issue, held by counting binding calls: an incremental publish on a
// 1,000-skill shelf writes in proportion to the change; a warm file GET reads at most one small
// record and one R2 object; a matching conditional GET reads no R2 object; no request writes KV;
// no request on a 10,000-skill shelf reads more than 2 MB from KV; no invocation nears 1,000 ops.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalDocument } from "../../../src/core/generation/canonical-json.ts";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import {
  GENERATION_SCHEMA,
  POINTER_SCHEMA,
  SHARD_SCHEMA,
  shardCountFor,
  shardOf,
  type GenerationManifest,
  type SkillEntry,
} from "../../../src/core/generation/manifest.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { openGeneration, resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { kvKey, r2Key, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import {
  adminEnv,
  adminRequest,
  buildGeneration,
  memorySource,
  newCounts,
  pastMinGrace,
  skillInput,
  TOKEN,
  total,
  WORKER_URL,
  workerFetch,
  type CallCounts,
} from "../admin/helpers.ts";

const TWO_MB = 2 * 1024 * 1024;

/** Writes a built generation straight into R2 (seeding, not the code under test) and points at it. */
async function seed(built: BuiltGeneration): Promise<void> {
  for (let i = 0; i < built.objects.length; i += 50) {
    await Promise.all(built.objects.slice(i, i + 50).map((o) => env.SHELF_BUCKET.put(r2Key(o.kind, o.sha256), o.bytes, { sha256: o.sha256 })));
  }
  await env.SHELF_BUCKET.put(r2Key("generation", built.id), built.manifestBytes);
  const res = await workerFetch(await adminEnv())(adminRequest("POST", "/pointer", { generation: built.id, previous: null }));
  expect(res.status).toBe(200);
}

/** Per-request binding counts, with the largest single invocation's op count. */
function countingFetch(counts: CallCounts, maxOps: { value: number }, workerEnv: object) {
  const inner = workerFetch(workerEnv);
  return async (request: Request) => {
    const before = total(counts, "R2.") + total(counts, "KV.");
    const response = await inner(request);
    maxOps.value = Math.max(maxOps.value, total(counts, "R2.") + total(counts, "KV.") - before);
    return response;
  };
}

describe("a 1,000-skill shelf", () => {
  const names = Array.from({ length: 1000 }, (_, i) => `skill-${String(i).padStart(4, "0")}`);
  let v1: BuiltGeneration;
  /** v1's skill inputs, in order: the next generation changes one and reuses the other 999. */
  let skills: Awaited<ReturnType<typeof skillInput>>[] = [];

  beforeAll(async () => {
    await reset();
    resetStorageMemory();
    skills = [];
    for (const name of names) skills.push(await skillInput(name, name.endsWith("7") ? { "references/notes.md": `# Notes for ${name}\n` } : {}));
    v1 = await buildGeneration(skills);
    await seed(v1);
    // Three archives per skill since the plugin zip: building 1,000 in workerd takes longer.
  }, 240_000);

  it("publishes a change to one skill with uploads, writes and requests in proportion to the change", async () => {
    // skill-0517's notes revised; every other skill's input is v1's (inputs are plain data, built the same way).
    const changedAt = names.indexOf("skill-0517");
    const v2 = await buildGeneration(skills.with(changedAt, await skillInput("skill-0517", { "references/notes.md": "# Notes, revised\n" })));
    const counts = newCounts();
    const maxOps = { value: 0 };
    const requestBytes: number[] = [];
    const inner = countingFetch(counts, maxOps, await adminEnv(counts));
    const fetchCounting = async (request: Request) => {
      requestBytes.push(request.body ? (await request.clone().arrayBuffer()).byteLength : 0);
      return inner(request);
    };
    const result = await publishGeneration(memorySource(v2), { url: WORKER_URL, token: TOKEN, fetch: fetchCounting, sleep: async () => {} });

    // Only skill-0517's notes and three archives (.tar.gz, .zip, plugin zip), its record, its shard and the manifest.
    expect(result.uploaded).toEqual({ blob: 4, record: 1, shard: 1, generation: 1 });
    const record = v2.objects.find((o) => o.kind === "record" && !v1.objects.some((p) => p.kind === "record" && p.sha256 === o.sha256))!;
    const shard = v2.manifest.shards.find((s) => !v1.manifest.shards.some((p) => p.sha256 === s.sha256))!;
    const changedBlobs = v2.objects.filter((o) => o.kind === "blob" && !v1.objects.some((p) => p.sha256 === o.sha256));
    const expectedBytes = changedBlobs.reduce((n, o) => n + o.bytes.length, 0) + record.bytes.length + shard.size + v2.manifestBytes.length;
    expect(result.bytesUploaded).toBe(expectedBytes);
    expect(expectedBytes).toBeLessThan(128 * 1024); // mostly the one ~64-skill shard (with its entries' listing fields, ~750 bytes a skill)
    // pointer, 4 presence queries, 7 uploads (4 blobs: the file and three archives), pointer move: 13 requests on a 1,000-skill shelf.
    expect(result.requests).toBe(13);
    expect(requestBytes.reduce((a, b) => a + b, 0)).toBeLessThan(expectedBytes + 16 * 1024);
    // Writes: one R2 put per uploaded object, the change document, the pointer and the version
    // index; one KV put per document, the pointer and the version index's announcement.
    expect(counts.calls["R2.put"]).toBe(4 + 1 + 1 + 1 + 1 + 1 + 1);
    expect(counts.calls["KV.put"]).toBe(1 + 1 + 1 + 1 + 1);
    expect(counts.calls["R2.delete"] ?? 0).toBe(0);
    expect(maxOps.value).toBeLessThan(1000);
    v1 = v2;
  }, 120_000);

  it("collects garbage on a 1,000-skill shelf in one invocation, reading shards rather than records", async () => {
    const counts = newCounts();
    // Past gc's minimum grace (measured from upload time), which grace_seconds 0 cannot undercut.
    const res = await pastMinGrace(async () => workerFetch(await adminEnv(counts))(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0 })));
    expect(res.status).toBe(200);
    const report = (await res.json()) as { deletable: Record<string, number> };
    // The first generation's manifest, shard, record and the four blobs only it used.
    expect(report.deletable).toEqual({ generation: 1, shard: 1, record: 1, blob: 4 });
    expect(counts.calls["R2.get"]).toBeLessThan(40); // pointer, one manifest, 16 shards
    expect(total(counts, "R2.")).toBeLessThan(100);
  });

  it("serves a warm file GET with at most one small record and no R2 object (its bytes kept once checked), a 304 with none, and never writes KV", async () => {
    resetStorageMemory();
    const counts = newCounts();
    const maxOps = { value: 0 };
    const call = countingFetch(counts, maxOps, await adminEnv(counts));
    const url = `${WORKER_URL}/skills/skill-0517/references/notes.md`;

    const cold = await call(new Request(url));
    expect(cold.status).toBe(200);
    expect(await cold.text()).toBe("# Notes, revised\n");
    expect(counts.kvBytesRead).toBeLessThan(TWO_MB);
    const etag = cold.headers.get("ETag")!;

    const warm = newCounts();
    const warmCall = workerFetch(await adminEnv(warm));
    const again = await warmCall(new Request(url));
    expect(await again.text()).toBe("# Notes, revised\n");
    expect(warm.calls["R2.get"] ?? 0).toBe(0);
    expect(warm.calls["R2.head"] ?? 0).toBe(0);
    expect(total(warm, "KV.")).toBeLessThanOrEqual(1);

    const conditional = newCounts();
    const res304 = await workerFetch(await adminEnv(conditional))(new Request(url, { headers: { "If-None-Match": etag } }));
    expect(res304.status).toBe(304);
    expect(conditional.calls["R2.get"] ?? 0).toBe(0);
    expect(conditional.calls["R2.head"] ?? 0).toBe(0);

    for (const c of [counts, warm, conditional]) {
      expect(c.calls["KV.put"] ?? 0).toBe(0);
      expect(c.calls["KV.delete"] ?? 0).toBe(0);
    }
    expect(maxOps.value).toBeLessThan(50);
  });

  it("reads the whole index of a cold isolate within the KV budget", async () => {
    resetStorageMemory();
    const counts = newCounts();
    const res = await workerFetch(await adminEnv(counts))(new Request(`${WORKER_URL}/.well-known/agent-skills/index.json`));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { skills: unknown[] }).skills).toHaveLength(1000);
    expect(counts.kvBytesRead).toBeLessThan(TWO_MB);
    expect(counts.calls["KV.put"] ?? 0).toBe(0);
    expect(total(counts, "KV.") + total(counts, "R2.")).toBeLessThan(100);
  });
});

describe("a 10,000-skill shelf", () => {
  it("never reads more than 2 MB from KV in one request, even listing every skill", async () => {
    await reset();
    resetStorageMemory();
    // Synthetic entries (listings read shards only), with realistic descriptions.
    const count = 10_000;
    const shardCount = shardCountFor(count);
    const fakeSha = (i: number, salt: string) => (salt + i.toString(16)).padStart(64, "0").slice(-64);
    const buckets = new Map<number, SkillEntry[]>();
    for (let i = 0; i < count; i++) {
      const name = `generated-skill-${String(i).padStart(5, "0")}`;
      const entry: SkillEntry = {
        name,
        record: { sha256: fakeSha(i, "a"), size: 2048 },
        description: `Generated skill number ${i}: ${"handles one narrow task for benchmarking the listing path. ".repeat(3)}`.slice(0, 200),
        version: "1.0.0",
        tags: ["generated"],
        when_to_use: [],
        when_not_to_use: [],
        content_hash: fakeSha(i, "b"),
        tree_hash: fakeSha(i, "c"),
        has_scripts: i % 2 === 0,
        file_count: i % 2 === 0 ? 4 : 1,
        paths: i % 2 === 0 ? ["SKILL.md", "assets/template.md", "references/guide.md", "scripts/check.py"] : ["SKILL.md"],
        total_bytes: 400,
        skill_md: { sha256: fakeSha(i, "b"), size: 400 },
        archives: { tar_gz: { sha256: fakeSha(i, "d"), size: 300 }, zip: { sha256: fakeSha(i, "e"), size: 500 } },
        trust: { source: null, level: "unverified", requires_review: true, attachable: false },
      };
      const index = shardOf(name, shardCount);
      buckets.set(index, [...(buckets.get(index) ?? []), entry]);
    }
    const shards: GenerationManifest["shards"] = [];
    let shardBytes = 0;
    for (const index of [...buckets.keys()].sort((a, b) => a - b)) {
      const skills = buckets.get(index)!.sort((a, b) => (a.name < b.name ? -1 : 1));
      const blobs = [...new Set(skills.flatMap((e) => [e.skill_md.sha256, e.archives.tar_gz.sha256, e.archives.zip.sha256]))].sort();
      const doc = await canonicalDocument({ schema: SHARD_SCHEMA, index, shard_count: shardCount, skills, blobs });
      await env.SHELF_BUCKET.put(r2Key("shard", doc.sha256), doc.bytes);
      await env.SHELF_KV.put(kvKey("shard", doc.sha256), new TextDecoder().decode(doc.bytes));
      shards.push({ index, sha256: doc.sha256, size: doc.size, count: skills.length });
      shardBytes += doc.size;
    }
    expect(shardBytes).toBeGreaterThan(TWO_MB); // the listing really is bigger than the budget
    const manifest: GenerationManifest = {
      schema: GENERATION_SCHEMA,
      shelf: { catalog_version: null, records: { validations: null, advisories: null, guidance: null, catalog: null }, advisories: null },
      skill_count: count,
      file_count: count,
      total_bytes: count * 400,
      shard_count: shardCount,
      shards,
    };
    const doc = await canonicalDocument(manifest);
    await env.SHELF_BUCKET.put(r2Key("generation", doc.sha256), doc.bytes);
    await env.SHELF_KV.put(kvKey("generation", doc.sha256), new TextDecoder().decode(doc.bytes));
    const now = new Date().toISOString();
    await env.SHELF_BUCKET.put(
      R2_POINTER_KEY,
      JSON.stringify({
        schema: POINTER_SCHEMA,
        generation: doc.sha256,
        seq: 1,
        published_at: now,
        history: [{ seq: 1, generation: doc.sha256, action: "publish", at: now }],
      }),
    );

    const counts = newCounts();
    const countedEnv = await adminEnv(counts);
    const gen = await openGeneration(countedEnv);
    const all = await gen!.listSkills();
    expect(all).toHaveLength(count);
    expect(counts.kvBytesRead).toBeLessThanOrEqual(TWO_MB);
    expect(gen!.kvBytesRead).toBeLessThanOrEqual(TWO_MB);
    expect(total(counts, "KV.") + total(counts, "R2.")).toBeLessThan(1000);
    expect((await gen!.findSkill("generated-skill-04242"))?.name).toBe("generated-skill-04242");

    // Through a route, from a cold isolate.
    resetStorageMemory();
    const routeCounts = newCounts();
    const res = await workerFetch(await adminEnv(routeCounts))(new Request(`${WORKER_URL}/skills/index.json`));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { skills: string[] }).skills).toHaveLength(count);
    expect(routeCounts.kvBytesRead).toBeLessThanOrEqual(TWO_MB);
    expect(routeCounts.calls["KV.put"] ?? 0).toBe(0);
    expect(total(routeCounts, "KV.") + total(routeCounts, "R2.")).toBeLessThan(1000);

    // The legacy v0.1 index lists every skill's files: from the shards, never 10,000 records.
    resetStorageMemory();
    const legacyCounts = newCounts();
    const legacy = await workerFetch(await adminEnv(legacyCounts))(new Request(`${WORKER_URL}/.well-known/skills/index.json`));
    expect(legacy.status).toBe(200);
    const legacySkills = ((await legacy.json()) as { skills: Array<{ name: string; files: string[] }> }).skills;
    expect(legacySkills).toHaveLength(count);
    expect(legacySkills.find((s) => s.name === "generated-skill-04242")!.files).toEqual([
      "SKILL.md",
      "assets/template.md",
      "references/guide.md",
      "scripts/check.py",
    ]);
    expect(legacySkills.find((s) => s.name === "generated-skill-04243")!.files).toEqual(["SKILL.md"]);
    expect(legacyCounts.kvBytesRead).toBeLessThanOrEqual(TWO_MB);
    expect(legacyCounts.calls["KV.put"] ?? 0).toBe(0);
    // pointer, advisories, manifest, and each of the 256 shards from KV (bulk) or R2.
    expect(total(legacyCounts, "KV.") + total(legacyCounts, "R2.")).toBeLessThanOrEqual(3 + 3 + shardCount);
  }, 120_000);
});
