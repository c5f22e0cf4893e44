// Unit tests of src/cli/lib/seed.ts's pure planning: what the seed does with one bundled item,
// decided from what is at its destination and what the last seed recorded (no filesystem).
import { describe, expect, it } from "vitest";
import { manifestUnchanged, seedDecision } from "../../../src/cli/lib/seed.ts";

describe("seedDecision (the pure plan of one item)", () => {
  const B = "bundled-hash";
  it.each([
    ["a symlink", { kind: "symlink" }, true, "old", false, { install: false, bucket: "kept_symlink" }],
    ["nothing there", { kind: "absent" }, true, undefined, false, { install: true, bucket: "added" }],
    ["an unreadable tree", { kind: "unreadable" }, true, "old", false, { install: false, bucket: "kept_unreadable" }],
    ["the bundled bytes", { kind: "present", hash: B }, false, undefined, false, { install: false, bucket: "unchanged" }],
    ["something, no manifest", { kind: "present", hash: "x" }, false, undefined, false, { install: false, bucket: "kept_unknown_provenance" }],
    ["something no seed wrote", { kind: "present", hash: "x" }, true, undefined, false, { install: false, bucket: "kept_foreign" }],
    ["a seeded item edited since", { kind: "present", hash: "x" }, true, "old", false, { install: false, bucket: "kept_user_modified" }],
    ["a seeded item of the other type", { kind: "present", hash: null }, true, "old", false, { install: false, bucket: "kept_user_modified" }],
    ["a seeded item as seeded", { kind: "present", hash: "old" }, true, "old", false, { install: true, bucket: "updated" }],
    ["a seeded item, downgrading", { kind: "present", hash: "old" }, true, "old", true, { install: false, bucket: "kept_newer" }],
  ] as const)("%s", (_label, state, hasManifest, recorded, downgrade, decision) => {
    expect(seedDecision(state, B, hasManifest, recorded, downgrade)).toEqual(decision);
  });
});

describe("manifestUnchanged", () => {
  it("is true only for a manifest that says the same, with nothing more", () => {
    const next = { schema: 1 as const, bundled_version: "1.0.0", items: { a: "h1", b: "h2" } };
    expect(manifestUnchanged({ schema: 1, bundled_version: "1.0.0", items: { b: "h2", a: "h1" } }, next)).toBe(true);
    expect(manifestUnchanged(null, next)).toBe(false);
    expect(manifestUnchanged({ schema: 1, bundled_version: "0.9.0", items: { a: "h1", b: "h2" } }, next)).toBe(false);
    expect(manifestUnchanged({ schema: 1, bundled_version: "1.0.0", items: { a: "h1", b: "h2" }, extra: true }, next)).toBe(false);
  });
});
