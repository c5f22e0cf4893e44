import { describe, expect, it } from "vitest";
import trees from "../../goldens/foundation/tree-hashes.json";
import { compareBytes, sha256Hex, sortPathsBytewise, treeHash } from "../../../src/core/skill/hash.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { isOsJunkFile } from "../../../src/core/skill/hash.ts";

const enc = new TextEncoder();
const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

async function entriesOf(files: Record<string, Uint8Array>) {
  return Promise.all(Object.entries(files).map(async ([path, bytes]) => ({ path, sha256: await sha256Hex(bytes) })));
}

describe("tree hash: vectors from the issue and abstractskill.md", () => {
  it("an empty folder hashes to the SHA-256 of empty input", async () => {
    expect(await treeHash([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("SKILL.md + scripts/run.sh gives the worked example", async () => {
    const files = { "SKILL.md": enc.encode("# Hello\n"), "scripts/run.sh": enc.encode("#!/bin/sh\n") };
    expect(await sha256Hex(files["SKILL.md"])).toBe("90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be");
    expect(await treeHash(await entriesOf(files))).toBe("7fe138ad3de585f698571e9f1af8d5361dc59cc0db7703f052fb551c72c016be");
  });

  it("does not depend on the order files are given in", async () => {
    const entries = await entriesOf({ b: enc.encode("2"), a: enc.encode("1"), "a/b": enc.encode("3") });
    expect(await treeHash(entries)).toBe(await treeHash([...entries].reverse()));
  });

  it("is injective: a crafted file name cannot mimic two files", async () => {
    const two = await entriesOf({ x: enc.encode("X"), y: enc.encode("Y") });
    const xDigest = two[0]!.sha256;
    const crafted = await entriesOf({ [`x\n${xDigest}\ny`]: enc.encode("Y") });
    expect(await treeHash(two)).not.toBe(await treeHash(crafted));
  });

  it("rejects an entry without a valid digest", async () => {
    await expect(treeHash([{ path: "a", sha256: "nothex" }])).rejects.toThrow(/valid sha256/);
  });
});

describe("tree hash and inventory: goldens from abstractskill.hash_skill_tree / inspect_skill_dir", () => {
  for (const tree of trees) {
    it(tree.name, async () => {
      const files = Object.entries(tree.files as Record<string, string>)
        .map(([path, b64]) => ({ path, bytes: fromBase64(b64) }))
        // The filesystem reader skips OS junk before hashing, exactly as hash_skill_tree does.
        .filter((f) => !isOsJunkFile(f.path));
      const entries = await Promise.all(files.map(async (f) => ({ path: f.path, sha256: await sha256Hex(f.bytes) })));
      expect(await treeHash(entries)).toBe(tree.tree_hash);
      if ("inventory" in tree && tree.inventory) {
        const inv = await buildInventory(files);
        expect(inv.tree_hash).toBe(tree.tree_hash);
        expect(inv.files.map((f) => [f.path, f.size, f.sha256])).toEqual(tree.inventory.files);
        expect(inv.total_bytes).toBe(tree.inventory.total_bytes);
        expect(inv.has_scripts).toBe(tree.inventory.has_scripts);
      }
    });
  }
});

describe("bytewise path order", () => {
  it("orders by UTF-8 bytes, not UTF-16 code units", () => {
    const sorted = sortPathsBytewise(["\u{1F600}.md", "\uFF21.md", "b", "B"], (p) => p);
    expect(sorted).toEqual(["B", "b", "\uFF21.md", "\u{1F600}.md"]);
    // JS string order disagrees, which is why the helper exists.
    expect(["\u{1F600}.md", "\uFF21.md"].sort()).toEqual(["\u{1F600}.md", "\uFF21.md"]);
  });

  it("matches the reference's example order", () => {
    const order = ["B", "SKILL.md", "_", "a-b", "a.b", "a/b", "a0", "b"];
    expect(sortPathsBytewise([...order].reverse(), (p) => p)).toEqual(order);
    expect(compareBytes(enc.encode("a"), enc.encode("ab"))).toBeLessThan(0);
  });
});
