// skills/list pages in shelf order (by shard, then by name) so that a cold page reads only the
// shards it spans (issue 35), where a listing in name order reads every shard of the shelf. On a
// shelf of 320 skills (8 shards), a cold isolate's first page, and a page after a cursor, must
// read exactly the shards holding the skills they return and the next page's first one (plus,
// after a cursor, the shard the cursor's skill is in), an `?include=` scope's page only its names'
// shards, and every page together must be every served skill once. Reads are recorded at the R2 binding (the fixture shelf has no KV copies).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type GenerationManifest, shardCountFor, shardOf } from "../../../src/core/generation/manifest.ts";
import app from "../../../src/worker/index.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { MCP_PAGE_SIZE } from "../../../src/worker/views/mcp/source.ts";
import { encodeCursor } from "../../../src/worker/views/mcp/uris.ts";
import { advisoryFor, publishFixtureShelf, type PublishedFixture } from "../fixture-shelf.ts";
import { BASE, modernRequest } from "./helpers.ts";
import { keyRecordingEnv } from "../budget/storage-ops.ts";

const COUNT = 320;
const NAMES = Array.from({ length: COUNT }, (_, i) => `s-${String(i).padStart(3, "0")}`);
const SHARDS = shardCountFor(COUNT);
const byShelfOrder = (a: string, b: string) => shardOf(a, SHARDS) - shardOf(b, SHARDS) || (a < b ? -1 : a > b ? 1 : 0);
/** Blocked by an advisory: one in the first shard (so a page's first batch of shards comes up one skill short) and one later. */
const BLOCKED = [NAMES.filter((n) => shardOf(n, SHARDS) === 0)[3]!, NAMES.filter((n) => shardOf(n, SHARDS) === 5)[0]!];
const SERVED = NAMES.filter((n) => !BLOCKED.includes(n)).sort(byShelfOrder);

let shelf: PublishedFixture;
/** Shard index by the shard's SHA-256, from the published manifest. */
let shardIndexOf: Map<string, number>;

beforeAll(async () => {
  shelf = await publishFixtureShelf(
    env,
    NAMES.map((name) => ({ name, description: `Skill ${name}.` })),
    { advisories: BLOCKED.map((name, i) => advisoryFor(name, { advisory_id: `ADV-ORDER-${i}` })) },
  );
  const manifest = (await (await env.SHELF_BUCKET.get(r2Key("generation", shelf.generation)))!.json()) as GenerationManifest;
  expect(manifest.shard_count).toBe(8);
  shardIndexOf = new Map(manifest.shards.map((ref) => [ref.sha256, ref.index]));
}, 120_000);

/** One cold skills/list call: its skill names, its cursor, and the indexes of the shards it read from R2. */
async function coldPage(cursor?: string, path = "/mcp"): Promise<{ names: string[]; nextCursor?: string; shardsRead: Set<number> }> {
  resetStorageMemory();
  const log: string[] = [];
  const response = await app.request(`${BASE}${path}`, modernRequest("skills/list", cursor === undefined ? {} : { cursor }), keyRecordingEnv(env, log));
  const keys = log.filter((line) => line.startsWith("r2 get ")).map((line) => line.slice("r2 get ".length));
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { result: { skills: { uri: string }[]; nextCursor?: string } };
  const shardPrefix = r2Key("shard", "0".repeat(64)).slice(0, -64);
  const shardsRead = new Set(keys.filter((k) => k.startsWith(shardPrefix)).map((k) => shardIndexOf.get(k.slice(shardPrefix.length))!));
  const names = body.result.skills.map((s) => /^skill:\/\/([^/]+)\/SKILL\.md$/.exec(s.uri)![1]!);
  return { names, ...(body.result.nextCursor === undefined ? {} : { nextCursor: body.result.nextCursor }), shardsRead };
}

/** The shards holding `names`. */
const shardsOf = (names: readonly string[]) => new Set(names.map((n) => shardOf(n, SHARDS)));

describe("skills/list in shelf order", () => {
  it("a cold first page reads only the shards of its skills and of the next page's first one", async () => {
    const page = await coldPage();
    expect(page.names).toEqual(SERVED.slice(0, MCP_PAGE_SIZE));
    expect(page.shardsRead).toEqual(shardsOf(SERVED.slice(0, MCP_PAGE_SIZE + 1)));
    expect(page.shardsRead.size).toBeLessThan(5);
    expect(page.nextCursor).toBeDefined();
  });

  it("a cold page after a cursor reads the cursor's shard and the shards of its own skills and the next one's", async () => {
    const first = await coldPage();
    const second = await coldPage(first.nextCursor);
    expect(second.names).toEqual(SERVED.slice(MCP_PAGE_SIZE, 2 * MCP_PAGE_SIZE));
    const expected = shardsOf([first.names.at(-1)!, ...SERVED.slice(MCP_PAGE_SIZE, 2 * MCP_PAGE_SIZE + 1)]);
    expect(second.shardsRead).toEqual(expected);
    expect(second.shardsRead.size).toBeLessThan(6);
  });

  it("every page together is every served skill once, blocked ones absent, the last page without a cursor", async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await coldPage(cursor);
      names.push(...page.names);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 20);
    expect(names).toEqual(SERVED);
    expect(pages).toBe(Math.ceil(SERVED.length / MCP_PAGE_SIZE));
  });

  it("a cold page of an ?include= scope reads only the shards its names live in", async () => {
    // Three served names in three shards, a blocked one, and one the shelf does not have.
    const wanted = [1, 4, 6].map((shard) => NAMES.filter((n) => shardOf(n, SHARDS) === shard && !BLOCKED.includes(n))[2]!);
    const include = [...wanted, BLOCKED[1]!, "not-on-this-shelf"];
    const page = await coldPage(undefined, `/mcp?include=${include.join(",")}`);
    expect(page.names).toEqual([...wanted].sort(byShelfOrder));
    expect(page.shardsRead).toEqual(shardsOf(include));
    expect(page.shardsRead.size).toBeLessThan(SHARDS);
    expect(page.nextCursor).toBeUndefined();
  });

  it("a cursor naming a skill the shelf no longer has resumes after that name in its shard", async () => {
    // "s-0005" is not a skill here (names have three digits), so this is a cursor from another generation.
    const gone = "s-0005";
    const page = await coldPage(encodeCursor(gone));
    const start = SERVED.findIndex((n) => byShelfOrder(n, gone) > 0);
    expect(page.names).toEqual(SERVED.slice(start, start + MCP_PAGE_SIZE));
  });
});
