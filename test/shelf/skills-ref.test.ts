// The reference validator (npm skills-ref 0.1.5) on the shelf: only "Unexpected fields" for
// exactly the documented extension keys each skill uses, and nothing else, ever.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSkill, unexpectedFieldsMessage } from "../../scripts/check-shelf-skills-ref.ts";
import { listShelfSkillDirs } from "../../src/cli/lib/skill-dir.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-skills-ref-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function skill(name: string, frontmatter: string): string {
  const dir = path.join(root, "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "SKILL.md"), `---\n${frontmatter}\n---\n\n# Title\n\nBody.\n`);
  return dir;
}

describe("skills-ref check", () => {
  it("passes every shelf skill", async () => {
    const results = await Promise.all((await listShelfSkillDirs("shelf")).map((d) => checkSkill(d)));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => /extension keys/.test(r.line)).length).toBeGreaterThanOrEqual(3);
  });

  it("accepts a spec-only skill, and one using some of the extension keys", async () => {
    expect((await checkSkill(skill("plain", "name: plain\ndescription: Plain. Use when testing."))).ok).toBe(true);
    const versioned = await checkSkill(skill("versioned", 'name: versioned\ndescription: V. Use when testing.\nversion: "1.0.0"'));
    expect(versioned).toMatchObject({ ok: true, line: "versioned: valid apart from the documented extension keys version" });
  });

  it("fails on an undocumented top-level key, even next to documented ones", async () => {
    const r = await checkSkill(skill("extra", 'name: extra\ndescription: E. Use when testing.\nversion: "1.0.0"\nauthor: someone'));
    expect(r.ok).toBe(false);
    expect(r.line).toContain(unexpectedFieldsMessage(["author", "version"]));
  });

  it("fails on any other skills-ref error", async () => {
    const r = await checkSkill(skill("mismatch", "name: other-name\ndescription: M. Use when testing."));
    expect(r.ok).toBe(false);
    expect(r.line).toContain("Directory name 'mismatch' must match skill name 'other-name'");
    const empty = await checkSkill(skill("nodesc", 'name: nodesc\nversion: "1.0.0"'));
    expect(empty.ok).toBe(false);
    expect(empty.line).toContain("Missing required field in frontmatter: description");
  });

  it("the script's exit code: 0 for the shelf, 1 for a shelf with a failing skill", () => {
    const run = (dir: string) => spawnSync(process.execPath, ["scripts/check-shelf-skills-ref.ts", dir], { encoding: "utf8", timeout: 60_000 });
    const good = run("shelf");
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/^skills-ref \d+ skill\(s\): (\d+) passed, 0 failed$/m);
    const bad = run(root);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^FAIL extra: /m);
  });
});
