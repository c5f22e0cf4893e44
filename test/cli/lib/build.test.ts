// `skillshelf build` on Node: byte-identical output across runs and time zones, every refusal
// listed at once with nothing written, the atomic replacement of an existing build folder, and
// the curated shelf building with every skill present.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "../run-in-process.ts";
import { snapshot } from "./build-snapshot.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { GenerationManifestSchema, SkillRecordSchema } from "../../../src/core/generation/manifest.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-build-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) => runInProcess(args);

/** A day whose offset tells the zones apart (Kiritimati was UTC-10:40 until 1979, UTC+14 since 1995). */
const DAY = "2026-06-01T00:00:00Z";

/** The time-zone offset of {@link DAY} as a new worker thread sees it. */
function offsetInWorkerThread(): Promise<number> {
  const worker = new Worker(`require("node:worker_threads").parentPort.postMessage(new Date("${DAY}").getTimezoneOffset())`, { eval: true });
  return new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
}

/**
 * Runs `fn` with this process in the time zone `tz` (Node applies a TZ assignment at once), then
 * restores it: a build runs in the process's time zone, as a child run with TZ set would.
 */
async function inTimeZone<T>(tz: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Does ${name} things for the build tests.\n---\n# ${name}\n\nSteps.\n`;

function shelf(name: string, skills: Record<string, Record<string, string | Uint8Array>>, records: Record<string, string> = {}): string {
  const dir = path.join(root, name);
  for (const [skill, files] of Object.entries(skills)) {
    for (const [rel, content] of Object.entries({ "SKILL.md": skillMd(skill), ...files })) {
      const file = path.join(dir, "skills", skill, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  for (const [file, text] of Object.entries(records)) writeFileSync(path.join(dir, file), text);
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  return dir;
}

describe("skillshelf build", () => {
  it("builds the curated shelf: every skill, a manifest that parses, objects under their SHA-256", async () => {
    const out = path.join(root, "curated");
    const r = await cli(["build", "shelf", "--out", out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { generation: string; skills: number };
    const manifestBytes = readFileSync(path.join(out, "manifest.json"));
    expect(createHash("sha256").update(manifestBytes).digest("hex")).toBe(summary.generation);
    const manifest = GenerationManifestSchema.parse(JSON.parse(manifestBytes.toString("utf8")));
    expect(manifest.skill_count).toBe(readdirSync("shelf/skills").length);
    for (const kind of ["blobs", "records", "shards"]) {
      for (const name of readdirSync(path.join(out, kind))) {
        expect(
          createHash("sha256")
            .update(readFileSync(path.join(out, kind, name)))
            .digest("hex"),
        ).toBe(name);
      }
    }
    for (const name of readdirSync(path.join(out, "records"))) {
      const record = SkillRecordSchema.parse(JSON.parse(readFileSync(path.join(out, "records", name), "utf8")));
      expect(record.trust.verdict.blocked).toBe(false);
      expect(record.files[0]?.path).toBeDefined();
      for (const f of record.files) expect(existsSync(path.join(out, "blobs", f.sha256))).toBe(true);
      expect(existsSync(path.join(out, "blobs", record.archives.tar_gz.sha256))).toBe(true);
    }
  });

  it("gives byte-identical output and the same id on every run, in any time zone", async () => {
    const src = shelf("determinism", { alpha: { "references/a.md": "# A\n", "scripts/x.py": "print(1)\n" }, beta: {} });
    const a = path.join(root, "det-a");
    const b = path.join(root, "det-b");
    const ra = await inTimeZone("UTC", () => cli(["build", src, "--out", a, "--json"]));
    const rb = await inTimeZone("Pacific/Kiritimati", async () => {
      // The zone took effect (UTC+14), here and in a new worker thread, where the build hashes and packs.
      expect(new Date(DAY).getTimezoneOffset()).toBe(-840);
      expect(await offsetInWorkerThread()).toBe(-840);
      // On worker threads (--jobs 2; in-process builds here default to inline, test/cli/inline-build.setup.ts).
      return cli(["build", src, "--out", b, "--json", "--jobs", "2"]);
    });
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(JSON.parse(ra.stdout).generation).toBe(JSON.parse(rb.stdout).generation);
    expect(snapshot(a)).toEqual(snapshot(b));
    // A copy of the shelf elsewhere (other mtimes, other path) builds the same generation.
    const copy = path.join(root, "determinism-copy");
    cpSync(src, copy, { recursive: true });
    expect(JSON.parse((await cli(["build", copy, "--out", path.join(root, "det-c"), "--json"])).stdout).generation).toBe(JSON.parse(ra.stdout).generation);
  });

  it("replaces an earlier build folder whole, leaving no temporary folders", async () => {
    const out = path.join(root, "replace");
    const src = shelf("replace-src", { alpha: {} });
    expect((await cli(["build", src, "--out", out])).code).toBe(0);
    writeFileSync(path.join(out, "blobs", "stale"), "old");
    expect((await cli(["build", src, "--out", out])).code).toBe(0);
    expect(existsSync(path.join(out, "blobs", "stale"))).toBe(false);
    expect(existsSync(path.join(out, "manifest.json"))).toBe(true);
    expect(readdirSync(root).filter((n) => n.startsWith(".replace."))).toEqual([]);
    // An empty folder is a fine target too.
    const empty = path.join(root, "replace-empty");
    mkdirSync(empty);
    expect((await cli(["build", src, "--out", empty])).code).toBe(0);
    expect(existsSync(path.join(empty, "manifest.json"))).toBe(true);
  });

  it("refuses an --out that is not a build folder, or is (inside, around) the shelf, touching nothing", async () => {
    const src = shelf("guarded-src", { alpha: {} });
    const unrelated = path.join(root, "unrelated");
    mkdirSync(path.join(unrelated, "docs"), { recursive: true });
    writeFileSync(path.join(unrelated, "docs", "notes.txt"), "precious");
    const file = path.join(root, "a-file.txt");
    writeFileSync(file, "precious");
    // A folder with a manifest.json but also something else is not ours to replace either.
    const lookalike = path.join(root, "lookalike");
    mkdirSync(lookalike);
    writeFileSync(path.join(lookalike, "manifest.json"), "{}");
    writeFileSync(path.join(lookalike, "thesis.tex"), "precious");
    const cases: Array<[string, RegExp]> = [
      [unrelated, /not empty and not a skillshelf build folder .*"docs"/],
      [file, /is a file, not a folder/],
      [lookalike, /not empty and not a skillshelf build folder .*"thesis.tex"/],
      [src, /is the shelf folder/],
      [path.join(src, "skills"), /is inside the shelf folder/],
      [path.join(src, "build"), /is inside the shelf folder/],
      [root, /contains the shelf folder/],
    ];
    const before = snapshot(root);
    for (const [out, message] of cases) {
      const r = await cli(["build", src, "--out", out]);
      expect(r.code, out).toBe(1);
      expect(r.stderr, out).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(snapshot(root)).toEqual(before);
    expect(readFileSync(file, "utf8")).toBe("precious");
    expect(existsSync(path.join(src, "build"))).toBe(false);
  });

  it("refuses a shelf with problems, lists every one, and writes nothing", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 512; i++) many[`references/f${i}.md`] = "x\n";
    const src = shelf("refusals", {
      invalid: {},
      "too-many": many,
      backslash: { "references/a\\b.md": "x\n" },
      control: { "references/bell\u0007.md": "x\n" },
      "case-clash": { "references/Guide.md": "a\n", "references/guide.md": "b\n" },
      "folder-clash": { "Refs/a.md": "a\n", "refs/b.md": "b\n" },
      "root-index": { "index.json": "{}\n" },
      linked: {},
      blocked: {},
      fine: {},
    });
    writeFileSync(path.join(src, "skills", "invalid", "SKILL.md"), "---\nname: Invalid_Name\n---\nbody\n");
    symlinkSync("/etc/hostname", path.join(src, "skills", "linked", "link.md"));
    const enc = new TextEncoder();
    const blockedInv = await buildInventory([{ path: "SKILL.md", bytes: enc.encode(skillMd("blocked")) }]);
    writeFileSync(
      path.join(src, "advisories.yaml"),
      `advisories:\n- name: blocked\n  source: anywhere\n  official_intent: Helps.\n  hidden_issue: Steals secrets.\n  severity: low\n  reference: https://example.com/a\n  tree_hash: ${blockedInv.tree_hash}\n`,
    );
    const out = path.join(root, "refused-out");
    const r = await cli(["build", src, "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const text = r.stderr;
    expect(text).toMatch(/invalid: name/);
    expect(text).toMatch(/too-many: files: 513 files; a skill may hold at most 512/);
    expect(text).toMatch(/backslash: files: path "references\/a\\\\b.md" contains a backslash/);
    expect(text).toMatch(/control: files: path .* contains a NUL or control character/);
    expect(text).toMatch(/case-clash: files: paths "references\/Guide.md" and "references\/guide.md" differ only by case/);
    expect(text).toMatch(/folder-clash: files: paths "Refs" and "refs" differ only by case/);
    expect(text).toMatch(/root-index: files: path "index.json" at the skill root collides with the static-host layout/);
    expect(text).toMatch(/linked: files: .*symlink/);
    expect(text).toMatch(/blocked: trust: verdict is blocked/);
    expect(text).not.toMatch(/fine:/);
    expect(existsSync(out)).toBe(false);

    const json = await cli(["build", src, "--out", out, "--json"]);
    expect(json.code).toBe(1);
    const problems = (JSON.parse(json.stdout) as { problems: { skill: string }[] }).problems;
    expect(new Set(problems.map((p) => p.skill))).toEqual(
      new Set(["invalid", "too-many", "backslash", "control", "case-clash", "folder-clash", "root-index", "linked", "blocked"]),
    );
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a skill over 16 MiB", async () => {
    const src = shelf("too-big", { huge: { "assets/big.bin": new Uint8Array(16 * 1024 * 1024) } });
    const r = await cli(["build", src, "--out", path.join(root, "too-big-out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/huge: files: 1677\d+ bytes; a skill may hold at most 16777216 bytes/);
    expect(statSync(src).isDirectory()).toBe(true);
  });

  it("refuses an advisories.yaml whose list key is misspelt, and prints record warnings", async () => {
    const critical =
      "- name: fine\n  source: anywhere\n  official_intent: Helps.\n  hidden_issue: Steals secrets.\n  severity: critical\n  reference: https://example.com/a\n";
    const misspelt = shelf("misspelt-advisories", { fine: {} }, { "advisories.yaml": `advisory:\n${critical}` });
    const out = path.join(root, "misspelt-out");
    const r = await cli(["build", misspelt, "--out", out]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toMatch(/advisories\.yaml:1:1: no 'advisories' key \(keys: \['advisory'\]\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);

    const typo = shelf(
      "typo-advisories",
      { fine: {} },
      {
        "advisories.yaml": `advisories:\n${critical}  stauts: withdrawn\n  withdrawn_reason: fixed\n`
          .replace("severity: critical", "severity: low")
          .replace("name: fine", "name: other"),
      },
    );
    const ok = await cli(["build", typo, "--out", path.join(root, "typo-out")]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/warning: advisories\.yaml:8:3: advisories\[0\]: unknown key 'stauts' is ignored/);
    expect(ok.stderr).toMatch(/warning: no validations\.yaml on this shelf/);
  });

  it("explains usage mistakes with exit 2", async () => {
    expect((await cli(["build"])).code).toBe(2);
    expect((await cli(["build", path.join(root, "nope")])).code).toBe(2);
    expect((await cli(["build", "shelf", "--bogus"])).code).toBe(2);
  });
});
