// Change documents and /v1/changes over a publish sequence inside workerd: add, change, rename
// with replaced_by, deprecate, an advisory that blocks, a rollback. Each history entry names its
// document, the documents say exactly what changed, and /v1/changes pages through them.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { ChangesPage } from "../../../src/core/api/changes.ts";
import { renderAtomFeed } from "../../../src/core/changes/atom.ts";
import { LIFECYCLE_SCHEMA, type Lifecycle } from "../../../src/core/changes/lifecycle.ts";
import { assembleGeneration, type BuiltGeneration, type SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { PointerSchema } from "../../../src/core/generation/manifest.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { changesKey, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { LIFECYCLE_META_KEY } from "../../../src/worker/views/mcp/source.ts";
import { skillUri } from "../../../src/worker/views/mcp/uris.ts";
import { connectMcp } from "../mcp/helpers.ts";
import { adminEnv, adminRequest, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";

const noSleep = async () => {};

function build(skills: readonly SkillBuildInput[], lifecycle: Lifecycle["skills"] | null = null): Promise<BuiltGeneration> {
  return assembleGeneration(skills, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
    lifecycle: lifecycle ? { schema: LIFECYCLE_SCHEMA, skills: lifecycle } : null,
  });
}

/** Every change document field empty, so each expectation names only what changed. */
const NOTHING = { added: [], removed: [], changed: [], renamed: [], deprecated: [], undeprecated: [], blocked: [], unblocked: [] };

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

describe("change documents over a publish sequence", () => {
  it("record add, change, rename, deprecate, advisory block and rollback, and /v1/changes pages through them", async () => {
    const call = workerFetch(await adminEnv());
    const publish = (g: BuiltGeneration) => publishGeneration(memorySource(g), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    const get = async (path: string) => {
      resetStorageMemory();
      return call(new Request(`${WORKER_URL}${path}`));
    };

    const alpha1 = await skillInput("alpha", { "references/guide.md": "# Guide\n" });
    const alpha2 = await skillInput("alpha", { "references/guide.md": "# Guide, rewritten\n", "scripts/run.sh": "echo hi\n" });
    const beta = await skillInput("beta");
    const betaTwo = await skillInput("beta-two");
    const gamma = await skillInput("gamma");
    const v1 = await build([alpha1, beta]);
    const v2 = await build([alpha2, beta, gamma]);
    const v3 = await build([alpha2, betaTwo, gamma], { beta: { deprecated: null, replaced_by: "beta-two" } });
    const v4 = await build([alpha2, betaTwo, gamma], {
      beta: { deprecated: null, replaced_by: "beta-two" },
      gamma: { deprecated: "use alpha instead", replaced_by: null },
    });
    for (const g of [v1, v2, v3, v4]) await publish(g);

    const advisory = {
      name: "alpha",
      source: "elsewhere",
      official_intent: "Guides.",
      hidden_issue: "The script exfiltrates environment variables.",
      severity: "critical",
      reference: "https://example.com/ASA-CHG-1",
      tree_hash: alpha2.record.tree_hash,
      advisory_id: "ASA-CHG-1",
    };
    expect((await call(adminRequest("POST", "/advisories", { advisories: [advisory] }))).status).toBe(200);
    // The same advisories again change nothing, so they add no entry.
    expect((await call(adminRequest("POST", "/advisories", { advisories: [advisory] }))).status).toBe(200);
    expect((await call(adminRequest("POST", "/rollback", { generation: v2.id, previous: v4.id }))).status).toBe(200);

    // Each history entry names a stored document.
    const pointer = PointerSchema.parse(await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json());
    expect(pointer.history.map((h) => [h.seq, h.action])).toEqual([
      [6, "rollback"],
      [5, "advisory"],
      [4, "publish"],
      [3, "publish"],
      [2, "publish"],
      [1, "publish"],
    ]);
    expect(pointer.generation).toBe(v2.id);
    for (const h of pointer.history) expect(await env.SHELF_BUCKET.head(changesKey(h.changes!))).not.toBeNull();

    const res = await get("/v1/changes");
    expect(res.status).toBe(200);
    const page = (await res.json()) as ChangesPage;
    expect(page.current).toEqual({ generation: v2.id, seq: 6 });
    expect(page.complete).toBe(true);
    expect(page.next_since).toBeNull();
    const docs = page.entries.map((e) => e.changes!);
    const tree = (s: SkillBuildInput) => s.record.tree_hash;
    const head = (seq: number, action: string, generation: string, previous: string | null) => ({ seq, action, generation, previous });

    expect(docs[0]).toMatchObject({
      ...head(1, "publish", v1.id, null),
      ...NOTHING,
      added: [
        { name: "alpha", version: null, tree_hash: tree(alpha1) },
        { name: "beta", version: null, tree_hash: tree(beta) },
      ],
    });
    expect(docs[1]).toMatchObject({
      ...head(2, "publish", v2.id, v1.id),
      ...NOTHING,
      added: [{ name: "gamma", version: null, tree_hash: tree(gamma) }],
      changed: [
        {
          name: "alpha",
          from_version: null,
          to_version: null,
          from_tree: tree(alpha1),
          to_tree: tree(alpha2),
          files: { added: ["scripts/run.sh"], removed: [], changed: ["references/guide.md"] },
        },
      ],
    });
    expect(docs[2]).toMatchObject({ ...head(3, "publish", v3.id, v2.id), ...NOTHING, renamed: [{ from: "beta", to: "beta-two", tree_hash: tree(betaTwo) }] });
    expect(docs[3]).toMatchObject({
      ...head(4, "publish", v4.id, v3.id),
      ...NOTHING,
      deprecated: [{ name: "gamma", reason: "use alpha instead", replaced_by: null }],
    });
    expect(docs[4]).toMatchObject({
      ...head(5, "advisory", v4.id, v4.id),
      ...NOTHING,
      blocked: [{ name: "alpha", advisory_id: "ASA-CHG-1", severity: "critical" }],
    });
    // Back to v2: beta returns, beta-two goes, gamma is no longer deprecated; alpha stays blocked (same tree).
    expect(docs[5]).toMatchObject({
      ...head(6, "rollback", v2.id, v4.id),
      ...NOTHING,
      added: [{ name: "beta", version: null, tree_hash: tree(beta) }],
      removed: [{ name: "beta-two", version: null, tree_hash: tree(betaTwo) }],
      undeprecated: [{ name: "gamma" }],
    });
    for (const [i, e] of page.entries.entries())
      expect(e).toMatchObject({ seq: i + 1, action: docs[i]!.action, generation: docs[i]!.generation, at: docs[i]!.at });

    // Pages: by seq, by generation (after its newest entry), by time.
    const bySeq = (await (await get("/v1/changes?since=2&limit=2")).json()) as ChangesPage;
    expect(bySeq.entries.map((e) => e.seq)).toEqual([3, 4]);
    expect(bySeq.next_since).toBe(4);
    const rest = (await (await get(`/v1/changes?since=${bySeq.next_since}&limit=2`)).json()) as ChangesPage;
    expect(rest.entries.map((e) => e.seq)).toEqual([5, 6]);
    expect(rest.next_since).toBeNull();
    const byGeneration = (await (await get(`/v1/changes?since=${v2.id}`)).json()) as ChangesPage;
    expect(byGeneration.entries).toEqual([]);
    const byV3 = (await (await get(`/v1/changes?since=${v3.id}`)).json()) as ChangesPage;
    expect(byV3.entries.map((e) => e.seq)).toEqual([4, 5, 6]);
    const byTime = (await (await get(`/v1/changes?since=${encodeURIComponent(docs[3]!.at)}`)).json()) as ChangesPage;
    expect(byTime.entries.every((e) => Date.parse(e.at) > Date.parse(docs[3]!.at))).toBe(true);

    // The ETag names the history's seq: a poller that has seen it gets a 304.
    const first = await get("/v1/changes?since=6");
    const etag = first.headers.get("ETag")!;
    expect((await call(new Request(`${WORKER_URL}/v1/changes?since=6`, { headers: { "If-None-Match": etag } }))).status).toBe(304);

    // The Atom feeds: the shelf's (and /feed.xml sends readers there), a skill's, linked from the pages.
    const root = await call(new Request(`${WORKER_URL}/feed.xml`, { redirect: "manual" }));
    expect([root.status, root.headers.get("Location")]).toEqual([301, "/ui/feed.xml"]);
    const feedRes = await get("/ui/feed.xml");
    expect(feedRes.headers.get("Content-Type")).toBe("application/atom+xml; charset=utf-8");
    const feed = await feedRes.text();
    expect(feed).toBe(
      renderAtomFeed(
        { self: `${WORKER_URL}/ui/feed.xml`, alternate: `${WORKER_URL}/ui/`, title: "What changed on this shelf", skill: null },
        page.entries,
        "unused",
      ),
    );
    expect([...feed.matchAll(/<id>[^<]*#seq-(\d+)<\/id>/g)].map((m) => Number(m[1]))).toEqual([6, 5, 4, 3, 2, 1]);
    const gammaFeed = await (await get("/ui/skills/gamma/feed.xml")).text();
    expect([...gammaFeed.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1])).toEqual([
      "What changed in gamma",
      "Rollback 6: no longer deprecated: gamma",
      "Publish 4: deprecated gamma: use alpha instead",
      `Publish 2: added gamma ${tree(gamma).slice(0, 12)}`,
    ]);
    const feedEtag = feedRes.headers.get("ETag")!;
    expect((await call(new Request(`${WORKER_URL}/ui/feed.xml`, { headers: { "If-None-Match": feedEtag } }))).status).toBe(304);
    const home = await (await get("/ui/")).text();
    expect(home).toContain('<link rel="alternate" type="application/atom+xml" title="What changed on this shelf" href="/ui/feed.xml"/>');
    // "What's new" on the home page: the newest entries first.
    expect(home).toContain("What&#39;s new</h2>");
    expect(home.indexOf("Rollback 6: added beta")).toBeGreaterThan(-1);
    expect(home.indexOf("Rollback 6: added beta")).toBeLessThan(home.indexOf("Advisory change 5: BLOCKED alpha"));
    const gammaPage = await (await get("/ui/skills/gamma")).text();
    expect(gammaPage).toContain('href="/ui/skills/gamma/feed.xml"');

    // Bad input is a clear problem.
    const unknown = await get(`/v1/changes?since=${"0".repeat(64)}`);
    expect(unknown.status).toBe(404);
    const bad = await get("/v1/changes?since=yesterday");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { param: string }).param).toBe("since");
    expect((await get("/v1/changes?limit=0")).status).toBe(400);
  });

  it("an unpublished shelf has no changes", async () => {
    const call = workerFetch(await adminEnv());
    const empty = (await (await call(new Request(`${WORKER_URL}/v1/changes`))).json()) as ChangesPage;
    expect(empty).toEqual({ current: null, oldest_seq: null, complete: true, entries: [], next_since: null });
  });
});

describe("/v1/changes names the history, not only its seq", () => {
  it("another history at the same seq in the same isolate gets its own ETag and body, and no 304 from the first one's ETag", async () => {
    const call = workerFetch(await adminEnv());
    const publish = (g: BuiltGeneration) => publishGeneration(memorySource(g), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    const first = await build([await skillInput("alpha")]);
    await publish(first);
    const before = await call(new Request(`${WORKER_URL}/v1/changes`));
    const beforeEtag = before.headers.get("ETag")!;
    expect(((await before.json()) as ChangesPage).current).toEqual({ generation: first.id, seq: 1 });
    // A bucket restored, or another shelf in this isolate: storage emptied, the isolate's caches kept.
    await reset();
    resetStorageMemory();
    const second = await build([await skillInput("beta")]);
    await publish(second);
    const after = await call(new Request(`${WORKER_URL}/v1/changes`));
    expect(after.headers.get("ETag")).not.toBe(beforeEtag);
    const page = (await after.json()) as ChangesPage;
    expect(page.current).toEqual({ generation: second.id, seq: 1 });
    expect(page.entries.map((e) => e.generation)).toEqual([second.id]);
    const revalidated = await call(new Request(`${WORKER_URL}/v1/changes`, { headers: { "If-None-Match": beforeEtag } }));
    expect(revalidated.status).toBe(200);
  });
});

describe("lifecycle.yaml served", () => {
  it("marks deprecated skills in /v1, the v0.2 index, search and the pages, and points a renamed skill's /v1 URL at its replacement", async () => {
    const workerEnv = await adminEnv();
    const call = workerFetch(workerEnv);
    const get = (path: string) => call(new Request(`${WORKER_URL}${path}`));
    const shelf = await build(
      [
        await skillInput("lint-rules", { "references/rules.md": "# Rules\nLint rules for code review.\n" }),
        await skillInput("review-kit", { "references/kit.md": "# Kit\nLint rules for code review, newer.\n" }),
      ],
      {
        "lint-rules": { deprecated: "superseded by review-kit", replaced_by: "review-kit" },
        "old-review": { deprecated: null, replaced_by: "review-kit" },
      },
    );
    await publishGeneration(memorySource(shelf), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });

    const list = (await (await get("/v1/skills")).json()) as { skills: { name: string; deprecated: string | null; replaced_by: string | null }[] };
    expect(list.skills.map((s) => [s.name, s.deprecated, s.replaced_by])).toEqual([
      ["lint-rules", "superseded by review-kit", "review-kit"],
      ["review-kit", null, null],
    ]);
    const detail = (await (await get("/v1/skills/lint-rules")).json()) as { deprecated: string; replaced_by: string };
    expect([detail.deprecated, detail.replaced_by]).toEqual(["superseded by review-kit", "review-kit"]);

    const renamed = await call(new Request(`${WORKER_URL}/v1/skills/old-review`, { redirect: "manual" }));
    expect(renamed.status).toBe(301);
    expect(renamed.headers.get("Location")).toBe("/v1/skills/review-kit");
    expect(await renamed.json()).toEqual({ name: "old-review", replaced_by: "review-kit", location: "/v1/skills/review-kit" });
    // A name with no tombstone stays a plain 404.
    expect((await get("/v1/skills/never-was")).status).toBe(404);

    const index = (await (await get("/.well-known/agent-skills/index.json")).json()) as { skills: Record<string, unknown>[] };
    expect(index.skills.find((s) => s.name === "lint-rules")).toMatchObject({ deprecated: "superseded by review-kit", replaced_by: "review-kit" });
    expect(index.skills.find((s) => s.name === "review-kit")).not.toHaveProperty("deprecated");

    // Both match "lint rules code review"; the deprecated one ranks last, and `skills find` omits it.
    const search = (await (await get("/v1/search?q=lint%20rules%20code%20review")).json()) as { results: { name: string }[] };
    expect(search.results.map((r) => r.name)).toEqual(["review-kit", "lint-rules"]);
    const find = (await (await get("/api/search?q=lint%20rules%20code%20review")).json()) as { skills: { name: string }[] };
    expect(find.skills.map((r) => r.name)).toEqual(["review-kit"]);

    const page = await (await get("/ui/skills/lint-rules")).text();
    expect(page).toContain("<strong>Deprecated:</strong> superseded by review-kit");
    expect(page).toContain('href="/ui/skills/review-kit"');
    expect(await (await get("/ui/skills/review-kit")).text()).not.toContain("Deprecated:");

    // MCP: the entry carries the deprecation under our _meta key; others do not.
    const { skills } = await connectMcp({ bindings: workerEnv });
    const { skill } = await skills.get(skillUri("lint-rules", "SKILL.md"));
    expect(skill._meta?.[LIFECYCLE_META_KEY]).toEqual({ deprecated: "superseded by review-kit", replaced_by: "review-kit" });
    const { skill: current } = await skills.get(skillUri("review-kit", "SKILL.md"));
    expect(current._meta).not.toHaveProperty(LIFECYCLE_META_KEY);
  });
});

describe("gc and change documents", () => {
  it("keeps every document the history names and deletes one it no longer names", async () => {
    const call = workerFetch(await adminEnv());
    const v1 = await build([await skillInput("alpha")]);
    const v2 = await build([await skillInput("alpha"), await skillInput("beta")]);
    for (const g of [v1, v2]) await publishGeneration(memorySource(g), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });
    // A document whose entry the history has dropped (the history keeps HISTORY_LIMIT entries).
    const orphan = changesKey("f".repeat(64));
    await env.SHELF_BUCKET.put(orphan, "{}");
    const res = await pastMinGrace(() => call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })));
    expect(res.status).toBe(200);
    expect(await env.SHELF_BUCKET.head(orphan)).toBeNull();
    const pointer = PointerSchema.parse(await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json());
    expect(pointer.history).toHaveLength(2);
    for (const h of pointer.history) expect(await env.SHELF_BUCKET.head(changesKey(h.changes!))).not.toBeNull();
    // v1 itself was collected (keep 0), but its entry's document still reads.
    const page = (await (await call(new Request(`${WORKER_URL}/v1/changes`))).json()) as ChangesPage;
    expect(page.entries.map((e) => e.changes?.added.map((a) => a.name))).toEqual([["alpha"], ["beta"]]);
  });
});
