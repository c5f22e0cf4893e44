import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes files (relative path → content) under a fresh folder and returns its path. */
function tree(name: string, files: Record<string, string | Uint8Array>): string {
  const dir = path.join(root, name);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

const good = (name: string) => `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\n\nSteps.\n`;

function expectNoStack(stderr: string) {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toMatch(/internal error/);
}

describe("skillshelf validate", () => {
  it("exits 0 for a valid skill", async () => {
    const dir = tree("ok/alpha", { "SKILL.md": good("alpha") });
    const r = await cli("validate", dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 skill\(s\) checked: 1 valid, 0 invalid/);
  });

  it("lists every problem of every skill in a shelf and exits 1", async () => {
    const shelf = tree("shelf1", {
      "skills/alpha/SKILL.md": good("alpha"),
      "skills/beta/SKILL.md": "---\nname: Beta\ndescription: yes\n---\n",
      "skills/gamma/SKILL.md": "no frontmatter here\n",
    });
    const r = await cli("validate", shelf);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^beta: error: name: .*lowercase/m);
    expect(r.stdout).toMatch(/^beta: error: description: .*"yes" became a boolean/m);
    expect(r.stdout).toMatch(/^beta: warning: body: .*agentskills-core 0\.7's registry/m); // an empty body only warns (issue 12)
    expect(r.stdout).toMatch(/^gamma: error: SKILL\.md: SKILL\.md must start with a line '---'/m);
    expect(r.stdout).toMatch(/3 skill\(s\) checked: 1 valid, 2 invalid/);
    expectNoStack(r.stderr);
  });

  it("prints JSON with --json", async () => {
    const shelf = tree("shelf2", { "skills/alpha/SKILL.md": good("alpha"), "skills/beta/SKILL.md": "---\nname: beta\n---\nx\n" });
    const r = await cli("validate", shelf, "--json");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.skills.map((s: { name: string; ok: boolean }) => [s.name, s.ok])).toEqual([
      ["alpha", true],
      ["beta", false],
    ]);
    expect(report.skills[1].problems[0]).toMatchObject({ skill: "beta", field: "description", severity: "error" });
  });

  it("exits 2 for a missing path or bad usage", async () => {
    expect((await cli("validate", path.join(root, "nope"))).code).toBe(2);
    expect((await cli("validate")).code).toBe(2);
    expect((await cli("validate", root, "--bogus")).code).toBe(2);
    expect((await cli("nonsense")).code).toBe(2);
  });

  it("reports a symlink inside a skill as a problem, without a stack trace", async () => {
    const dir = tree("links/linked", { "SKILL.md": good("linked") });
    symlinkSync("/etc/passwd", path.join(dir, "passwd"));
    const r = await cli("validate", dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/symlink; symlinks are not allowed/);
    expectNoStack(r.stderr);
  });

  it.each([
    ["not UTF-8", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a])],
    ["a 10 MB frontmatter", `---\n${"k: v\n".repeat(2_000_000)}---\nbody\n`],
    [
      "an alias bomb",
      `---\n${["a: &a [x,x,x,x,x,x,x,x,x]", ..."bcdefghi".split("").map((c, i) => `${c}: &${c} [${Array(9).fill(`*${"abcdefghi"[i]}`).join(",")}]`)].join("\n")}\n---\nbody\n`,
    ],
  ])("gives one clear line for %s", async (label, content) => {
    const name = `bad-${label.replace(/\W+/g, "-").toLowerCase()}`;
    const dir = tree(`bad/${name}`, { "SKILL.md": content });
    const r = await cli("validate", dir);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBe(2); // the problem, then the summary
    expect(lines[0]).toMatch(new RegExp(`^${name}: error: SKILL\\.md: `));
    expectNoStack(r.stderr);
  });
});

describe("skillshelf hash", () => {
  it("prints the tree hash alone on one line (worked example)", async () => {
    const dir = tree("hashme", { "SKILL.md": "# Hello\n", "scripts/run.sh": "#!/bin/sh\n" });
    const r = await cli("hash", dir);
    expect(r).toMatchObject({ code: 0, stdout: "7fe138ad3de585f698571e9f1af8d5361dc59cc0db7703f052fb551c72c016be\n" });
  });
  it("hashes an empty folder", async () => {
    expect((await cli("hash", tree("emptydir", {}))).stdout).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n");
  });
  it("refuses a symlink with one line and a non-zero exit", async () => {
    const dir = tree("hashlink", { "SKILL.md": "x" });
    symlinkSync("SKILL.md", path.join(dir, "alias.md"));
    const r = await cli("hash", dir);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/alias\.md is a symlink/);
  });
  it("exits 2 for a missing folder", async () => {
    const r = await cli("hash", path.join(root, "missing"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not found/);
  });
});

describe("skillshelf inspect", () => {
  it("prints the inventory, hashes and frontmatter", async () => {
    const dir = tree("inspect/gamma", {
      "SKILL.md": good("gamma"),
      "references/guide.md": "# Guide\n",
      "assets/logo.svg": "<svg/>",
      "scripts/run.py": "print(1)\n",
    });
    const r = await cli("inspect", dir, "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.frontmatter).toEqual({ name: "gamma", description: "Does gamma things." });
    expect(report.has_scripts).toBe(true);
    expect(report.tree_hash).toBe((await cli("hash", dir)).stdout.trim());
    expect(report.files.map((f: { path: string; media_type: string }) => [f.path, f.media_type])).toEqual([
      ["SKILL.md", "text/markdown; charset=utf-8"],
      ["assets/logo.svg", "image/svg+xml"],
      ["references/guide.md", "text/markdown; charset=utf-8"],
      ["scripts/run.py", "text/x-python; charset=utf-8"],
    ]);
    expect(report.total_bytes).toBe(report.files.reduce((s: number, f: { size: number }) => s + f.size, 0));
  });
  it("without --json prints a summary for people: name, version, files with sizes, hashes, frontmatter", async () => {
    const dir = tree("inspect/delta", { "SKILL.md": good("delta"), "references/guide.md": "# Guide\n" });
    const r = await cli("inspect", dir);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse((await cli("inspect", dir, "--json")).stdout);
    expect(r.stdout).toMatch(/^delta\n {2}Does delta things\.\n/);
    expect(r.stdout).toContain(`files (2, ${report.total_bytes} bytes):`);
    for (const f of report.files) expect(r.stdout).toMatch(new RegExp(`^ +${f.size} {2}${f.path}$`, "m"));
    expect(r.stdout).toContain(`content hash (SKILL.md): ${report.content_hash}`);
    expect(r.stdout).toContain(`tree hash (all files):   ${report.tree_hash}`);
    expect(r.stdout).toContain("frontmatter:\n  name: delta\n  description: Does delta things.\n");
  });
});
