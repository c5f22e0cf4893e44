// A cold search reads the stored index and the shards of the skills it ranks, not every shard of
// the generation (src/worker/shelf/search.ts): on a shelf of 129 skills in 4 shards, a query that
// ranks skills of one or two shards reads those shards alone, and answers what core ranks over the
// servable skills (an advisory blocking the best hit leaves it out, and the next one in).
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { GenerationManifestSchema, shardOf } from "../../../src/core/generation/manifest.ts";
import app from "../../../src/worker/index.ts";
import { keyRecordingEnv } from "../budget/storage-ops.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetSearchIndexCache } from "../../../src/worker/shelf/search.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { advisoryFor, type PublishedFixture, publishFixtureShelf, setFixtureAdvisories } from "../fixture-shelf.ts";
import { expectedHits } from "./search-fixture.ts";

/** Past 128 skills: four shards (64 a shard), the fewest at which a search can read fewer than half. */
const SKILLS = 129;
const name = (i: number) => `skill-${String(i).padStart(3, "0")}`;
/** Skills whose descriptions carry a word no other skill's does. */
const RARE: Record<number, string> = { 7: "zeppelin", 70: "zeppelin airship", 120: "airship" };
let published: PublishedFixture;
/** The generation's shards: `shards/<sha256>` by shard index. */
let shardKeys = new Map<number, string>();
let shardCount = 0;

function coldIsolate(): void {
  resetStorageMemory();
  resetComputedCache();
  resetSearchIndexCache();
}

/** A cold search with every shard key it read (R2 `shards/…`, KV `shard:…`). */
async function coldSearch(q: string, limit = 10): Promise<{ names: string[]; shardReads: string[] }> {
  coldIsolate();
  const log: string[] = [];
  const res = await app.request(`https://shelf.test/v1/search?q=${encodeURIComponent(q)}&limit=${limit}`, {}, keyRecordingEnv(env, log));
  const shardReads = log.flatMap((line) => {
    const key = line.split(" ")[2]!;
    return /^(shards\/|shard:)/.test(key) ? [key.replace(/^shard:/, "shards/")] : [];
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { results: Array<{ name: string }> };
  return { names: answer.results.map((r) => r.name), shardReads: [...new Set(shardReads)] };
}

/** The shard keys (as `shards/<sha256>`) the named skills live in. */
function shardKeysOf(names: string[]): string[] {
  return [...new Set(names.map((n) => shardKeys.get(shardOf(n, shardCount))!))].sort();
}

beforeAll(async () => {
  published = await publishFixtureShelf(
    env,
    Array.from({ length: SKILLS }, (_, i) => ({ name: name(i), description: `Helps with chores, item ${i}${RARE[i] ? `, and the ${RARE[i]}` : ""}.` })),
  );
  const manifest = GenerationManifestSchema.parse(await (await env.SHELF_BUCKET.get(r2Key("generation", published.generation)))!.json());
  shardCount = manifest.shard_count;
  shardKeys = new Map(manifest.shards.map((ref) => [ref.index, `shards/${ref.sha256}`]));
});

beforeEach(async () => {
  await setFixtureAdvisories(env, [], 1);
});

it("reads the shards of the ranked skills only", async () => {
  expect(shardCount).toBeGreaterThanOrEqual(4);
  const { names, shardReads } = await coldSearch("zeppelin");
  expect(names).toEqual(expectedHits(published, "zeppelin", 10, { blocked: [] }).map((h) => h.name));
  expect(names.sort()).toEqual([name(7), name(70)]);
  expect(shardReads.sort()).toEqual(shardKeysOf(names));
  expect(shardReads.length).toBeLessThan(shardCount);
});

it("leaves a blocked best hit out and ranks the next servable one in, reading only the ranked skills' shards", async () => {
  await setFixtureAdvisories(env, [advisoryFor(name(70))], 2);
  const ranked = expectedHits(published, "zeppelin airship", 10, { blocked: [] }).map((h) => h.name);
  expect(ranked[0]).toBe(name(70));
  const { names, shardReads } = await coldSearch("zeppelin airship", 1);
  expect(names).toEqual(expectedHits(published, "zeppelin airship", 1, { blocked: [name(70)] }).map((h) => h.name));
  expect(names).toHaveLength(1);
  // Ranked: the blocked one and as many more as an advisory can block (two), at most three skills' shards.
  expect(shardReads.length).toBeLessThanOrEqual(3);
  expect(shardReads.length).toBeLessThan(shardCount);
});

it("ranks no more for an advisory that is no longer active (it blocks nothing)", async () => {
  await setFixtureAdvisories(env, [{ ...advisoryFor(name(70), { status: "withdrawn" }), withdrawn_reason: "fixed", withdrawn_at: "2026-11-30" }], 3);
  const { names, shardReads } = await coldSearch("zeppelin airship", 1);
  expect(names).toEqual([name(70)]);
  expect(shardReads).toEqual(shardKeysOf([name(70)]));
});
