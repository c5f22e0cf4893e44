// lifecycle.yaml: what a team writes (deprecations, renames, tombstones) and every way it can be
// wrong, each problem naming the entry and what to do.
import { describe, expect, it } from "vitest";
import { lifecycleOf, parseLifecycle } from "../../../src/core/changes/lifecycle.ts";

const SHELF = ["code-review", "lint-rules", "review-kit"];

describe("parseLifecycle", () => {
  it("reads deprecations, replacements and tombstones", () => {
    const { lifecycle, problems } = parseLifecycle(
      [
        "skills:",
        "  lint-rules:",
        "    deprecated: superseded by review-kit",
        "    replaced_by: review-kit",
        "  code-review: {replaced_by: review-kit}",
        "  old-review: {replaced_by: review-kit}",
      ].join("\n"),
      SHELF,
    );
    expect(problems).toEqual([]);
    expect(lifecycle).toEqual({
      schema: "skillshelf.lifecycle/1",
      skills: {
        "code-review": { deprecated: "replaced by review-kit", replaced_by: "review-kit" },
        "lint-rules": { deprecated: "superseded by review-kit", replaced_by: "review-kit" },
        "old-review": { deprecated: null, replaced_by: "review-kit" },
      },
    });
    expect(lifecycleOf(lifecycle, "old-review").replaced_by).toBe("review-kit");
    expect(lifecycleOf(lifecycle, "review-kit")).toEqual({ deprecated: null, replaced_by: null });
  });

  it("an empty file or an empty mapping is no lifecycle", () => {
    expect(parseLifecycle("", SHELF)).toEqual({ lifecycle: null, problems: [] });
    expect(parseLifecycle("skills: {}\n", SHELF)).toEqual({ lifecycle: null, problems: [] });
  });

  it.each([
    ["skills:\n  Bad_Name: {deprecated: x}\n", "Bad_Name: not a skill name"],
    ["skills:\n  lint-rules: old\n", "lint-rules: must be a mapping"],
    ["skills:\n  lint-rules: {deprecated: x, since: 2026}\n", "unknown key(s) since"],
    ["skills:\n  lint-rules: {deprecated: ''}\n", "deprecated must be a non-empty reason"],
    ["skills:\n  lint-rules: {}\n", "says nothing"],
    ["skills:\n  lint-rules: {replaced_by: lint-rules}\n", "cannot be replaced by itself"],
    ["skills:\n  lint-rules: {replaced_by: nowhere}\n", "replaced_by names nowhere, which is not a skill on this shelf"],
    ["skills:\n  gone: {deprecated: removed}\n", "gone: is not a skill on this shelf; a removed skill's entry (a tombstone) must name its replacement"],
    ["skills:\n  a: {replaced_by: b}\n  b: {replaced_by: review-kit}\n", "replaced_by names b, which is not a skill on this shelf"],
    ["- a\n", "must be a mapping with one key, skills"],
    ["skills: [a]\n", "skills must be a mapping"],
    ["skills: {a: [\n", "lifecycle.yaml:"],
  ])("refuses %j", (text, message) => {
    const { lifecycle, problems } = parseLifecycle(text, SHELF);
    expect(lifecycle).toBeNull();
    expect(problems.map((p) => p.message).join("\n")).toContain(message);
  });
});
