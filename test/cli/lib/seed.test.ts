// Seeding against abstractskill's seed_registry (the same before-folder gives the same outcome
// per item and the same .seeded.json bytes), plus what only a real filesystem can show: a crash
// mid-seed, two seeds racing, a stale lock, and a second seed that writes nothing.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import golden from "../../goldens/abstractskill/seed.json";
import { readManifest, SEED_LOCK_DIR, seedShelf, type SeedReport } from "../../../src/cli/lib/seed.ts";
import { formatSeedReport } from "../../../src/cli/commands/seed.ts";
import { CliError, UsageError } from "../../../src/cli/lib/cli.ts";

let tmp: string;
const bundles: Record<string, string> = {};

async function materialize(root: string, files: Record<string, string>, links: Record<string, string> = {}) {
  await mkdir(root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  for (const [rel, target] of Object.entries(links)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await symlink(target, path.join(root, rel));
  }
}

/** Every entry under root, as the golden lists it (files by sha256, links by target). */
async function listing(root: string, rel = ""): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of await readdir(path.join(root, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    if (r.startsWith(".seed-staging") || r === ".seed.lock" || r === SEED_LOCK_DIR) continue;
    const abs = path.join(root, r);
    const st = await lstat(abs);
    if (st.isSymbolicLink()) out[r] = { symlink: await readlink(abs) };
    else if (st.isDirectory()) Object.assign(out, await listing(root, r));
    else
      out[r] = {
        sha256: createHash("sha256")
          .update(await readFile(abs))
          .digest("hex"),
      };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const bucketsOf = (r: SeedReport) => {
  const { dest: _d, kept: _k, manifest_written: _m, ...rest } = r;
  return rest;
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "skillshelf-seed-"));
  for (const [name, files] of Object.entries(golden.bundles)) {
    bundles[name] = path.join(tmp, `bundle-${name}`);
    await materialize(bundles[name]!, files as Record<string, string>);
  }
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

/** One recorded seed_registry run: the folder before, the bundle seeded, and what it reported and left. */
interface SeedScenario {
  label: string;
  bundle: string;
  before_files: Record<string, string>;
  before_links?: Record<string, string>;
  report: Record<string, string[]>;
  second_report: Record<string, string[]>;
  manifest_after: string | null;
  after: unknown;
}

describe("seeding matches seed_registry", () => {
  (golden.scenarios as unknown as SeedScenario[]).forEach((s, i) => {
    it(s.label, async () => {
      const dest = path.join(tmp, `golden-${i}`);
      await materialize(dest, s.before_files, s.before_links);
      const first = await seedShelf(bundles[s.bundle]!, dest);
      expect(bucketsOf(first)).toEqual(s.report);
      const manifestAfter = await readFile(path.join(dest, ".seeded.json"), "utf8").catch(() => null);
      expect(manifestAfter).toBe(s.manifest_after);
      expect(await listing(dest)).toEqual(s.after);
      const mtime = (await stat(path.join(dest, ".seeded.json"))).mtimeMs;
      const second = await seedShelf(bundles[s.bundle]!, dest);
      expect(bucketsOf(second)).toEqual(s.second_report);
      expect((await stat(path.join(dest, ".seeded.json"))).mtimeMs).toBe(mtime);
      expect(await listing(dest)).toEqual(s.after);
      expect(Object.keys(first.kept).sort()).toEqual(
        Object.entries(s.report)
          .filter(([k]) => k.startsWith("kept_"))
          .flatMap(([, v]) => v)
          .sort(),
      );
    });
  });
  for (const r of golden.manifest_rejections as { label: string; manifest: string; error: string }[]) {
    it(`refuses a manifest: ${r.label}`, async () => {
      const dest = path.join(tmp, `reject-${r.label.replace(/\W+/g, "-")}`);
      await materialize(dest, { ".seeded.json": r.manifest });
      const error = await seedShelf(bundles.v1!, dest).then(
        () => null,
        (e: Error) => e,
      );
      expect(error).not.toBeNull();
      const ours = error!.message.replaceAll(dest, "<DEST>");
      // JSON parser wording differs between Python and V8; the rest is word for word.
      const normalize = (m: string) => m.replace(/(cannot read seed manifest <DEST>\/\.seeded\.json): .*?\. Restore/, "$1: <parser>. Restore");
      expect(normalize(ours)).toBe(normalize(r.error));
    });
  }
});

function runChild(env: Record<string, string>): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "fixtures", "seed-child.ts")], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("crash safety", () => {
  // v1 seeded, then a v2 seed is killed at each write step; after a rerun the folder must equal
  // an uninterrupted v2 seed, and right after the kill every item must be v1's or v2's bytes.
  const crashPoints = ["stage:skills/grow", "retire:skills/grow", "install:skills/grow", "install:catalog.yaml", "manifest:.seeded.json"];
  let reference: Record<string, unknown>;
  let referenceManifest: string;
  beforeAll(async () => {
    const dest = path.join(tmp, "crash-reference");
    await seedShelf(bundles.v1!, dest);
    await seedShelf(bundles.v2!, dest);
    reference = await listing(dest);
    referenceManifest = await readFile(path.join(dest, ".seeded.json"), "utf8");
  });
  for (const point of crashPoints) {
    it(`killed before ${point}: each item old or new, rerun completes`, async () => {
      const dest = path.join(tmp, `crash-${point.replace(/\W+/g, "-")}`);
      await seedShelf(bundles.v1!, dest);
      const before = await listing(dest);
      const run = await runChild({ SEED_FROM: bundles.v2!, SEED_TO: dest, SEED_CRASH_AT: point });
      expect(run.signal).toBe("SIGKILL");
      const mid = await listing(dest);
      for (const [key, entry] of Object.entries(mid)) {
        expect([before[key], reference[key]].map((e) => JSON.stringify(e))).toContain(JSON.stringify(entry));
      }
      // The manifest is either the old one or the complete new one, never partial.
      const manifest = await readManifest(path.join(dest, ".seeded.json"));
      expect(manifest).not.toBeNull();
      // The killed seed left its lock behind; it goes stale (no refresh) and is taken over.
      const rerun = await seedShelf(bundles.v2!, dest, { lockStaleMs: 2000 });
      expect(rerun.kept_user_modified).toEqual([]);
      expect(await listing(dest)).toEqual(reference);
      expect(await readFile(path.join(dest, ".seeded.json"), "utf8")).toBe(referenceManifest);
      expect((await readdir(dest)).filter((n) => n.startsWith(".seed-staging"))).toEqual([]);
    });
  }
  it("restores a folder retired just before a crash", async () => {
    const dest = path.join(tmp, "crash-restore");
    await seedShelf(bundles.v1!, dest);
    const v1Grow = (await listing(dest))["skills/grow/SKILL.md"];
    await runChild({ SEED_FROM: bundles.v2!, SEED_TO: dest, SEED_CRASH_AT: "install:skills/grow" });
    // Killed between the two renames: the old folder sits in staging, skills/grow is gone.
    await expect(lstat(path.join(dest, "skills/grow"))).rejects.toThrow();
    const report = await seedShelf(bundles.v2!, dest, { lockStaleMs: 2000 });
    expect(report.updated).toContain("skills/grow");
    expect(report.added).not.toContain("skills/grow");
    expect((await listing(dest))["skills/grow/SKILL.md"]).not.toEqual(v1Grow);
  });
});

describe("concurrency and idempotence", () => {
  it("two seeds racing in separate processes leave a consistent folder", async () => {
    const dest = path.join(tmp, "race");
    const [a, b] = await Promise.all([
      runChild({ SEED_FROM: bundles.v1!, SEED_TO: dest, SEED_HOLD_MS: "300" }),
      runChild({ SEED_FROM: bundles.v1!, SEED_TO: dest, SEED_HOLD_MS: "300" }),
    ]);
    expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, "", ""]);
    const reports = [JSON.parse(a.stdout), JSON.parse(b.stdout)] as SeedReport[];
    // One did the work, the other found it done: never both adding.
    expect(reports.map((r) => r.added.length > 0).sort()).toEqual([false, true]);
    expect(reports.find((r) => !r.added.length)!.unchanged.length).toBe(reports.find((r) => r.added.length)!.added.length);
    const clean = path.join(tmp, "race-clean");
    await seedShelf(bundles.v1!, clean);
    expect(await listing(dest)).toEqual(await listing(clean));
    expect(await readFile(path.join(dest, ".seeded.json"), "utf8")).toBe(await readFile(path.join(clean, ".seeded.json"), "utf8"));
  });
  it("two seeds racing in one process serialise on the lock", async () => {
    const dest = path.join(tmp, "race-in-process");
    const [x, y] = await Promise.all([seedShelf(bundles.v1!, dest), seedShelf(bundles.v1!, dest)]);
    expect([x.changed, y.changed].sort()).toEqual([false, true]);
  });
  it("takes over a stale lock and waits out a live one", async () => {
    const dest = path.join(tmp, "stale");
    await mkdir(path.join(dest, SEED_LOCK_DIR), { recursive: true });
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(dest, SEED_LOCK_DIR), old, old);
    expect((await seedShelf(bundles.v1!, dest)).changed).toBe(true);
    await mkdir(path.join(dest, SEED_LOCK_DIR));
    const error = await seedShelf(bundles.v1!, dest, { lockWaitMs: 600 }).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/another seed holds .*\.skillshelf-seed\.lock/);
    await rm(path.join(dest, SEED_LOCK_DIR), { recursive: true });
  });
  it("ignores AbstractSkill's leftover .seed.lock file", async () => {
    const dest = path.join(tmp, "abstractskill-lock");
    await materialize(dest, { ".seed.lock": "" });
    expect((await seedShelf(bundles.v1!, dest)).added.length).toBeGreaterThan(0);
  });
  it("seeding twice writes nothing: no file's mtime changes", async () => {
    const dest = path.join(tmp, "twice");
    await seedShelf(bundles.v2!, dest);
    const mtimes = async () => {
      const out: Record<string, number> = {};
      for (const key of Object.keys(await listing(dest))) out[key] = (await lstat(path.join(dest, key))).mtimeMs;
      return out;
    };
    const before = await mtimes();
    const again = await seedShelf(bundles.v2!, dest);
    expect(again.changed).toBe(false);
    expect(await mtimes()).toEqual(before);
  });
  it("refuses bad input with one clear line", async () => {
    await expect(seedShelf(path.join(tmp, "nope"), path.join(tmp, "x"))).rejects.toThrow(/bundle shelf not found/);
    await expect(seedShelf(path.join(tmp, "nope"), path.join(tmp, "x"))).rejects.toThrow(UsageError);
    await materialize(path.join(tmp, "no-skills"), { "catalog.yaml": "version: '1'\n" });
    await expect(seedShelf(path.join(tmp, "no-skills"), path.join(tmp, "x"))).rejects.toThrow(/has no skills\/ folder/);
    await expect(seedShelf(bundles.v1!, path.join(bundles.v1!, "skills", "inside"))).rejects.toThrow(/refusing to seed into the bundle shelf itself/);
    await symlink(bundles.v1!, path.join(tmp, "bundle-alias"));
    await expect(seedShelf(bundles.v1!, path.join(tmp, "bundle-alias", "new", "deeper"))).rejects.toThrow(/refusing to seed into the bundle shelf itself/);
    const noVersion = path.join(tmp, "no-version");
    await materialize(noVersion, { "skills/a/SKILL.md": "x", "catalog.yaml": "skills: []\n" });
    await expect(seedShelf(noVersion, path.join(tmp, "y"))).rejects.toThrow(/must declare a dotted-numeric string 'version'/);
    // An alias bomb where the version should be is as unreadable, never an internal error (issue 11).
    const bomb = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 10; i++)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`,
      );
    const bombed = path.join(tmp, "alias-bomb");
    await materialize(bombed, { "skills/a/SKILL.md": "x", "catalog.yaml": `${bomb.join("\n")}\nversion: '1'\n` });
    await expect(seedShelf(bombed, path.join(tmp, "z"))).rejects.toThrow(CliError);
  });
});

describe("refusing before writing anything", () => {
  const nothingWritten = async (dest: string) => {
    const names = (await readdir(dest)).filter((n) => n !== SEED_LOCK_DIR);
    return names;
  };
  it("refuses a bundle skill holding a symlink with a CliError, before the first write", async () => {
    const bundle = path.join(tmp, "bundle-with-link");
    await materialize(
      bundle,
      { "catalog.yaml": "version: '1.0'\nskills: []\n", "skills/aaa/SKILL.md": "a", "skills/zzz/SKILL.md": "z" },
      { "skills/zzz/link.md": "/etc/hostname" },
    );
    const dest = path.join(tmp, "dest-link");
    const error = await seedShelf(bundle, dest).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
    expect((error as Error).message).toMatch(/cannot seed skills\/zzz: skill tree contains a symlink at .*link\.md.*nothing was written/);
    expect(await nothingWritten(dest)).toEqual([]);
  });
  it("refuses a destination whose skills/ is a file, before the first write", async () => {
    const dest = path.join(tmp, "dest-skills-file");
    await materialize(dest, { skills: "not a folder\n" });
    const error = await seedShelf(bundles.v1!, dest).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(/skills is not a folder; seeding needs skills\/ to be a folder/);
    expect((await nothingWritten(dest)).sort()).toEqual(["skills"]);
  });
  it("reports a manifest written even when no item changed", async () => {
    const dest = path.join(tmp, "adopt-identical");
    const first = await seedShelf(bundles.v1!, path.join(tmp, "adopt-source"));
    expect(first.manifest_written).toBe(true);
    await materialize(dest, {});
    await cp(path.join(tmp, "adopt-source"), dest, { recursive: true });
    await rm(path.join(dest, ".seeded.json"));
    const report = await seedShelf(bundles.v1!, dest);
    expect(report).toMatchObject({ changed: false, manifest_written: true });
    expect(formatSeedReport(report)).toMatch(/wrote \.seeded\.json \(no item changed\)/);
    expect(formatSeedReport(report)).not.toMatch(/nothing written/);
    const again = await seedShelf(bundles.v1!, dest);
    expect(again).toMatchObject({ changed: false, manifest_written: false });
    expect(formatSeedReport(again)).toMatch(/nothing written/);
  });
  it("removes temporary manifests left by a crashed seed, and only those", async () => {
    const dest = path.join(tmp, "stale-temps");
    await materialize(dest, { ".seeded.json.4242.1764500000000.tmp": "{", ".seeded.json.backup.tmp": "keep", "notes.seeded.json.1.2.tmp": "keep" });
    await seedShelf(bundles.v1!, dest);
    const names = await readdir(dest);
    expect(names).not.toContain(".seeded.json.4242.1764500000000.tmp");
    expect(names).toEqual(expect.arrayContaining([".seeded.json.backup.tmp", "notes.seeded.json.1.2.tmp", ".seeded.json"]));
  });
});

describe("seeding with exclude", () => {
  it("neither adds nor updates an excluded skill, and keeps its manifest entry as it was", async () => {
    const dest = path.join(tmp, "exclude-update");
    const first = await seedShelf(bundles.v1!, dest, { exclude: ["grow", "skills/keep"] });
    expect(first.excluded).toEqual(["skills/grow", "skills/keep"]);
    expect(first.added).not.toContain("skills/grow");
    expect(await lstat(path.join(dest, "skills", "grow")).catch(() => null)).toBeNull();
    expect(Object.keys((await readManifest(path.join(dest, ".seeded.json")))!.items)).not.toContain("skills/grow");
    // Seed grow at v1, then move to v2 while excluding it: grow stays v1 and its entry stays v1's hash.
    await seedShelf(bundles.v1!, dest);
    const v1Grow = (await listing(dest))["skills/grow/SKILL.md"];
    const v1Entry = (await readManifest(path.join(dest, ".seeded.json")))!.items["skills/grow"];
    const second = await seedShelf(bundles.v2!, dest, { exclude: ["grow"] });
    expect(second.excluded).toEqual(["skills/grow"]);
    expect([...second.updated, ...second.unchanged, ...Object.keys(second.kept), ...second.not_in_bundle]).not.toContain("skills/grow");
    expect((await listing(dest))["skills/grow/SKILL.md"]).toEqual(v1Grow);
    expect((await readManifest(path.join(dest, ".seeded.json")))!.items["skills/grow"]).toBe(v1Entry);
    expect(formatSeedReport(second)).toMatch(/^ {2}excluded \(1\): skills\/grow /m);
    // Without --exclude the next seed refreshes it as usual.
    const third = await seedShelf(bundles.v2!, dest);
    expect(third.updated).toContain("skills/grow");
    expect(third).not.toHaveProperty("excluded");
  });
  it("does not bring back a deleted curated skill while it is excluded", async () => {
    const dest = path.join(tmp, "exclude-deleted");
    await seedShelf(bundles.v2!, dest);
    await rm(path.join(dest, "skills", "keep"), { recursive: true });
    const excluded = await seedShelf(bundles.v2!, dest, { exclude: ["keep"] });
    expect(excluded.added).toEqual([]);
    expect(await lstat(path.join(dest, "skills", "keep")).catch(() => null)).toBeNull();
    const plain = await seedShelf(bundles.v2!, dest);
    expect(plain.added).toEqual(["skills/keep"]);
  });
  it("refuses an unknown name with a UsageError listing the bundle's items, before writing", async () => {
    const dest = path.join(tmp, "exclude-unknown");
    const error = await seedShelf(bundles.v2!, dest, { exclude: ["keep", "no-such-skill"] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /--exclude names no item of bundle shelf .*: no-such-skill; it holds: .*catalog\.yaml.*licenses\/tdd\.LICENSE, edited, .*grow, .*keep/,
    );
    expect(await lstat(dest).catch(() => null)).toBeNull();
  });
});
