// Property-based fuzzing of the CLI (issue 11), seeded and bounded: generated shelves on disk
// (hostile SKILL.md, hostile trees, hostile advisories.yaml) never make a command exit 70; validate
// passes exactly when build does and reports build's refusals in build's words. Most runs go
// through the command functions in this process; a few through the real bin, in child processes.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { advisoriesText, diskPath, fileBytes, fuzzOptions, onceCrashedSkillMd, skillMdText } from "../core/skill/arbitraries.ts";
import { runInProcess } from "./run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-fuzz-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface GeneratedSkill {
  name: string;
  skillMd: string;
  files: [string, Uint8Array][];
  symlink: boolean;
}

/** A skill folder: a generated SKILL.md, a few files anywhere, and now and then a symlink. */
const skillArb: fc.Arbitrary<GeneratedSkill> = fc.constantFrom("alpha", "beta", "gamma", "delta").chain((name) =>
  fc.record({
    name: fc.constant(name),
    skillMd: skillMdText(name),
    files: fc.array(fc.tuple(diskPath, fileBytes), { maxLength: 4 }),
    symlink: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
  }),
);

/** A shelf: one to three skills, and sometimes an advisories.yaml. */
const shelfArb = fc.record({
  skills: fc.uniqueArray(skillArb, { minLength: 1, maxLength: 3, selector: (s) => s.name }),
  advisories: fc.option(advisoriesText, { nil: undefined }),
});

let shelves = 0;

/** Writes a generated shelf under the test root; a path the file system refuses (a file where a folder is) is skipped. */
function writeShelf(shelf: { skills: GeneratedSkill[]; advisories?: string }): string {
  const dir = path.join(root, `shelf-${shelves++}`);
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  for (const skill of shelf.skills) {
    const skillDir = path.join(dir, "skills", skill.name);
    mkdirSync(skillDir);
    writeFileSync(path.join(skillDir, "SKILL.md"), skill.skillMd);
    for (const [rel, bytes] of skill.files) {
      try {
        mkdirSync(path.dirname(path.join(skillDir, rel)), { recursive: true });
        writeFileSync(path.join(skillDir, rel), bytes);
      } catch {
        // ENOTDIR, EISDIR, ENAMETOOLONG: the tree cannot hold this path; the shelf simply lacks it.
      }
    }
    if (skill.symlink) symlinkSync("/etc/hostname", path.join(skillDir, "linked.md"));
  }
  if (shelf.advisories !== undefined) writeFileSync(path.join(dir, "advisories.yaml"), shelf.advisories);
  return dir;
}

interface BuildJson {
  problems: { skill: string | null; field: string; message: string }[];
}
interface ValidateJson {
  records: { file: string; message: string }[];
  skills: { name: string; problems: { field: string; severity: string; message: string }[] }[];
}

describe("fuzz: generated shelves through the command functions", () => {
  it("never exit 70; validate passes exactly when build does, with build's refusals in build's words", async () => {
    await fc.assert(
      fc.asyncProperty(shelfArb, async (shelf) => {
        const dir = writeShelf(shelf);
        const validated = await runInProcess(["validate", dir, "--json"]);
        const built = await runInProcess(["build", dir, "--out", `${dir}-out`, "--json"]);
        for (const r of [validated, built]) {
          expect(r.internal, r.stderr).toBeUndefined();
          expect([0, 1]).toContain(r.code);
        }
        expect(validated.code, `${validated.stdout}\n${built.stdout}`).toBe(built.code);
        if (built.code === 1) {
          const refused = (JSON.parse(built.stdout) as BuildJson).problems;
          const report = JSON.parse(validated.stdout) as ValidateJson;
          const reported = [
            ...report.records.map((r) => ({ skill: null, field: r.file, message: r.message })),
            ...report.skills.flatMap((s) =>
              s.problems.filter((p) => p.severity === "error").map((p) => ({ skill: s.name, field: p.field, message: p.message })),
            ),
          ];
          expect(reported).toEqual(refused);
        }
        // Every other command that reads the shelf or its skills: a clear answer or a clear refusal.
        const names = shelf.skills.map((s) => s.name);
        const skillDir = path.join(dir, "skills", names[0]!);
        for (const args of [
          ["trust", dir, "--json"],
          ["catalog", dir],
          ["select", dir, "--names", names.join(",")],
          ["inspect", skillDir, "--json"],
          ["outline", skillDir],
          ["section", skillDir, "steps"],
          ["hash", skillDir],
          ["attest", dir, "--all", "--check"],
        ]) {
          const r = await runInProcess(args);
          expect(r.internal, `${args.join(" ")}\n${r.stderr}`).toBeUndefined();
        }
        rmSync(dir, { recursive: true, force: true });
        rmSync(`${dir}-out`, { recursive: true, force: true });
      }),
      fuzzOptions(0xc11, 40),
    );
  });
});

/** Runs the real bin in a child process (its exit status and stderr are what is under test); resolves with both. */
function bin(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.resolve("src/cli/skillshelf.ts"), ...args], { timeout: 30_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr });
    });
  });
}

describe("fuzz: generated shelves through the real bin", () => {
  it("12 runs, each a command on a generated shelf with something hostile in it, never exit 70 or print a stack trace", async () => {
    const commands: ((dir: string, skill: string) => string[])[] = [
      (dir) => ["validate", dir],
      (dir) => ["build", dir, "--out", `${dir}-out`],
      (_, skill) => ["inspect", skill, "--json"],
      (dir) => ["trust", dir],
      (dir) => ["catalog", dir],
      (_, skill) => ["outline", skill],
    ];
    // Each costs a Node start-up (~0.3 s idle, more on a busy machine): spend them on shelves
    // whose first skill is valid but for one line that once crashed a command (issue 11).
    const samples = fc.sample(
      shelfArb.chain((shelf) =>
        onceCrashedSkillMd(shelf.skills[0]!.name).map((skillMd) => ({ ...shelf, skills: [{ ...shelf.skills[0]!, skillMd }, ...shelf.skills.slice(1)] })),
      ),
      fuzzOptions(0xb1, 12),
    );
    const runs = samples.map((shelf, i) => {
      const dir = writeShelf(shelf);
      return commands[i % commands.length]!(dir, path.join(dir, "skills", shelf.skills[0]!.name));
    });
    // Three at a time: each costs a Node start-up, and the machine is shared.
    const results: { args: string[]; code: number | null; stderr: string }[] = [];
    for (let i = 0; i < runs.length; i += 3) {
      const batch = runs.slice(i, i + 3);
      results.push(...(await Promise.all(batch.map(async (args) => ({ args, ...(await bin(args)) })))));
    }
    for (const r of results) {
      expect(r.code, `${r.args.join(" ")}\n${r.stderr}`).not.toBe(70);
      expect([0, 1]).toContain(r.code);
      expect(r.stderr, r.args.join(" ")).not.toMatch(/internal error|\n\s+at /);
    }
  });
});
