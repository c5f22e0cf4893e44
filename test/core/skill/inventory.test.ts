import { describe, expect, it } from "vitest";
import { buildInventory, DEFAULT_MEDIA_TYPE, hasScripts, mediaTypeFor } from "../../../src/core/skill/inventory.ts";

const enc = new TextEncoder();

describe("has_scripts (AbstractSkill's structural rule)", () => {
  it.each([
    [["SKILL.md", "scripts/notes.md"], true], // anything under top-level scripts/
    [["SKILL.md", "tools/helper.PY"], true], // code extension anywhere, case-insensitive
    [["SKILL.md", "a/b/c.wasm"], true],
    [["SKILL.md", "sub/scripts/x.md"], false], // only the top-level scripts/ counts
    [["SKILL.md", "ui/App.tsx", "x.jsx", "y.pyc", "z.ksh", "doc.html"], false], // not in the list
    [["SKILL.md", ".py"], false], // a dotfile has no suffix
  ])("%j → %s", (paths, expected) => {
    expect(hasScripts(paths)).toBe(expected);
  });
});

describe("media types come from a fixed table", () => {
  it.each([
    ["SKILL.md", "text/markdown; charset=utf-8"],
    ["references/API.JSON", "application/json"],
    ["assets/logo.svg", "image/svg+xml"],
    ["assets/shot.png", "image/png"],
    ["scripts/run.sh", "text/x-shellscript; charset=utf-8"],
    ["Makefile", DEFAULT_MEDIA_TYPE],
    [".env", DEFAULT_MEDIA_TYPE],
    ["data.unknownext", DEFAULT_MEDIA_TYPE],
  ])("%s → %s", (p, type) => {
    expect(mediaTypeFor(p)).toBe(type);
  });
});

describe("buildInventory", () => {
  it("needs SKILL.md at the root", async () => {
    await expect(buildInventory([{ path: "sub/SKILL.md", bytes: enc.encode("x") }])).rejects.toThrow(/SKILL\.md/);
  });
  it("sorts files bytewise and sums their sizes", async () => {
    const inv = await buildInventory([
      { path: "b.md", bytes: enc.encode("bb") },
      { path: "SKILL.md", bytes: enc.encode("# Hello\n") },
      { path: "B.md", bytes: enc.encode("") },
    ]);
    expect(inv.files.map((f) => f.path)).toEqual(["B.md", "SKILL.md", "b.md"]);
    expect(inv.total_bytes).toBe(10);
    expect(inv.content_hash).toBe("90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be");
  });
});
