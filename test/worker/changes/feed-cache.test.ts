// The Atom feeds at 10,000 skills (issue 35): a render parses and walks a ~1.2 MiB change
// document. The shelf's feed is kept rendered in the isolate's generated-document cache: a hit
// reads the pointer and nothing else and answers the miss's exact headers and bytes; whatever
// changes the history (a publish, an advisory change, another history that reuses a seq) or the
// feed's URLs (another host) gives the bytes rendered from what storage holds, never the kept
// ones. A skill's feed is rendered from the change documents the isolate keeps (room for a
// 10,000-skill first publish) and takes no room in the generated-document cache.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { renderAtomFeed } from "../../../src/core/changes/atom.ts";
import { CHANGES_SCHEMA, ChangeDocumentSchema } from "../../../src/core/changes/document.ts";
import { PointerSchema } from "../../../src/core/generation/manifest.ts";
import type { BuiltGeneration, SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { generatedBytes } from "../../../src/worker/read/generated.ts";
import { FEED_ENTRIES } from "../../../src/worker/shelf/changes.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { readChangeDocument, resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { changesKey, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { countingEnv, noOps } from "../budget/storage-ops.ts";
import { forgetIsolateMemory } from "../cold-isolate.ts";

const FEEDS = ["/ui/feed.xml", "/ui/skills/gamma/feed.xml"];

async function answer(response: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  return { status: response.status, headers: [...response.headers.entries()].sort(), body: await response.text() };
}

/**
 * The feed as rendered from what R2 holds now (the pointer and the change documents it names),
 * without the Worker: what the Worker must answer, whatever its isolate has kept.
 */
async function rendered(path: string, origin: string): Promise<string> {
  const pointer = PointerSchema.parse(await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json());
  const entries = await Promise.all(
    [...pointer.history]
      .sort((a, b) => b.seq - a.seq)
      .slice(0, FEED_ENTRIES)
      .map(async (h) => ({
        seq: h.seq,
        action: h.action,
        at: h.at,
        generation: h.generation,
        changes: h.changes ? ChangeDocumentSchema.parse(await (await env.SHELF_BUCKET.get(changesKey(h.changes)))!.json()) : null,
      })),
  );
  const skill = /^\/ui\/skills\/([^/]+)\/feed\.xml$/.exec(path)?.[1] ?? null;
  const ui = `${origin}/ui`;
  const frame =
    skill === null
      ? { self: `${ui}/feed.xml`, alternate: `${ui}/`, title: "What changed on this shelf", skill }
      : { self: `${ui}/skills/${skill}/feed.xml`, alternate: `${ui}/skills/${skill}`, title: `What changed in ${skill}`, skill };
  return renderAtomFeed(frame, entries, pointer.published_at);
}

async function shelf() {
  const workerEnv = await adminEnv();
  const call = workerFetch(workerEnv);
  const publish = async (skills: readonly SkillBuildInput[]): Promise<BuiltGeneration> => {
    const built = await buildGeneration(skills);
    await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: async () => {} });
    return built;
  };
  const feed = async (path: string, origin = WORKER_URL) => answer(await call(new Request(`${origin}${path}`)));
  return { workerEnv, call, publish, feed };
}

beforeEach(async () => {
  await reset();
  forgetIsolateMemory();
});

describe("the feeds' rendered bytes", () => {
  it("the shelf's feed: a hit reads the pointer and no change document, and answers the miss's exact headers and bytes", async () => {
    const { workerEnv, publish, feed } = await shelf();
    await publish([await skillInput("alpha"), await skillInput("beta")]);
    await publish([await skillInput("alpha"), await skillInput("beta"), await skillInput("gamma")]);
    const miss = await feed("/ui/feed.xml");
    expect(miss.status).toBe(200);
    expect(miss.body).toContain("gamma");
    // The change documents are forgotten: only the kept feed can answer without reading them.
    resetStorageMemory();
    const ops = noOps();
    const hit = await answer(await workerFetch(countingEnv(workerEnv, ops))(new Request(`${WORKER_URL}/ui/feed.xml`)));
    expect(hit).toEqual(miss);
    expect([ops.r2, ops.kv, ops.cache]).toEqual([{ get: 1 }, {}, {}]);
  });

  it("a skill's feed: rendered again from the kept change documents (the pointer read only), and not kept itself", async () => {
    const { workerEnv, publish, feed } = await shelf();
    await publish([await skillInput("alpha"), await skillInput("beta")]);
    await publish([await skillInput("alpha"), await skillInput("beta"), await skillInput("gamma")]);
    const before = generatedBytes();
    const first = await feed("/ui/skills/gamma/feed.xml");
    expect(first.body).toBe(await rendered("/ui/skills/gamma/feed.xml", WORKER_URL));
    expect(generatedBytes()).toBe(before);
    const ops = noOps();
    const again = await answer(await workerFetch(countingEnv(workerEnv, ops))(new Request(`${WORKER_URL}/ui/skills/gamma/feed.xml`)));
    expect(again).toEqual(first);
    expect([ops.r2, ops.kv, ops.cache]).toEqual([{ get: 1 }, {}, {}]);
  });

  it("a publish, an advisory change, another history with the same seq and another host each give the bytes rendered from storage", async () => {
    const { call, publish, feed } = await shelf();
    const alpha = await skillInput("alpha");
    await publish([alpha, await skillInput("gamma")]);
    // Each step asks every feed twice (a miss, then a hit) and keeps every answer: nothing is
    // forgotten, so a key that names too little answers an earlier step's bytes.
    const seen = new Set<string>();
    const check = async (path: string, origin = WORKER_URL) => {
      const first = await feed(path, origin);
      expect(first.status).toBe(200);
      expect(first.body).toBe(await rendered(path, origin));
      expect(await feed(path, origin)).toEqual(first);
      expect(seen.has(first.body)).toBe(false);
      seen.add(first.body);
      return first.body;
    };
    for (const path of FEEDS) await check(path);

    // A publish: a new entry, for the shelf and for gamma, whose tree changed.
    await publish([alpha, await skillInput("gamma", { "references/guide.md": "# Guide\n" })]);
    for (const path of FEEDS) expect(await check(path)).toContain("Publish 2: changed gamma");

    // An advisory change: a new entry that changes neither the generation nor its publish time.
    const advisory = {
      name: "alpha",
      source: "elsewhere",
      official_intent: "Guides.",
      hidden_issue: "It exfiltrates environment variables.",
      severity: "critical",
      reference: "https://example.com/ASA-FEED-1",
      tree_hash: alpha.record.tree_hash,
      advisory_id: "ASA-FEED-1",
    };
    expect((await call(adminRequest("POST", "/advisories", { advisories: [advisory] }))).status).toBe(200);
    expect(await check("/ui/feed.xml")).toContain("Advisory change 3: BLOCKED alpha");

    // Another host: the feed's id and links are its own.
    expect(await check("/ui/feed.xml", "https://other.test")).toContain("<id>https://other.test/ui/feed.xml</id>");

    // Another history in the same isolate (emptied storage, a first publish again): the same seq,
    // other entries.
    await reset();
    const other = await publish([await skillInput("beta"), await skillInput("gamma")]);
    for (const path of FEEDS) {
      const body = await check(path);
      expect(body).toContain(`generation ${other.id}`);
      expect(body).not.toContain("alpha");
    }
  });
});

describe("the isolate's parsed change documents", () => {
  it("keep the first publish of 10,000 skills (~1.2 MiB of JSON): a second read costs no storage", async () => {
    const hex = (i: number) => i.toString(16).padStart(8, "0").repeat(8);
    const doc = {
      schema: CHANGES_SCHEMA,
      seq: 1,
      action: "publish",
      at: "2026-12-01T00:00:00.000Z",
      generation: hex(0),
      previous: null,
      added: Array.from({ length: 10_000 }, (_, i) => ({ name: `bench-skill-${String(i).padStart(5, "0")}`, version: "1.0.0", tree_hash: hex(i) })),
      ...{ removed: [], changed: [], renamed: [], deprecated: [], undeprecated: [], blocked: [], unblocked: [] },
    };
    const text = JSON.stringify(doc);
    expect(text.length).toBeGreaterThan(1.2 * 2 ** 20);
    const sha256 = await sha256Hex(text);
    await env.SHELF_BUCKET.put(changesKey(sha256), text);
    const ops = noOps();
    const counted = countingEnv(env, ops);
    expect((await readChangeDocument(counted, sha256))?.added).toHaveLength(10_000);
    expect((await readChangeDocument(counted, sha256))?.added).toHaveLength(10_000);
    expect(ops.r2).toEqual({ get: 1 });
  });
});
