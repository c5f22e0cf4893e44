// src/worker/storage/addressed.ts: a manifest or shard whose bytes hashed to their key is read
// without its zod schema, but still refused (a 503's StorageUnavailableError) when it is of
// another format or lacks what the readers index by; a document the build wrote reads exactly
// as JSON.parse gives it.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { reset } from "cloudflare:test";
import { parseManifestDocument, parseShardDocument } from "../../../src/worker/storage/addressed.ts";
import { resetStorageMemory, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
import { kvKey } from "../../../src/worker/storage/keys.ts";
import { publishShelf } from "./helpers.ts";

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

/** The published shelf's manifest and first shard, as the texts KV holds. */
async function storedTexts(): Promise<{ manifest: string; shard: string }> {
  const published = await publishShelf(["alpha", "beta"]);
  const manifest = (await env.SHELF_KV.get(kvKey("generation", published.id)))!;
  const shard = (await env.SHELF_KV.get(kvKey("shard", published.manifest.shards[0]!.sha256)))!;
  return { manifest, shard };
}

/** `text` parsed, edited by `edit`, and serialised again. */
function edited(text: string, edit: (json: Record<string, unknown>) => void): string {
  const json = JSON.parse(text) as Record<string, unknown>;
  edit(json);
  return JSON.stringify(json);
}

describe("content-addressed documents read without their zod schema", () => {
  it("reads a built manifest and shard exactly as stored", async () => {
    const { manifest, shard } = await storedTexts();
    expect(parseManifestDocument(manifest, "m")).toEqual(JSON.parse(manifest));
    const parsed = parseShardDocument(shard, "s");
    expect(parsed).toEqual(JSON.parse(shard));
    expect(parsed.skills.map((s) => s.name)).toEqual(["alpha", "beta"].filter((n) => shard.includes(`"${n}"`)));
  });

  it("refuses another format's shard or manifest, and one without what readers index by", async () => {
    const { manifest, shard } = await storedTexts();
    const badShards = [
      "{not json",
      "[]",
      edited(shard, (j) => (j.schema = "skillshelf.shard/1")),
      edited(shard, (j) => delete j.index),
      edited(shard, (j) => (j.skills = {})),
      edited(shard, (j) => ((j.skills as Record<string, unknown>[])[0]!.name = 7)),
      edited(shard, (j) => delete (j.skills as Record<string, unknown>[])[0]!.record),
    ];
    for (const text of badShards) expect(() => parseShardDocument(text, "s"), text.slice(0, 60)).toThrow(StorageUnavailableError);
    const badManifests = [
      edited(manifest, (j) => (j.schema = "skillshelf.generation/0")),
      edited(manifest, (j) => delete j.shards),
      edited(manifest, (j) => ((j.shards as Record<string, unknown>[])[0]!.size = "1")),
      edited(manifest, (j) => delete j.shelf),
    ];
    for (const text of badManifests) expect(() => parseManifestDocument(text, "m"), text.slice(0, 60)).toThrow(StorageUnavailableError);
  });
});
