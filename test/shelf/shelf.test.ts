// The curated shelf itself: every skill valid and clean, and together they exercise every
// feature the product serves (outlines, the fast path, extensions, requirements, resources).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSkillMd } from "../../src/core/skill/skill-md.ts";
import { listShelfSkillDirs, loadSkill, type LoadedSkill } from "../../src/cli/lib/skill-dir.ts";

const SHELF = path.resolve("shelf");
// Paths into the skillshelf repository (not into the skill) that a skill body names on purpose.
const REPO_PATHS = new Set(["scripts/check-shelf-skills-ref.ts"]);
const SPEC_FIELDS = new Set(["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);

interface ShelfSkill {
  skill: LoadedSkill;
  raw: Uint8Array;
  frontmatter: Record<string, unknown>;
  body: string;
  /** agentskills-core's estimate: ceil(code points / 4) of the stripped body. */
  tokens: number;
  headings: string[];
}

const skills: ShelfSkill[] = await Promise.all(
  (await listShelfSkillDirs(SHELF)).map(async (dir) => {
    const skill = await loadSkill(dir);
    const raw = new Uint8Array(readFileSync(path.join(dir, "SKILL.md")));
    const parsed = parseSkillMd(new TextDecoder().decode(raw));
    return {
      skill,
      raw,
      frontmatter: parsed.frontmatter,
      body: parsed.body,
      tokens: Math.ceil([...parsed.body].length / 4),
      headings: parsed.body.split("\n").filter((l) => /^#{2,3} \S/.test(l)),
    };
  }),
);
const byName = new Map(skills.map((s) => [s.skill.name, s]));
const meta = (s: ShelfSkill) => (s.frontmatter.metadata ?? {}) as Record<string, unknown>;
const paths = (s: ShelfSkill) => s.skill.files.map((f) => f.path);

describe("every shelf skill", () => {
  it("there are at least twelve", () => {
    expect(skills.length).toBeGreaterThanOrEqual(12);
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s validates with no errors, warned only of the agentskills-core type conflict", (_name, s) => {
    // The spec's string `compatibility` / `allowed-tools` conflict with agentskills-core 0.7 (see
    // validate.ts); those are the only warnings a curated skill may carry.
    const fm = s.frontmatter as Record<string, unknown>;
    const expected = ["compatibility", "allowed-tools"].filter((k) => typeof fm[k] === "string");
    expect(s.skill.validation.problems.map((p) => `${p.severity}:${p.field}`)).toEqual(expected.map((k) => `warning:${k}`));
    expect(s.skill.validation.ok).toBe(true);
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s: name = folder, UTF-8 with LF only and no BOM in every text file", (name, s) => {
    expect(s.frontmatter.name).toBe(name);
    expect([...s.raw.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    for (const file of s.skill.files) {
      if (!/\.(md|sh|svg|yaml|txt)$/.test(file.path)) continue;
      const text = new TextDecoder("utf-8", { fatal: true }).decode(file.bytes);
      expect(text.includes("\r"), `${name}/${file.path} has a CR`).toBe(false);
      expect(text.startsWith("\ufeff"), `${name}/${file.path} has a BOM`).toBe(false);
      expect(text.endsWith("\n"), `${name}/${file.path} lacks a final newline`).toBe(true);
    }
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s: description says what and when, within 1024 characters", (_name, s) => {
    const description = String(s.frontmatter.description);
    expect([...description].length).toBeLessThanOrEqual(1024);
    expect(description).toMatch(/\bUse (it )?when\b/);
    expect(s.frontmatter.license).toBe("Apache-2.0");
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s: every bundled file is named in the body, and every path the body names exists", (name, s) => {
    const resources = paths(s).filter((p) => p !== "SKILL.md");
    for (const p of resources) expect(s.body, `${name} never mentions ${p}`).toContain(p);
    const mentioned = [...s.body.matchAll(/\b((?:references|scripts|assets)\/[\w./-]*\w)/g)].map((m) => m[1]!).filter((p) => !REPO_PATHS.has(p));
    for (const p of mentioned) expect(resources, `${name} mentions ${p}, which it does not bundle`).toContain(p);
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s: fits the spec's advice (under 500 lines, under 5000 tokens)", (_name, s) => {
    expect(s.body.split("\n").length).toBeLessThan(500);
    expect(s.tokens).toBeLessThan(5000);
  });
});

describe("together the skills exercise every feature", () => {
  it("several long bodies with many ## and ### sections (over 1000 tokens, at least 8 headings)", () => {
    const long = skills.filter((s) => s.tokens > 1000 && s.headings.length >= 8);
    expect(long.length).toBeGreaterThanOrEqual(5);
    expect(long.some((s) => s.headings.some((h) => h.startsWith("### ")))).toBe(true);
  });

  it("one skill takes the fast path (whole body at most 300 tokens)", () => {
    const fast = skills.filter((s) => s.tokens <= 300);
    expect(fast.map((s) => s.skill.name)).toContain("commit-messages");
  });

  it("quoted semantic versions, as strings", () => {
    const versioned = skills.filter((s) => "version" in s.frontmatter);
    expect(versioned.length).toBeGreaterThanOrEqual(3);
    for (const s of versioned) {
      expect(typeof s.frontmatter.version).toBe("string");
      expect(new TextDecoder().decode(s.raw)).toMatch(/^version: "\d+\.\d+\.\d+"$/m);
    }
  });

  it("when_to_use and when_not_to_use lists within the limits (5 entries, 200 characters)", () => {
    const hinted = skills.filter((s) => "when_to_use" in s.frontmatter);
    expect(hinted.length).toBeGreaterThanOrEqual(3);
    expect(skills.some((s) => "when_not_to_use" in s.frontmatter)).toBe(true);
    for (const s of hinted) {
      for (const key of ["when_to_use", "when_not_to_use"]) {
        const list = s.frontmatter[key];
        if (list === undefined) continue;
        expect(Array.isArray(list)).toBe(true);
        expect((list as unknown[]).length).toBeLessThanOrEqual(5);
        for (const entry of list as unknown[]) expect([...String(entry)].length).toBeLessThanOrEqual(200);
      }
    }
  });

  it("metadata.tags lists, requires_tools and requires_mcp", () => {
    expect(skills.filter((s) => Array.isArray(meta(s).tags)).length).toBeGreaterThanOrEqual(3);
    expect(skills.some((s) => Array.isArray(meta(s).requires_tools))).toBe(true);
    expect(meta(byName.get("release-checklist")!).requires_mcp).toEqual(["github"]);
  });

  it("allowed-tools as a space-separated string, and a compatibility note", () => {
    const tools = byName.get("security-review")!.frontmatter["allowed-tools"];
    expect(typeof tools).toBe("string");
    expect(String(tools).split(" ")).toContain("Read");
    const compat = skills.filter((s) => typeof s.frontmatter.compatibility === "string");
    expect(compat.length).toBeGreaterThanOrEqual(1);
    for (const s of compat) expect([...String(s.frontmatter.compatibility)].length).toBeLessThanOrEqual(500);
  });

  it("references (one nested), a script, and an SVG asset", () => {
    const all = skills.flatMap((s) => paths(s).map((p) => `${s.skill.name}/${p}`));
    expect(all.filter((p) => p.includes("/references/")).length).toBeGreaterThanOrEqual(5);
    expect(all).toContain("code-review/references/checklists/review-checklist.md");
    expect(all).toContain("release-checklist/scripts/preflight.sh");
    expect(all).toContain("incident-response/assets/incident-flow.svg");
  });

  it("only release-checklist bundles scripts", () => {
    expect(skills.filter((s) => s.skill.inventory!.has_scripts).map((s) => s.skill.name)).toEqual(["release-checklist"]);
  });

  it("at least half are portable: specification fields only, metadata values plain strings", () => {
    const portable = skills.filter(
      (s) =>
        Object.keys(s.frontmatter).every((k) => SPEC_FIELDS.has(k)) &&
        Object.values(meta(s)).every((v) => typeof v === "string") &&
        (s.frontmatter.compatibility === undefined || typeof s.frontmatter.compatibility === "string") &&
        (s.frontmatter["allowed-tools"] === undefined || typeof s.frontmatter["allowed-tools"] === "string"),
    );
    expect(portable.length * 2).toBeGreaterThanOrEqual(skills.length);
    expect(portable.length).toBeGreaterThanOrEqual(6);
  });
});
