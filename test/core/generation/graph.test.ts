// The generation graph walk (src/core/generation/graph.ts) on a generation built in memory: what
// each document references, which documents a walk reads, and how `select` and shard blob lists
// prune it, as publish and gc use it.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { generationReferences, recordBlobs, shardReferences, walkGeneration, type DocumentKind } from "../../../src/core/generation/graph.ts";
import { SkillRecordSchema, type Shard } from "../../../src/core/generation/manifest.ts";
import { buildGeneration, skillInput } from "../../worker/admin/helpers.ts";

async function built() {
  return buildGeneration(
    [await skillInput("alpha"), await skillInput("beta", { "references/guide.md": "# Guide\n", "assets/same.txt": "# Guide\n" })],
    [{ name: "x", source: "y", official_intent: "i", hidden_issue: "h", severity: "low", reference: "r", status: "active" }],
  );
}

/** A reader over the built objects that records what it read. */
function reader(generation: Awaited<ReturnType<typeof built>>, override: (kind: DocumentKind, json: unknown) => unknown = (_k, j) => j) {
  const reads: string[] = [];
  const read = async (kind: DocumentKind, sha: string) => {
    reads.push(`${kind}:${sha}`);
    if (kind === "generation") return generation.manifest;
    const object = generation.objects.find((o) => o.kind === kind && o.sha256 === sha)!;
    return override(kind, JSON.parse(new TextDecoder().decode(object.bytes)));
  };
  return { read, reads };
}

const shas = (generation: Awaited<ReturnType<typeof built>>, kind: string) =>
  generation.objects
    .filter((o) => o.kind === kind)
    .map((o) => o.sha256)
    .sort();

describe("references", () => {
  it("a record references its files' blobs, then its three archives (repeats kept)", async () => {
    const g = await built();
    const beta = g.objects
      .filter((o) => o.kind === "record")
      .map((o) => SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))))
      .find((r) => r.name === "beta")!;
    const blobs = recordBlobs(beta);
    expect(blobs).toHaveLength(beta.files.length + 3);
    expect(beta.archives.claude_plugin).toBeDefined();
    expect(blobs.slice(-3)).toEqual([beta.archives.tar_gz, beta.archives.zip, beta.archives.claude_plugin]);
    expect(new Set(blobs.map((b) => b.sha256)).size).toBe(blobs.length - 1); // guide.md and same.txt share bytes
    // A record built before the plugin zip existed references its two archives only.
    const { claude_plugin: _plugin, ...older } = beta.archives;
    expect(recordBlobs({ ...beta, archives: older })).toHaveLength(beta.files.length + 2);
  });

  it("a manifest references its shards, its advisories blob and its search index; a shard its records and its blob list", async () => {
    const g = await built();
    const refs = generationReferences(g.manifest);
    expect(
      refs
        .filter((r) => r.kind === "shard")
        .map((r) => r.sha256)
        .sort(),
    ).toEqual(shas(g, "shard"));
    expect(g.manifest.search).toBeDefined();
    expect(refs.filter((r) => r.kind === "blob")).toEqual([
      { kind: "blob", ...g.manifest.shelf.advisories! },
      { kind: "blob", ...g.manifest.search! },
    ]);
    // A manifest built before the search index (no `search`) references only what it had.
    const { search: _none, ...older } = g.manifest;
    expect(generationReferences(older).filter((r) => r.kind === "blob")).toEqual([{ kind: "blob", ...g.manifest.shelf.advisories! }]);
    const shard = JSON.parse(new TextDecoder().decode(g.objects.find((o) => o.kind === "shard")!.bytes)) as Shard;
    const shardRefs = shardReferences(shard);
    expect(shardRefs.filter((r) => r.kind === "record")).toHaveLength(shard.skills.length);
    expect(shardRefs.filter((r) => r.kind === "blob").map((r) => r.sha256)).toEqual(shard.blobs);
    expect(shardReferences({ skills: shard.skills }).every((r) => r.kind === "record")).toBe(true);
  });
});

describe("walkGeneration", () => {
  it("selecting everything reaches every object of the generation, reading each document once", async () => {
    const g = await built();
    const { read, reads } = reader(g);
    const walk = await walkGeneration({ roots: { generation: [g.id] }, select: (_kind, list) => list, read });
    for (const kind of ["blob", "record", "shard"] as const) expect([...walk.reached[kind].keys()].sort(), kind).toEqual(shas(g, kind));
    expect(walk.selected.generation).toEqual([g.id]);
    expect(reads).toHaveLength(1 + shas(g, "shard").length + shas(g, "record").length);
    expect(new Set(reads).size).toBe(reads.length);
    // Sizes come from the referencing document.
    for (const o of g.objects) expect(walk.reached[o.kind].get(o.sha256), `${o.kind} ${o.sha256}`).toBe(o.bytes.length);
  });

  it("descends only into what `select` takes (publish: what the Worker lacks)", async () => {
    const g = await built();
    const { read, reads } = reader(g);
    const asked: string[] = [];
    const walk = await walkGeneration({
      roots: { generation: [g.id] },
      select: (kind, list) => {
        asked.push(kind);
        return kind === "shard" ? [] : list;
      },
      read,
    });
    expect(asked).toEqual(["generation", "shard", "record", "blob"]);
    expect(reads).toEqual([`generation:${g.id}`]);
    expect(walk.reached.record.size).toBe(0);
    expect([...walk.reached.blob.keys()]).toEqual([g.manifest.shelf.advisories!.sha256, g.manifest.search!.sha256]);
  });

  it("with trustShardBlobLists takes a shard's blob list instead of reading its records, unless the shard has none", async () => {
    const g = await built();
    const trusting = reader(g);
    const walk = await walkGeneration({ roots: { generation: [g.id] }, select: (_k, list) => list, read: trusting.read, trustShardBlobLists: true });
    expect(trusting.reads.filter((r) => r.startsWith("record:"))).toEqual([]);
    expect([...walk.reached.blob.keys()].sort()).toEqual(shas(g, "blob"));
    expect([...walk.reached.record.keys()].sort()).toEqual(shas(g, "record"));

    // The earliest shard/1 documents had no blob list: their records are read.
    const listless = reader(g, (kind, json) => {
      if (kind !== "shard") return json;
      const { blobs: _dropped, ...rest } = json as Shard;
      return { ...rest, schema: "skillshelf.shard/1" };
    });
    const old = await walkGeneration({ roots: { generation: [g.id] }, select: (_k, list) => list, read: listless.read, trustShardBlobLists: true });
    expect(listless.reads.filter((r) => r.startsWith("record:"))).toHaveLength(shas(g, "record").length);
    expect([...old.reached.blob.keys()].sort()).toEqual(shas(g, "blob"));
  });

  it("reads a root record no shard reaches (gc: a young upload), even when trusting blob lists", async () => {
    const g = await built();
    const record = g.objects.find((o) => o.kind === "record")!;
    const { read, reads } = reader(g);
    const walk = await walkGeneration({ roots: { record: [record.sha256] }, select: (_k, list) => list, read, trustShardBlobLists: true });
    expect(reads).toEqual([`record:${record.sha256}`]);
    const parsed = SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(record.bytes)));
    expect([...walk.reached.blob.keys()].sort()).toEqual([...new Set(recordBlobs(parsed).map((b) => b.sha256))].sort());
    expect(canonicalJson(parsed)).toEqual(record.bytes);
  });
});
