// The curated shelf itself: every skill valid and clean, loadable by every supported client, and
// together they exercise every feature the product serves (outlines, the fast path, extensions,
// requirements, resources). The forms some client refuses live in test/shelf/other-forms.test.ts.
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

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s validates with no problems at all, not even a warning", (_name, s) => {
    // Every validate warning names a client that refuses the skill (issue 12): a curated skill carries none.
    expect(s.skill.validation.problems).toEqual([]);
    expect(s.skill.validation.ok).toBe(true);
  });

  it.each(skills.map((s) => [s.skill.name, s] as const))("%s loads in every supported client (each client's rule, as its source states it)", (name, s) => {
    const fm = s.frontmatter;
    const has = (k: string) => Object.hasOwn(fm, k);
    const stringMap = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");
    const refusals = {
      // agentskills_core/validation.py validate_skill (the registry, so agentskills-http's register_all).
      "agentskills-core registry": [
        s.body.trim() === "" && "body is empty",
        has("compatibility") && (typeof fm.compatibility !== "object" || Array.isArray(fm.compatibility)) && "compatibility must be dict",
        has("allowed-tools") && !Array.isArray(fm["allowed-tools"]) && "allowed-tools must be list",
        has("metadata") && !stringMap(fm.metadata) && typeof fm.metadata !== "object" && "metadata must be dict",
      ],
      // agentskills_core/manifests.py _frontmatter (snapshots, content_revision, signature_payload).
      "agentskills-core snapshots and signing": [
        has("allowed-tools") && typeof fm["allowed-tools"] !== "string" && "allowed-tools must be a string",
        has("compatibility") && typeof fm.compatibility !== "string" && "compatibility must be a string",
        has("metadata") && !stringMap(fm.metadata) && "metadata must map string keys to string values",
      ],
      // @modelcontextprotocol/server 2.4 ext/skills validateSkillEntry (skills/list).
      "MCP TypeScript SDK skills extension": [
        has("compatibility") && typeof fm.compatibility !== "string" && "compatibility must be a string",
        has("metadata") && !stringMap(fm.metadata) && "metadata must map strings to strings",
      ],
    };
    for (const [client, reasons] of Object.entries(refusals)) expect(reasons.filter(Boolean), `${name} in ${client}`).toEqual([]);
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

  it("tags as comma-separated strings that our tag filter reads, and requirements as single names", () => {
    const tagged = skills.filter((s) => typeof meta(s).tags === "string");
    expect(tagged.length).toBeGreaterThanOrEqual(3);
    for (const s of tagged) expect(s.skill.validation.metadata!.tags).toEqual(String(meta(s).tags).split(", "));
    expect(byName.get("incident-response")!.skill.validation.metadata!.tags).toEqual(["incident", "operations", "on-call"]);
    expect(skills.filter((s) => typeof meta(s).requires_tools === "string").length).toBeGreaterThanOrEqual(2);
    expect(byName.get("release-checklist")!.skill.validation.metadata).toMatchObject({ requires_mcp: ["github"], requires_tools: ["git"] });
  });

  it("no compatibility or allowed-tools (no form of either loads in every client): the bodies say it instead", () => {
    expect(skills.filter((s) => "compatibility" in s.frontmatter || "allowed-tools" in s.frontmatter).map((s) => s.skill.name)).toEqual([]);
    expect(byName.get("security-review")!.body).toContain("`Read Grep Glob Bash(git diff:*) Bash(git log:*) Bash(git show:*)`");
    expect(byName.get("release-checklist")!.body).toMatch(/You need git, and a POSIX shell \(sh, dash or bash\)/);
    expect(byName.get("deploying-a-team-shelf")!.body).toMatch(/## What you need\n[\s\S]*openssl[\s\S]*Cloudflare account/);
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

  it("at least half use specification fields only, so skills-ref reports nothing for them", () => {
    const specOnly = skills.filter((s) => Object.keys(s.frontmatter).every((k) => SPEC_FIELDS.has(k)));
    expect(specOnly.length * 2).toBeGreaterThanOrEqual(skills.length);
    expect(specOnly.length).toBeGreaterThanOrEqual(6);
  });
});
