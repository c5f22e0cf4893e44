// The Claude Code marketplace (src/worker/views/claude) inside workerd with local R2 and KV: one
// archive plugin per servable skill (a review hold in its description, blocked skills absent),
// archive URLs pinned to the generation with the caller's /c/<token> prefix, and each archive
// the plugin zip whose sha256 the marketplace lists, holding the skill's files byte for byte.
// Every GET answer is checked against the served OpenAPI document.
import { reset } from "cloudflare:test";
import { unzipSync } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { REVIEW_NOTE, type Marketplace } from "../../../src/core/api/claude-marketplace.ts";
import { assembleDocuments, assembleGeneration, type BuiltGeneration, type SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { LIFECYCLE_SCHEMA } from "../../../src/core/changes/lifecycle.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { kvKey, R2_ADVISORIES_KEY, R2_POINTER_KEY, R2_RENDERED_PREFIX, r2Key } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, newCounts, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { expectDocumented } from "../api/openapi-check.ts";
import { BLOCKING_ADVISORY } from "../fixture-shelf.ts";

const READ_TOKEN = "sk_claude_read_token_0123456789abcdef";
const noSleep = async () => {};
const MD = `---\nname: code-review\ndescription: Reviews code changes.\nversion: "1.2.0"\n---\n\n# Code review\n`;

function attachable(input: SkillBuildInput): SkillBuildInput {
  const verdict = { ...input.record.trust.verdict, level: "first_party" as const, requires_review: false, attachable: true, reasons: [] };
  return { ...input, record: { ...input.record, trust: { ...input.record.trust, verdict } } };
}

async function shelfSkills(reviewMd = MD): Promise<SkillBuildInput[]> {
  return [
    attachable(await skillInput("code-review", { "SKILL.md": reviewMd, "references/notes.md": "Notes.\n" })),
    attachable(await skillInput("plain", { "references/a.md": "A.\n" })),
    await skillInput("held", { "scripts/run.sh": "#!/bin/sh\necho hi\n" }),
  ];
}

async function buildShelf(reviewMd = MD): Promise<BuiltGeneration> {
  return buildGeneration(await shelfSkills(reviewMd));
}

async function publishShelf(): Promise<BuiltGeneration> {
  const built = await buildShelf();
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
  return built;
}

async function read(path: string, vars: Record<string, string> = {}): Promise<Response> {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  const res = await workerFetch({ ...(await adminEnv()), ...vars })(new Request(`${WORKER_URL}${path}`));
  await expectDocumented("get", path.replace(/^\/c\/[^/]+|^\/g\/[0-9a-f]{64}/, ""), res);
  return res;
}

async function marketplace(prefix = "", vars: Record<string, string> = {}): Promise<Marketplace> {
  const res = await read(`${prefix}/.claude-plugin/marketplace.json`, vars);
  expect(res.status).toBe(200);
  return (await res.json()) as Marketplace;
}

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

/** Records the keys a binding's get and head calls read, as "<label> <key>". */
function recordingBinding<T extends object>(binding: T, label: string, keys: string[]): T {
  return new Proxy(binding, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "head" && prop !== "getWithMetadata") return value.bind(target);
      return (key: unknown, ...rest: unknown[]) => {
        for (const k of Array.isArray(key) ? key : [key]) keys.push(`${label} ${String(k)}`);
        return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
      };
    },
  });
}

/** The env with every R2 and KV read recorded in `keys`. */
function recordingEnv(base: Cloudflare.Env, keys: string[]): Cloudflare.Env {
  return { ...base, SHELF_BUCKET: recordingBinding(base.SHELF_BUCKET, "R2", keys), SHELF_KV: recordingBinding(base.SHELF_KV, "KV", keys) };
}

/** The R2 key prefix of a kind of object ("blobs/", "records/"). */
const prefixOf = (kind: "blob" | "record" | "shard" | "generation") => r2Key(kind, "0".repeat(64)).slice(0, -64);
/** The R2 reads of one kind a request made. */
const r2Reads = (keys: readonly string[], kind: "blob" | "record") => keys.filter((k) => k.startsWith(`R2 ${prefixOf(kind)}`));

/** Reads `path` on a cold isolate and gives its answer and the R2 keys it read. */
async function coldRead(path: string): Promise<{ res: Response; keys: string[] }> {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  const keys: string[] = [];
  const res = await workerFetch(recordingEnv(await adminEnv(), keys))(new Request(`${WORKER_URL}${path}`));
  return { res, keys };
}

/**
 * The same skills as a generation built before the build made plugin zips: records without
 * `archives.claude_plugin`, and no plugin blobs.
 */
async function withoutPluginZips(built: BuiltGeneration): Promise<BuiltGeneration> {
  const text = new TextDecoder();
  const records = built.objects
    .filter((o) => o.kind === "record")
    .map((o) => {
      const record = SkillRecordSchema.parse(JSON.parse(text.decode(o.bytes)));
      const { claude_plugin: _plugin, ...archives } = record.archives;
      return { ...record, archives };
    });
  const plugins = new Set(
    built.objects.flatMap((o) => (o.kind === "record" ? [SkillRecordSchema.parse(JSON.parse(text.decode(o.bytes))).archives.claude_plugin!.sha256] : [])),
  );
  const documents = await assembleDocuments(records, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
  });
  const blobs = built.objects.filter((o) => o.kind === "blob" && !plugins.has(o.sha256) && !documents.objects.some((d) => d.sha256 === o.sha256));
  return { id: documents.id, manifest: documents.manifest, manifestBytes: documents.manifestBytes, objects: [...documents.objects, ...blobs] };
}

async function publish(built: BuiltGeneration): Promise<void> {
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
}

describe("the marketplace's reads", () => {
  it("cold, reads the pointer, the manifest and the shards only: each plugin's digest is the build's, from its shard entry", async () => {
    const built = await publishShelf();
    const { res, keys } = await coldRead("/.claude-plugin/marketplace.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Marketplace;
    // The pointer and the advisories in force (read with it), the manifest and each shard (from KV
    // or R2: the publish wrote both), and nothing else: no record, no blob. (And the marketplace
    // as another isolate may have kept it in R2: src/worker/read/rendered.ts, not there yet.)
    const allowed = new Set([`R2 ${R2_POINTER_KEY}`, `R2 ${R2_ADVISORIES_KEY}`]);
    for (const key of keys) if (key.startsWith(`R2 ${R2_RENDERED_PREFIX}${built.id}/`)) allowed.add(key);
    for (const sha of [built.id, ...built.manifest.shards.map((s) => s.sha256)]) {
      const kind = sha === built.id ? "generation" : "shard";
      allowed.add(`R2 ${r2Key(kind, sha)}`).add(`KV ${kvKey(kind, sha)}`);
    }
    expect(keys.filter((k) => !allowed.has(k))).toEqual([]);
    expect(r2Reads(keys, "blob")).toEqual([]);
    for (const shard of built.manifest.shards) expect(keys.some((k) => k.endsWith(shard.sha256))).toBe(true);
    const recordOf = (name: string) =>
      built.objects
        .filter((o) => o.kind === "record")
        .map((o) => SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))))
        .find((r) => r.name === name)!;
    for (const plugin of doc.plugins) expect(plugin.source.sha256).toBe(recordOf(plugin.name).archives.claude_plugin!.sha256);

    // The archive is the stored blob, read once by its digest.
    const review = doc.plugins.find((p) => p.name === "code-review")!;
    const archive = await coldRead(new URL(review.source.url).pathname);
    expect(archive.res.status).toBe(200);
    expect(archive.res.headers.get("Cache-Control")).toContain("immutable");
    expect(await sha256Hex(new Uint8Array(await archive.res.arrayBuffer()))).toBe(review.source.sha256);
    expect(r2Reads(archive.keys, "blob")).toEqual([`R2 ${r2Key("blob", review.source.sha256)}`]);
  });

  it("for a generation built before plugin zips, derives the same zips from the skills' zips (one read per skill cold)", async () => {
    const built = await buildShelf();
    const older = await withoutPluginZips(built);
    expect(older.id).not.toBe(built.id);
    await publish(older);
    const { res, keys } = await coldRead("/.claude-plugin/marketplace.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Marketplace;
    expect(r2Reads(keys, "blob").length).toBe(doc.plugins.length);
    // The digests the Worker derives are the ones the build makes today.
    await publish(built);
    const current = (await (await coldRead("/.claude-plugin/marketplace.json")).res.json()) as Marketplace;
    expect(doc.plugins.map((p) => [p.name, p.version, p.source.sha256])).toEqual(current.plugins.map((p) => [p.name, p.version, p.source.sha256]));
    // The older generation's archives still serve, pinned, byte for byte.
    const review = doc.plugins.find((p) => p.name === "code-review")!;
    expect(new URL(review.source.url).pathname.startsWith(`/g/${older.id}/`)).toBe(true);
    const archive = await coldRead(new URL(review.source.url).pathname);
    expect(archive.res.status).toBe(200);
    expect(await sha256Hex(new Uint8Array(await archive.res.arrayBuffer()))).toBe(review.source.sha256);
    expect((await coldRead(`/g/${older.id}/.claude-plugin/plugins/code-review/${"0".repeat(64)}.zip`)).res.status).toBe(404);
  });

  it("for an older generation, after a publish that changes one skill, reads only that skill's zip (the isolate keeps the others' digests)", async () => {
    await publish(await withoutPluginZips(await buildShelf()));
    resetStorageMemory();
    resetComputedCache();
    resetBodyCache();
    const first = newCounts();
    expect((await workerFetch(await adminEnv(first))(new Request(`${WORKER_URL}/.claude-plugin/marketplace.json`))).status).toBe(200);
    await publish(await withoutPluginZips(await buildShelf(MD.replace("1.2.0", "1.3.0"))));
    // A cold pointer (the isolate would see the publish within its live TTL); the generated cache stays warm.
    resetStorageMemory();
    resetBodyCache();
    const second = newCounts();
    const res = await workerFetch(await adminEnv(second))(new Request(`${WORKER_URL}/.claude-plugin/marketplace.json`));
    expect(((await res.json()) as Marketplace).plugins.find((p) => p.name === "code-review")!.version).toMatch(/^1\.3\.0\+/);
    // Blob reads: three zips cold, one (code-review's) after the publish.
    const blobGets = (counts: typeof first) => counts.calls["R2.get"] ?? 0;
    expect(blobGets(first) - blobGets(second)).toBeGreaterThanOrEqual(2);
  });
});

describe("the marketplace", () => {
  it("lists one archive plugin per skill, pinned to the generation, whose zip holds the skill byte for byte", async () => {
    const built = await publishShelf();
    const doc = await marketplace();
    expect(doc.name).toBe(new URL(WORKER_URL).hostname);
    expect(doc.plugins.map((p) => p.name)).toEqual(["code-review", "held", "plain"]);
    const review = doc.plugins.find((p) => p.name === "code-review")!;
    expect(review.version).toMatch(/^1\.2\.0\+[0-9a-f]{12}$/);
    expect(review.source.url).toBe(`${WORKER_URL}/g/${built.id}/.claude-plugin/plugins/code-review/${review.source.sha256}.zip`);
    expect(doc.plugins.find((p) => p.name === "held")!.description.startsWith(REVIEW_NOTE)).toBe(true);
    expect(review.description).toBe("Reviews code changes.");

    const archive = await read(new URL(review.source.url).pathname);
    expect(archive.status).toBe(200);
    const bytes = new Uint8Array(await archive.arrayBuffer());
    expect(await sha256Hex(bytes)).toBe(review.source.sha256);
    const files = unzipSync(bytes);
    expect(Object.keys(files)).toEqual([".claude-plugin/plugin.json", "skills/code-review/SKILL.md", "skills/code-review/references/notes.md"]);
    expect(new TextDecoder().decode(files["skills/code-review/SKILL.md"])).toBe(MD);
    expect(JSON.parse(new TextDecoder().decode(files[".claude-plugin/plugin.json"]))).toEqual({
      name: "code-review",
      version: review.version,
      description: "Reviews code changes.",
    });

    const wrong = await read(`/.claude-plugin/plugins/code-review/${"0".repeat(64)}.zip`);
    expect(wrong.status).toBe(404);
  });

  it("leaves a blocked skill out, and refuses its archive", async () => {
    await publishShelf();
    const before = (await marketplace()).plugins.find((p) => p.name === "plain")!;
    const { tree_hash } = (await (await read("/v1/skills/plain")).json()) as { tree_hash: string };
    const advisory = { ...BLOCKING_ADVISORY, advisory_id: "ADV-PLAIN", name: "plain", tree_hash };
    expect((await workerFetch(await adminEnv())(adminRequest("POST", "/advisories", { advisories: [advisory] }))).status).toBe(200);
    expect((await marketplace()).plugins.map((p) => p.name)).toEqual(["code-review", "held"]);
    expect((await read(new URL(before.source.url).pathname)).status).toBe(410);
  });

  it("keeps a deprecated skill listed, saying so and naming its replacement's install command, with the same plugin zip", async () => {
    await publishShelf();
    const plain = (await marketplace()).plugins.find((p) => p.name === "plain")!;
    const lifecycle = { schema: LIFECYCLE_SCHEMA, skills: { plain: { deprecated: "Folded into code-review.", replaced_by: "code-review" } } } as const;
    const built = await assembleGeneration(await shelfSkills(), {
      catalogVersion: null,
      recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
      advisories: null,
      lifecycle,
    });
    await publish(built);
    const doc = await marketplace();
    expect(doc.plugins.map((p) => p.name)).toEqual(["code-review", "held", "plain"]);
    const deprecated = doc.plugins.find((p) => p.name === "plain")!;
    const host = new URL(WORKER_URL).hostname;
    expect(deprecated.description).toBe(
      `[Deprecated: Folded into code-review. Use code-review instead (claude plugin install code-review@${host}).] ${plain.description}`,
    );
    // Shelf metadata only: the plugin's bytes and version are the skill's, so installed copies do not "update".
    expect(deprecated.version).toBe(plain.version);
    expect(deprecated.source.sha256).toBe(plain.source.sha256);
    expect(doc.plugins.find((p) => p.name === "code-review")!.description).toBe("Reviews code changes.");
  });

  it("on a private shelf: 401 without a token; a capability URL's archives carry its prefix", async () => {
    await publishShelf();
    const vars = { SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN) };
    expect((await read("/.claude-plugin/marketplace.json", vars)).status).toBe(401);
    const doc = await marketplace(`/c/${READ_TOKEN}`, vars);
    const url = new URL(doc.plugins[0]!.source.url);
    expect(url.pathname.startsWith(`/c/${READ_TOKEN}/g/`)).toBe(true);
    expect((await read(url.pathname, vars)).status).toBe(200);
  });
});
