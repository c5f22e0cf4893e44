// src/core/api/claude-marketplace.ts: the plugin zip holds plugin.json and the skill's files
// under skills/<name>/ byte for byte, is deterministic and in bytewise order; the version follows
// the skill's and changes with its tree; names and review notes.
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  marketplaceName,
  MarketplaceSchema,
  pluginDescription,
  pluginManifest,
  pluginVersion,
  pluginZip,
  PluginArchiveError,
  REVIEW_NOTE,
} from "../../../src/core/api/claude-marketplace.ts";
import { zipArchive } from "../../../src/core/generation/archive.ts";

const enc = new TextEncoder();
const FILES = [
  { path: "SKILL.md", bytes: enc.encode("---\nname: hello\ndescription: Says hello.\n---\n# Hello\n") },
  { path: "references/guide.md", bytes: enc.encode("# Guide\n".repeat(50)) },
  { path: "scripts/run.sh", bytes: enc.encode("#!/bin/sh\necho hi\n") },
];
const SKILL = { name: "hello", description: "Says hello.", version: "1.2.0", tree_hash: "ab".repeat(32) };

describe("pluginZip", () => {
  it("holds .claude-plugin/plugin.json and every skill file under skills/<name>/, byte for byte", () => {
    const zip = pluginZip(zipArchive(FILES), pluginManifest(SKILL));
    const entries = unzipSync(zip);
    expect(Object.keys(entries)).toEqual([
      ".claude-plugin/plugin.json",
      "skills/hello/SKILL.md",
      "skills/hello/references/guide.md",
      "skills/hello/scripts/run.sh",
    ]);
    for (const f of FILES) expect(entries[`skills/hello/${f.path}`]).toEqual(f.bytes);
    expect(JSON.parse(new TextDecoder().decode(entries[".claude-plugin/plugin.json"]))).toEqual({
      name: "hello",
      version: "1.2.0+abababababab",
      description: "Says hello.",
    });
  });

  it("gives the same bytes for the same skill, and other bytes for another version", () => {
    const a = pluginZip(zipArchive(FILES), pluginManifest(SKILL));
    expect(pluginZip(zipArchive(FILES), pluginManifest(SKILL))).toEqual(a);
    expect(pluginZip(zipArchive(FILES), pluginManifest({ ...SKILL, tree_hash: "cd".repeat(32) }))).not.toEqual(a);
  });

  it("refuses a zip the build never writes", () => {
    expect(() => pluginZip(enc.encode("not a zip at all, but long enough to have an end"), pluginManifest(SKILL))).toThrow(PluginArchiveError);
  });
});

describe("pluginVersion", () => {
  it("follows the declared version and carries the tree hash", () => {
    expect(pluginVersion(SKILL)).toBe("1.2.0+abababababab");
    expect(pluginVersion({ version: null, tree_hash: SKILL.tree_hash })).toBe("0.0.0+abababababab");
    expect(pluginVersion({ version: "not-semver", tree_hash: SKILL.tree_hash })).toBe("0.0.0+abababababab");
    expect(pluginVersion({ version: "2.0.0+build.7", tree_hash: SKILL.tree_hash })).toBe("2.0.0+build.7.abababababab");
  });
});

describe("the marketplace document", () => {
  it("names the marketplace after the host, in the characters Claude Code takes", () => {
    expect(marketplaceName("skills.acme.example")).toBe("skills.acme.example");
    expect(marketplaceName("[::1]")).toBe("1-");
    expect(MarketplaceSchema.shape.name.safeParse(marketplaceName("skills.acme.example")).success).toBe(true);
  });
  it("says a review hold in the description", () => {
    expect(pluginDescription("Says hello.", true)).toBe(`${REVIEW_NOTE} Says hello.`);
    expect(pluginDescription("Says hello.", false)).toBe("Says hello.");
  });
});
