// The Claude Code marketplace (src/worker/views/claude) inside workerd with local R2 and KV: one
// archive plugin per servable skill (a review hold in its description, blocked skills absent),
// archive URLs pinned to the generation with the caller's /c/<token> prefix, and each archive
// the plugin zip whose sha256 the marketplace lists, holding the skill's files byte for byte.
// Every GET answer is checked against the served OpenAPI document.
import { reset } from "cloudflare:test";
import { unzipSync } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { REVIEW_NOTE, type Marketplace } from "../../../src/core/api/claude-marketplace.ts";
import type { SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
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

async function publishShelf() {
  const built = await buildGeneration([
    attachable(await skillInput("code-review", { "SKILL.md": MD, "references/notes.md": "Notes.\n" })),
    attachable(await skillInput("plain", { "references/a.md": "A.\n" })),
    await skillInput("held", { "scripts/run.sh": "#!/bin/sh\necho hi\n" }),
  ]);
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

describe("the marketplace's reads", () => {
  it("after a publish that changes one skill, reads only that skill's zip (the isolate keeps the others' digests)", async () => {
    await publishShelf();
    resetStorageMemory();
    resetComputedCache();
    resetBodyCache();
    const first = newCounts();
    expect((await workerFetch(await adminEnv(first))(new Request(`${WORKER_URL}/.claude-plugin/marketplace.json`))).status).toBe(200);
    const built = await buildGeneration([
      attachable(await skillInput("code-review", { "SKILL.md": MD.replace("1.2.0", "1.3.0"), "references/notes.md": "Notes.\n" })),
      attachable(await skillInput("plain", { "references/a.md": "A.\n" })),
      await skillInput("held", { "scripts/run.sh": "#!/bin/sh\necho hi\n" }),
    ]);
    await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
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
