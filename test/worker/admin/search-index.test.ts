// The search index is an object of its generation like any other (manifest.search, a blob the
// graph walk reaches): publish uploads it, the Worker refuses to store a manifest or move the
// pointer while it is missing, gc keeps it while a kept generation references it and collects
// it with the last one, and the shelf searches through it right after a publish.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { describeSkill } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetSearchIndexCache } from "../../../src/worker/shelf/search.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const noSleep = async () => {};

async function shelf(betaBody: string) {
  return buildGeneration([
    await skillInput("alpha", { "references/a.md": "# A\n" }),
    await skillInput("beta", { "references/b.md": "# B\n" }),
    await skillInputWith("beta-notes", betaBody),
  ]);
}

/** A skill whose body (and so whose section titles, and the index) the test chooses. */
async function skillInputWith(name: string, body: string) {
  const input = await skillInput(name, { "references/n.md": "# N\n" });
  const md = new TextEncoder().encode(`---\nname: ${name}\ndescription: Notes about ${name}.\n---\n\n${body}`);
  const files = [{ path: "SKILL.md", bytes: md }, ...input.files.filter((f) => f.path !== "SKILL.md")];
  const validation = validateSkillMd(name, md);
  return { files, record: describeSkill(validation.metadata!, validation.parsed!, await buildInventory(files), input.record.trust) };
}

const searchRef = (built: Awaited<ReturnType<typeof shelf>>) => built.manifest.search!;

beforeEach(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
  resetSearchIndexCache();
});

describe("the search index in publish and gc", () => {
  it("is uploaded by publish, and the shelf searches through it at once", async () => {
    const call = workerFetch(await adminEnv());
    const v1 = await shelf("# Notes\n\n## Rotating the signing keys\n\nDo it.\n");
    expect(v1.objects.some((o) => o.kind === "blob" && o.sha256 === searchRef(v1).sha256)).toBe(true);
    const result = await publishGeneration(memorySource(v1), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    expect(result.uploaded.blob).toBe(v1.objects.filter((o) => o.kind === "blob").length);
    const stored = await env.SHELF_BUCKET.get(r2Key("blob", searchRef(v1).sha256));
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(v1.objects.find((o) => o.sha256 === searchRef(v1).sha256)!.bytes);
    const answer = (await (await call(new Request(`${WORKER_URL}/v1/search?q=rotate+signing+keys`))).json()) as { results: Array<{ name: string }> };
    expect(answer.results.map((r) => r.name)).toEqual(["beta-notes"]);
  });

  it("must be stored before its manifest is, and before the pointer names it", async () => {
    const call = workerFetch(await adminEnv());
    const v1 = await shelf("# Notes\n\n## First\n");
    const put = (path: string, body: Uint8Array) =>
      call(new Request(`${WORKER_URL}/admin/v1${path}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: body as BodyInit }));
    // Everything but the index, bottom up.
    for (const kind of ["blob", "record", "shard"] as const) {
      for (const o of v1.objects.filter((x) => x.kind === kind && x.sha256 !== searchRef(v1).sha256)) {
        expect((await put(`/${kind}s/${o.sha256}`, o.bytes)).status, `${kind} ${o.sha256}`).toBeLessThan(300);
      }
    }
    const manifest = await put(`/generations/${v1.id}`, v1.manifestBytes);
    expect(manifest.status).toBe(422);
    expect(JSON.stringify(await manifest.json())).toContain(searchRef(v1).sha256);
    expect((await call(adminRequest("POST", "/pointer", { generation: v1.id, previous: null }))).status).toBe(422);
    // With the index stored, both succeed.
    expect((await put(`/blobs/${searchRef(v1).sha256}`, v1.objects.find((o) => o.sha256 === searchRef(v1).sha256)!.bytes)).status).toBeLessThan(300);
    expect((await put(`/generations/${v1.id}`, v1.manifestBytes)).status).toBeLessThan(300);
    expect((await call(adminRequest("POST", "/pointer", { generation: v1.id, previous: null }))).status).toBe(200);
  });

  it("is kept by gc while a kept generation references it, and collected with the last one", async () => {
    const call = workerFetch(await adminEnv());
    const publish = async (built: Awaited<ReturnType<typeof shelf>>) =>
      publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    const v1 = await shelf("# Notes\n\n## Rotating the signing keys\n");
    const v2 = await shelf("# Notes\n\n## Renewing certificates\n");
    expect(searchRef(v2).sha256).not.toBe(searchRef(v1).sha256);
    await publish(v1);
    const second = await publish(v2);
    // Only beta-notes changed: its SKILL.md, three archives, record, the shard and the index.
    expect(second.uploaded).toEqual({ blob: 5, record: 1, shard: 1, generation: 1 });
    const stored = async (sha: string) => (await env.SHELF_BUCKET.head(r2Key("blob", sha))) !== null;

    const gc = async (keep: number) =>
      (await pastMinGrace(async () => (await call(adminRequest("POST", "/gc", { keep, grace_seconds: 0, apply: true }))).json())) as {
        deleted: Record<string, number>;
      };
    // keep=1 keeps v1 (the previous generation): both indexes stay.
    expect((await gc(1)).deleted).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });
    expect(await stored(searchRef(v1).sha256)).toBe(true);
    expect(await stored(searchRef(v2).sha256)).toBe(true);
    // keep=0: v1 goes with its index; v2's stays and is searched.
    const collected = await gc(0);
    expect(collected.deleted.generation).toBe(1);
    expect(await stored(searchRef(v1).sha256)).toBe(false);
    expect(await stored(searchRef(v2).sha256)).toBe(true);
    resetStorageMemory();
    resetSearchIndexCache();
    const answer = (await (await call(new Request(`${WORKER_URL}/v1/search?q=renew+certificates`))).json()) as { results: Array<{ name: string }> };
    expect(answer.results.map((r) => r.name)).toEqual(["beta-notes"]);
  });
});
