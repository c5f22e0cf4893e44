// The search index a build stores (assembleGeneration): one canonical-JSON blob referenced by
// the manifest, equal to buildSearchIndex over the generation's records with their outline's
// section titles (the text before the first heading has none), and the same bytes on every build.
import { describe, expect, it } from "vitest";
import { searchableRecord } from "../../../src/core/generation/assemble.ts";
import { canonicalJson, isCanonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { PREAMBLE_TITLE } from "../../../src/core/disclosure/outline.ts";
import { buildSearchIndex } from "../../../src/core/search/bm25.ts";
import { buildGeneration, skillInput } from "../../worker/admin/helpers.ts";

async function built() {
  return buildGeneration([await skillInput("alpha", { "references/a.md": "# A\n" }), await skillInput("beta")]);
}

describe("the stored search index", () => {
  it("is one canonical blob the manifest references, equal to buildSearchIndex over the records", async () => {
    const g = await built();
    const ref = g.manifest.search!;
    const blob = g.objects.find((o) => o.kind === "blob" && o.sha256 === ref.sha256)!;
    expect(blob.bytes.length).toBe(ref.size);
    expect(isCanonicalJson(blob.bytes)).toBe(true);
    const records = g.objects.filter((o) => o.kind === "record").map((o) => SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))));
    expect(blob.bytes).toEqual(canonicalJson(buildSearchIndex(records.map(searchableRecord))));
  });

  it("indexes the outline's headings but not the preamble's placeholder title", () => {
    const outline = {
      total_tokens: 30,
      sections: [
        { key: "preamble", level: 0, title: PREAMBLE_TITLE, tokens: 10 },
        { key: "setup", level: 1, title: "Setup", tokens: 10 },
        { key: "rotating-keys", level: 2, title: "Rotating keys", tokens: 10 },
      ],
    };
    const searchable = searchableRecord({ name: "n", description: "d", tags: ["t"], when_to_use: ["w"], outline });
    expect(searchable).toEqual({ name: "n", description: "d", tags: ["t"], when_to_use: ["w"], sections: ["Setup", "Rotating keys"] });
  });

  it("has the same bytes, and so the same generation id, on every build", async () => {
    const [a, b] = [await built(), await built()];
    expect(a.manifest.search).toEqual(b.manifest.search);
    expect(a.id).toBe(b.id);
  });
});
