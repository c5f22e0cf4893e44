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

// Issue 25: what a shelf answers, a lockfile and the build cache say. Each starts from a valid
// document and replaces one value anywhere in it with generated JSON (or adds a hostile key).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `doc` (the root is []). */
function valuePaths(doc: Json, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(doc)) for (const [i, v] of doc.entries()) out.push(...valuePaths(v, [...at, i]));
  else if (doc !== null && typeof doc === "object") for (const [k, v] of Object.entries(doc)) out.push(...valuePaths(v, [...at, k]));
  return out;
}

/** `doc` with the value at the `pick`-th path replaced by `value` (a copy). */
function mutated(doc: Json, pick: number, value: Json): Json {
  const paths = valuePaths(doc);
  const target = paths[pick % paths.length]!;
  if (target.length === 0) return value;
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  let parent = copy as Record<string | number, Json>;
  for (const key of target.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  parent[target.at(-1)!] = value;
  return copy;
}

/** Hostile JSON: anything, and values close to what each field wants. */
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  fc.constantFrom<Json>(null, [], {}, "", -1, 1e308, "a".repeat(64), ["SKILL.md", "SKILL.md"], "\u001b[2J", "../x", "references", "n".repeat(300)),
);

describe("fuzz: hostile answers, lockfiles and caches through the command functions", async () => {
  const { fakeShelf } = await import("./lib/fake-shelf.ts");
  const { sha256Hex, treeHash } = await import("../../src/core/skill/hash.ts");
  const GEN = "a".repeat(64);
  const enc = new TextEncoder();

  it("verify never exits 70 on a shelf whose answers are mutated anywhere", async () => {
    const skillMd = "---\nname: demo\ndescription: Demo skill for the fuzz.\n---\n# Demo\n";
    const file = { path: "SKILL.md", size: enc.encode(skillMd).length, sha256: await sha256Hex(enc.encode(skillMd)) };
    const valid: Record<string, Json> = {
      "/v1/shelf": { generation: GEN, signature: { key_id: "k1", signature: "AA==", payload: { skills: [["demo", "b".repeat(64)]] } } },
      [`/g/${GEN}/skills/index.json`]: { skills: ["demo"] },
      [`/g/${GEN}/v1/skills/demo`]: {
        files: [file],
        tree_hash: await treeHash([file]),
        signature: { key_id: "k1", signature: "AA==", revision: "c".repeat(64) },
      },
      [`/g/${GEN}/skills/demo/index.json`]: { files: ["SKILL.md"] },
    };
    const answers: Record<string, { json?: unknown; body?: string }> = {};
    const shelf = await fakeShelf(answers);
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(valid)), fc.nat(), hostileValue, async (where, pick, value) => {
          for (const key of Object.keys(answers)) delete answers[key];
          for (const [path, doc] of Object.entries(valid)) answers[path] = { json: path === where ? mutated(doc, pick, value) : doc };
          answers[`/g/${GEN}/skills/demo/SKILL.md`] = { body: skillMd };
          const r = await runInProcess(["verify", shelf.url, "--key-id", "k1", "--public-key", "Yt+/2P1IypEaA+03tBpBXlUeVqZoa4Ds2Wpw3kfHgl8="]);
          expect(r.internal, `${where} ${JSON.stringify(value)}: ${r.stderr}`).toBeUndefined();
          expect(r.code).toBe(1);
          expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
        }),
        fuzzOptions(0x25a1, 60),
      );
    } finally {
      await shelf.close();
    }
  });

  it("install never exits 70 on a lockfile mutated anywhere", async () => {
    const skillMd = "---\nname: demo\ndescription: Demo skill for the fuzz.\n---\n# Demo\n";
    const files = [
      { path: "SKILL.md", size: enc.encode(skillMd).length, sha256: await sha256Hex(enc.encode(skillMd)) },
      { path: "references/a.md", size: 2, sha256: await sha256Hex(enc.encode("a\n")) },
    ];
    const shelf = await fakeShelf({ [`/g/${GEN}/skills/demo/SKILL.md`]: { body: skillMd }, [`/g/${GEN}/skills/demo/references/a.md`]: { body: "a\n" } });
    const lock: Json = {
      schema: "skillshelf.lock/1",
      shelf: shelf.url,
      skills: { demo: { range: "latest", version: "1.0.0", tree_hash: await treeHash(files), generation: GEN, files } },
    };
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat(), hostileValue, fc.boolean(), async (pick, value, protoKey) => {
          const file = path.join(root, `lock-${n}.json`);
          const to = path.join(root, `to-${n++}`);
          let text = JSON.stringify(mutated(lock, pick, value));
          if (protoKey) text = text.replace('"skills":{', '"skills":{"__proto__":{},');
          writeFileSync(file, text);
          const r = await runInProcess(["install", "--lock", file, "--to", to]);
          expect(r.internal, `${text}: ${r.stderr}`).toBeUndefined();
          expect([0, 1, 2]).toContain(r.code);
          // A skill named __proto__ is refused, never dropped silently.
          if (protoKey) expect(r.stderr).toMatch(/__proto__|is not a skillshelf\.lock\/1 lockfile|is not JSON/);
          expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
        }),
        fuzzOptions(0x25a2, 60),
      );
    } finally {
      await shelf.close();
    }
  });

  it("build treats a cache mutated anywhere (its checksum recomputed) as absent: never exit 70, the same build", async () => {
    const { createHash } = await import("node:crypto");
    const { readFileSync } = await import("node:fs");
    const dir = path.join(root, "cache-fuzz");
    mkdirSync(path.join(dir, "skills", "demo", "references"), { recursive: true });
    writeFileSync(path.join(dir, "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: Demo skill for the fuzz.\n---\n# Demo\n");
    writeFileSync(path.join(dir, "skills", "demo", "references", "a.md"), "# A\n");
    const out = path.join(root, "cache-fuzz-out");
    expect((await runInProcess(["build", dir, "--out", out])).code).toBe(0);
    const manifest = readFileSync(path.join(out, "manifest.json"), "utf8");
    const text = readFileSync(path.join(out, "build-cache.json"), "utf8");
    const cache = JSON.parse(text.slice(text.indexOf("\n") + 1)) as Json;
    await fc.assert(
      fc.asyncProperty(fc.nat(), hostileValue, async (pick, value) => {
        const body = JSON.stringify(mutated(cache, pick, value));
        writeFileSync(path.join(out, "build-cache.json"), `${createHash("sha256").update(body).digest("hex")}\n${body}`);
        const r = await runInProcess(["build", dir, "--out", out]);
        expect(r.internal, `${body}: ${r.stderr}`).toBeUndefined();
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(path.join(out, "manifest.json"), "utf8")).toBe(manifest);
      }),
      fuzzOptions(0x25a3, 15),
    );
  });
});
