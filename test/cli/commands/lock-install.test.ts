// skillshelf lock and install against the real Worker (wrangler dev on loopback, local R2 and KV,
// as npm start runs it): lock a shelf's skills, change the shelf and publish it, reinstall from the
// lock and get byte-identical files; local edits are not clobbered without --force; a lockfile
// whose digests the shelf's bytes do not match installs nothing.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startShelfOnFreePort, LOCAL_TOKEN_FILE, type RunningShelf } from "../../../scripts/start.ts";
import { LockFileSchema } from "../../../src/core/versions/lock.ts";
import { runInProcess, type InProcessRun } from "../run-in-process.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(path.join(tmpdir(), "skillshelf-lock-"));
const shelfDir = path.join(work, "shelf");
let shelf: RunningShelf;
let publishToken = "";

function skillMd(name: string, version: string | null, line: string): string {
  return `---\nname: ${name}\ndescription: Does ${name} things for the lock tests.\n${version ? `version: "${version}"\n` : ""}---\n# ${name}\n\n${line}\n`;
}

/** Writes the shelf's skills: code-review at `version`, and an unversioned `plain`. */
function writeShelf(version: string, notes: string): void {
  rmSync(shelfDir, { recursive: true, force: true });
  const files: Record<string, string | Uint8Array> = {
    "skills/code-review/SKILL.md": skillMd("code-review", version, `Release ${version}.`),
    "skills/code-review/references/review notes.md": notes,
    "skills/code-review/assets/logo.bin": new Uint8Array([0, 255, 1, 254, version.length]),
    "skills/plain/SKILL.md": skillMd("plain", null, notes),
  };
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(shelfDir, rel)), { recursive: true });
    writeFileSync(path.join(shelfDir, rel), content);
  }
}

/** Every file under a folder with its bytes (hex), for byte-for-byte comparisons. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else out[child] = readFileSync(path.join(dir, child)).toString("hex");
    }
  };
  walk("");
  return out;
}

/** Runs `skillshelf <command> <args>` in this process (run-in-process.ts). */
function cli(command: string, args: string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  return runInProcess([command, ...args], { env });
}

async function publishShelf(): Promise<void> {
  const out = path.join(work, "build");
  expect((await cli("build", [shelfDir, "--out", out])).code).toBe(0);
  const published = await cli("publish", ["--url", shelf.url, "--dir", out], { SKILLSHELF_PUBLISH_TOKEN: publishToken });
  expect(published.code, published.stderr).toBe(0);
}

beforeAll(async () => {
  writeShelf("1.0.0", "First notes.\n");
  shelf = await startShelfOnFreePort({ shelfDir, persistTo: path.join(work, "state"), buildDir: path.join(work, "start-build") });
  publishToken = (await readFile(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8")).trim();
}, 180_000);

afterAll(async () => {
  await shelf?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("skillshelf lock and install", () => {
  it("reinstalls byte-identical files from the lock after the shelf changed", async () => {
    const v1 = snapshot(path.join(shelfDir, "skills"));
    const lockFile = path.join(work, "skillshelf-lock.json");
    const locked = await cli("lock", ["--url", shelf.url, "--out", lockFile, "code-review@^1", "plain"]);
    expect(locked.code, locked.stderr).toBe(0);
    const lock = LockFileSchema.parse(JSON.parse(readFileSync(lockFile, "utf8")));
    expect(lock.skills["code-review"]).toMatchObject({ range: "^1", version: "1.0.0" });
    expect(lock.skills.plain).toMatchObject({ range: "latest", version: null });
    // Re-locking the same shelf writes the same bytes.
    const before = readFileSync(lockFile, "utf8");
    expect((await cli("lock", ["--url", shelf.url, "--out", lockFile, "plain", "code-review@^1"])).code).toBe(0);
    expect(readFileSync(lockFile, "utf8")).toBe(before);

    const first = path.join(work, "agent-a", "skills");
    const installed = await cli("install", ["--lock", lockFile, "--to", first]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/^installed\tcode-review@1\.0\.0\t/m);
    expect(installed.stderr).toMatch(/\[1\/2\] code-review@1\.0\.0: 3 file\(s\)/);
    const { ".skillshelf-installed.json": marker, ...firstFiles } = snapshot(first);
    expect(marker).toBeDefined();
    expect(firstFiles).toEqual(v1);

    // The shelf moves on: code-review 1.1.0, plain changed.
    writeShelf("1.1.0", "Second notes.\n");
    await publishShelf();
    const v2 = snapshot(path.join(shelfDir, "skills"));
    expect(v2).not.toEqual(v1);

    // The lock still installs the locked bytes, into a fresh folder and over an unchanged one.
    const second = path.join(work, "agent-b", "skills");
    expect((await cli("install", ["--url", shelf.url, "--lock", lockFile, "--to", second])).code).toBe(0);
    const { ".skillshelf-installed.json": _m2, ...secondFiles } = snapshot(second);
    expect(secondFiles).toEqual(v1);
    const again = await cli("install", ["--lock", lockFile, "--to", first]);
    expect(again.stdout).toMatch(/^unchanged\tcode-review@1\.0\.0/m);

    // A local edit is never clobbered without --force, and nothing else of that skill changes.
    writeFileSync(path.join(first, "code-review", "references", "review notes.md"), "my edit\n");
    const refused = await cli("install", ["--lock", lockFile, "--to", first]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("has local changes");
    expect(readFileSync(path.join(first, "code-review", "references", "review notes.md"), "utf8")).toBe("my edit\n");
    expect((await cli("install", ["--lock", lockFile, "--to", first, "--force"])).code).toBe(0);
    expect(readFileSync(path.join(first, "code-review", "references", "review notes.md"), "utf8")).toBe("First notes.\n");

    // Re-locking picks up 1.1.0, and installing it replaces what skillshelf installed.
    expect((await cli("lock", ["--url", shelf.url, "--out", lockFile, "code-review@^1", "plain"])).code).toBe(0);
    const upgraded = await cli("install", ["--lock", lockFile, "--to", first]);
    expect(upgraded.stdout).toMatch(/^replaced\tcode-review@1\.1\.0/m);
    const { ".skillshelf-installed.json": _m3, ...upgradedFiles } = snapshot(first);
    expect(upgradedFiles).toEqual(v2);
    // No temporary folder is left behind.
    expect(readdirSync(first).filter((n) => n.startsWith(".skillshelf-tmp"))).toEqual([]);
  }, 180_000);

  it("installs nothing from a lockfile the shelf's bytes do not match, and refuses unresolvable ranges", async () => {
    const lockFile = path.join(work, "tampered-lock.json");
    expect((await cli("lock", ["--url", shelf.url, "--out", lockFile, "code-review@~1.0"])).code).toBe(0);
    const lock = JSON.parse(readFileSync(lockFile, "utf8"));
    lock.skills["code-review"].files[0].sha256 = "0".repeat(64);
    writeFileSync(lockFile, JSON.stringify(lock));
    const target = path.join(work, "agent-c", "skills");
    const failed = await cli("install", ["--lock", lockFile, "--to", target]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/does not match the lockfile|do not hash to the locked tree|locked files hash/);
    expect(existsSync(target)).toBe(false); // checked before anything is written

    const bad = await cli("lock", ["--url", shelf.url, "--out", path.join(work, "x.json"), "code-review@^9", "nope"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("code-review@^9: no match (versions: 1.1.0, 1.0.0)");
    expect(bad.stderr).toContain("nope@latest: not on shelf");
    // A lockfile naming a path outside the skill is refused before anything is fetched.
    lock.skills["code-review"].files[0].path = "../escape.md";
    writeFileSync(lockFile, JSON.stringify(lock));
    const escaping = await cli("install", ["--lock", lockFile, "--to", target]);
    expect(escaping.code).toBe(1);
    expect(escaping.stderr).toContain("not a skillshelf.lock/1 lockfile");
    expect((await cli("install", ["--lock", path.join(work, "missing.json"), "--to", target])).code).toBe(2);
    expect((await cli("install", ["--lock", lockFile])).code).toBe(2);
  }, 120_000);
});
