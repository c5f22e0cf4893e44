// release-checklist's bundled script, scripts/preflight.sh, on real throwaway git repositories.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = path.resolve("shelf/skills/release-checklist/scripts/preflight.sh");
const root = mkdtempSync(path.join(tmpdir(), "skillshelf-preflight-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};
function git(cwd: string, ...args: string[]) {
  const r = spawnSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}
let n = 0;
/** A repository on `main` with one commit holding the given CHANGELOG.md. */
function repo(changelog = "# Changelog\n\n## [1.4.0] - 2026-11-30\n\n- Added things.\n"): string {
  const dir = path.join(root, `repo-${++n}`);
  spawnSync("mkdir", ["-p", dir]);
  git(dir, "init", "-q");
  git(dir, "checkout", "-q", "-b", "main");
  writeFileSync(path.join(dir, "CHANGELOG.md"), changelog);
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "init");
  return dir;
}
function preflight(cwd: string, ...args: string[]) {
  const r = spawnSync("sh", [SCRIPT, ...args], { cwd, env: { ...gitEnv, RELEASE_BRANCH: "" }, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("release-checklist preflight.sh", () => {
  it("passes a clean repository whose changelog has the version", () => {
    const r = preflight(repo(), "1.4.0");
    expect(r.out).toMatch(/^ok: {3}version 1\.4\.0 is a semantic version$/m);
    expect(r.out).toMatch(/^ok: {3}CHANGELOG\.md has an entry for 1\.4\.0$/m);
    expect(r.out).toMatch(/^ready to tag v1\.4\.0$/m);
    expect(r.code).toBe(0);
  });

  it("fails on a dirty tree, an existing tag and a missing changelog entry, listing each", () => {
    const dir = repo();
    git(dir, "tag", "v1.4.0");
    writeFileSync(path.join(dir, "stray.txt"), "x\n");
    const r = preflight(dir, "v1.4.0");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL: working tree has uncommitted or untracked changes/m);
    expect(r.out).toMatch(/^FAIL: tag v1\.4\.0 already exists/m);
    expect(r.out).toMatch(/^2 check\(s\) failed$/m);
    expect(preflight(repo(), "1.4.1").out).toMatch(/^FAIL: CHANGELOG\.md has no heading for 1\.4\.1/m);
  });

  it("matches whole versions only: 1.4.0 is not found in 11.4.0 or 1.4.0-rc.1", () => {
    const dir = repo("# Changelog\n\n## 11.4.0\n## v1.4.0-rc.1\n");
    expect(preflight(dir, "1.4.0").out).toMatch(/^FAIL: CHANGELOG\.md has no heading/m);
    expect(preflight(dir, "1.4.0-rc.1").code).toBe(0);
  });

  it("rejects a version that is not semver, a wrong branch, and runs outside a repository", () => {
    const dir = repo();
    expect(preflight(dir, "1.4").out).toMatch(/^FAIL: version '1\.4' is not MAJOR\.MINOR\.PATCH/m);
    git(dir, "checkout", "-q", "-b", "feature");
    const branch = spawnSync("sh", [SCRIPT, "1.4.0"], { cwd: dir, env: { ...gitEnv, RELEASE_BRANCH: "main" }, encoding: "utf8" });
    expect(branch.stdout).toMatch(/^FAIL: on feature, not main/m);
    expect(preflight(root, "1.0.0").out).toMatch(/^FAIL: not inside a git work tree/m);
  });

  it("exits 2 with a usage line when called wrongly", () => {
    const r = preflight(root);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^usage: sh preflight\.sh <version> \[changelog-file\]$/m);
  });
});
