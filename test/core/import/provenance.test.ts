// provenance.yaml: written and read back unchanged, malformed entries listed, and what a record publishes.
import { describe, expect, it } from "vitest";
import { parseProvenance, ProvenanceError, publishedProvenance, serializeProvenance, type ProvenanceEntry } from "../../../src/core/import/provenance.ts";

const ENTRY: ProvenanceEntry = {
  kind: "git",
  source: "https://github.com/acme/skills",
  url: "https://github.com/acme/skills.git",
  path: "skills/pdf",
  ref: "main",
  commit: "0123456789abcdef0123456789abcdef01234567",
  digest: null,
  version: "1.0",
  imported_at: "2026-12-02T09:00:00Z",
  tree_hash: "a".repeat(64),
};

describe("provenance.yaml", () => {
  it("round-trips, skills in name order, versions kept as strings", () => {
    const text = serializeProvenance(
      new Map([
        ["zeta", { ...ENTRY, path: "skills/zeta" }],
        ["pdf", ENTRY],
      ]),
    );
    expect(text.indexOf("pdf:")).toBeLessThan(text.indexOf("zeta:"));
    expect(text).toMatch(/version: "1\.0"/);
    expect(parseProvenance(text).get("pdf")).toEqual(ENTRY);
    expect(parseProvenance("").size).toBe(0);
  });

  it("lists every malformed entry", () => {
    const error = (() => {
      try {
        parseProvenance("skills:\n  a:\n    kind: svn\n  b:\n    tree_hash: nope\n");
      } catch (e) {
        return e;
      }
    })() as ProvenanceError;
    expect(error).toBeInstanceOf(ProvenanceError);
    expect(error.problems.some((p) => p.startsWith("skills.a.kind"))).toBe(true);
    expect(error.problems.some((p) => p.startsWith("skills.b.tree_hash"))).toBe(true);
    expect(() => parseProvenance("skill: {}\n")).toThrow(/unknown key/);
    expect(() => parseProvenance("skills:\n  a: &x {}\n  b: *x\n")).toThrow(ProvenanceError);
  });

  it("publishes without the fetch URL, saying whether the folder changed", () => {
    expect(publishedProvenance(ENTRY, ENTRY.tree_hash)).not.toHaveProperty("url");
    expect(publishedProvenance(ENTRY, ENTRY.tree_hash).modified).toBe(false);
    expect(publishedProvenance(ENTRY, "b".repeat(64)).modified).toBe(true);
  });
});
