// Unit tests of src/worker/shelf/names.ts: what could be a skill name or a file path.
import { describe, expect, it } from "vitest";
import { isPlausibleFilePath, isPlausibleSkillName } from "../../../src/worker/shelf/names.ts";

describe("path plausibility", () => {
  it.each(["code-review", "a", "a1-b2", "x".repeat(64)])("accepts skill name %s", (name) => {
    expect(isPlausibleSkillName(name)).toBe(true);
  });
  it.each(["", "..", "A", "-a", "a-", "a--b", "a/b", "a\\b", "a\0", "x".repeat(65), "a.b"])("rejects skill name %j", (name) => {
    expect(isPlausibleSkillName(name)).toBe(false);
  });
  it.each(["SKILL.md", "references/deep/er/x.md", "assets/a b.png"])("accepts file path %s", (p) => {
    expect(isPlausibleFilePath(p)).toBe(true);
  });
  it.each(["", "../x", "a/../b", "./a", "a//b", "/abs", "a\\b", "a\0b", "a\nb", "x".repeat(1025)])("rejects file path %j", (p) => {
    expect(isPlausibleFilePath(p)).toBe(false);
  });
});
