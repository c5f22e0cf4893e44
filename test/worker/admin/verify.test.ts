// Unit tests of src/worker/admin/verify.ts and gc's planning (src/worker/admin/gc.ts): pure
// functions over parsed documents and listings that return problems and plans, never throw.
import { describe, expect, it } from "vitest";
import { doomedSignatures, liveRoots, type Listing } from "../../../src/worker/admin/gc.ts";
import { checkManifestAgainstShards, parseDocument } from "../../../src/worker/admin/verify.ts";
import { buildGeneration, skillInput } from "./helpers.ts";

describe("parseDocument", () => {
  it("returns the problem of a document that is not its kind's, or of a skill the build refuses", () => {
    expect(parseDocument("record", { nope: true })).toMatchObject({ code: "invalid_document", message: expect.stringMatching(/^not a skill record: /) });
    expect(parseDocument("shard", [])).toMatchObject({ code: "invalid_document", message: expect.stringMatching(/^not a shard: /) });
    expect(parseDocument("generation", "x")).toMatchObject({ code: "invalid_document" });
  });

  it("returns the parsed document of a generation as built", async () => {
    const built = await buildGeneration([await skillInput("solo")]);
    const manifest = JSON.parse(new TextDecoder().decode(built.manifestBytes)) as unknown;
    expect(parseDocument("generation", manifest)).toMatchObject({ kind: "generation" });
  });
});

describe("checkManifestAgainstShards", () => {
  it("returns null for a generation as built, and the problem for totals that disagree", async () => {
    const built = await buildGeneration([await skillInput("solo"), await skillInput("other")]);
    const manifest = parseDocument("generation", JSON.parse(new TextDecoder().decode(built.manifestBytes)));
    if (!("kind" in manifest) || manifest.kind !== "generation") throw new Error("fixture manifest did not parse");
    const shards = manifest.manifest.shards.map((ref) => {
      const object = built.objects.find((o) => o.kind === "shard" && o.sha256 === ref.sha256)!;
      const parsed = parseDocument("shard", JSON.parse(new TextDecoder().decode(object.bytes)));
      if (!("kind" in parsed) || parsed.kind !== "shard") throw new Error("fixture shard did not parse");
      return parsed.shard;
    });
    expect(checkManifestAgainstShards(manifest.manifest, shards)).toBeNull();
    const problem = checkManifestAgainstShards({ ...manifest.manifest, file_count: manifest.manifest.file_count + 1 }, shards);
    expect(problem).toMatchObject({ code: "invalid_document", message: expect.stringMatching(/totals .* rebuild it with skillshelf build$/) });
  });
});

describe("gc's planning", () => {
  const listing = (entries: Record<string, number>): Listing => new Map(Object.entries(entries).map(([sha, uploaded]) => [sha, { uploaded, size: 1 }]));

  it("starts the live walk at the kept generations and every object uploaded after the grace cut", () => {
    const listed = { generation: listing({ g1: 10, g2: 500 }), shard: listing({ s1: 10, s2: 600 }), record: listing({ r1: 10 }), blob: listing({ b1: 700 }) };
    expect(liveRoots(listed, ["g1"], 100)).toEqual({ generation: ["g1", "g2"], shard: ["s2"], record: [], blob: ["b1"] });
  });

  it("deletes the signatures of every generation outside the live set", () => {
    expect(doomedSignatures(["g1", "g2", "g3"], new Map([["g2", {}]]))).toEqual(["g1", "g3"]);
  });
});
