// Hostile input through every command (issue 11): a self-referencing alias and a lone surrogate
// in SKILL.md, an alias bomb in a record file, are each a clear error and exit 1, never exit 70;
// `validate` reports everything `build` refuses, in the build's words, because both run one check.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildInventory } from "../../src/core/skill/inventory.ts";
import { runCli } from "./run-cli.ts";
import { runInProcess } from "./run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-hostile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: Does ${name} things for the hostile-input tests.\n${extra}---\n# ${name}\n\nSteps.\n`;

/** A shelf folder with the given skills (folder → relative path → content) and record files. */
function shelf(name: string, skills: Record<string, Record<string, string | Uint8Array>>, records: Record<string, string> = {}): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  for (const [skill, files] of Object.entries(skills)) {
    for (const [rel, content] of Object.entries({ "SKILL.md": skillMd(skill), ...files })) {
      const file = path.join(dir, "skills", skill, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  for (const [file, text] of Object.entries(records)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** A billion-laughs document: ten levels of ten aliases each. */
function aliasBomb(listKey: string): string {
  const lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(",")}]`,
    );
  return `${lines.join("\n")}\n${listKey}: []\n`;
}

const selfAlias = shelf("self-alias", { demo: { "SKILL.md": skillMd("demo", "x: &x [*x]\n") } });
const loneSurrogate = shelf("lone-surrogate", { demo: { "SKILL.md": skillMd("demo").replace(/description: .*\n/, 'description: "\\ud800 lone"\n') } });
const bomb = shelf("alias-bomb", { demo: {} }, { "advisories.yaml": aliasBomb("advisories") });
const validationsBomb = shelf("validations-bomb", { demo: {} }, { "validations.yaml": aliasBomb("validations") });

/** Every command that reads a skill or a shelf, on `dir` (a shelf whose one skill is `demo`). */
function everyCommand(dir: string): string[][] {
  const skill = path.join(dir, "skills", "demo");
  return [
    ["validate", dir],
    ["validate", skill],
    ["build", dir, "--out", path.join(root, "out", path.basename(dir))],
    ["inspect", skill, "--json"],
    ["trust", dir],
    ["catalog", dir],
    ["outline", skill],
    ["section", skill, "body"],
    ["attest", dir, "demo", "--check"],
  ];
}

describe("hostile SKILL.md: a clear error and exit 1 in every command", () => {
  for (const [label, dir, problem] of [
    ["a self-referencing alias", selfAlias, /x\[0\] contains itself \(an alias inside its own anchor\)/],
    ["a lone surrogate escape", loneSurrogate, /the string at description holds a lone surrogate escape/],
  ] as const) {
    it(label, async () => {
      for (const args of everyCommand(dir)) {
        const r = await runInProcess(args);
        expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
        expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
        // attest names no YAML; it points at validate, which does.
        expect(`${r.stdout}${r.stderr}`, args.join(" ")).toMatch(args[0] === "attest" ? /the skill is invalid .* run npx skillshelf validate/ : problem);
      }
      // select treats an invalid skill as missing (fail closed), saying why, and exits 0.
      const selected = await runInProcess(["select", dir, "--names", "demo"]);
      expect(selected.code).toBe(0);
      expect(selected.stdout).toMatch(/missing: demo/);
      expect(selected.stdout).toMatch(problem);
    });
  }

  // A child process: the real bin's exit status and stderr (no "internal error", no stack) are under test.
  it("the real bin: build, which crashed on both, exits 1 without a stack trace", () => {
    for (const dir of [selfAlias, loneSurrogate]) {
      for (const args of [everyCommand(dir)[2]!]) {
        const r = runCli(args);
        expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(1);
        expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      }
    }
  });
});

describe("an alias bomb in a record file: a clear error and exit 1 in every command that reads it", () => {
  it("advisories.yaml", async () => {
    const commands = [
      ["validate", bomb],
      ["build", bomb, "--out", path.join(root, "out", "bomb")],
      ["trust", bomb],
      ["select", bomb, "--names", "demo"],
      ["advise", bomb, "--url", "http://127.0.0.1:9"],
    ];
    for (const args of commands) {
      const r = await runInProcess(args);
      expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(`${r.stdout}${r.stderr}`, args[0]).toMatch(/advisories\.yaml: Excessive alias count .*refusing to expand aliases/);
    }
    // A child process: the real bin's exit status and stderr are under test.
    const real = runCli(["build", bomb, "--out", path.join(root, "out", "bomb-bin")]);
    expect(real.code, real.stderr).toBe(1);
    expect(real.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("validations.yaml", async () => {
    for (const args of [
      ["validate", validationsBomb],
      ["build", validationsBomb, "--out", path.join(root, "out", "vbomb")],
      ["trust", validationsBomb],
      ["attest", validationsBomb, "demo", "--check"],
    ]) {
      const r = await runInProcess(args);
      expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(`${r.stdout}${r.stderr}`, args[0]).toMatch(/validations\.yaml.*Excessive alias count/);
    }
  });
});

describe("validate reports everything build refuses, in the same words (issue 11)", () => {
  const many: Record<string, string> = {};
  for (let i = 0; i < 512; i++) many[`references/f${i}.md`] = "x\n";
  const cases: Record<string, Record<string, string | Uint8Array>> = {
    "big-file": { "assets/big.bin": new Uint8Array(17 * 1024 * 1024) },
    "too-many": many,
    "case-twins": { "references/Guide.md": "a\n", "references/guide.md": "b\n" },
    "nfc-nfd-twins": { "references/caf\u00e9.md": "a\n", "references/cafe\u0301.md": "b\n" },
    "root-index": { "index.json": "{}\n" },
    "root-proto": { ["__proto__"]: "x\n" },
    "root-number": { "7": "x\n" },
    "long-path": { [`references/${"n".repeat(120)}.md`]: "x\n" },
    backslash: { "references/a\\b.md": "x\n" },
    control: { "references/bell\u0007.md": "x\n" },
    "self-alias": { "SKILL.md": skillMd("self-alias", "x: &x [*x]\n") },
    "lone-surrogate": { "SKILL.md": skillMd("lone-surrogate").replace(/description: .*\n/, 'description: "\\ud800 lone"\n') },
    "binary-tag": { "SKILL.md": skillMd("binary-tag", "metadata: {logo: !!binary aGVsbG8=}\n") },
    "deep-frontmatter": { "SKILL.md": skillMd("deep-frontmatter", `metadata: {x: ${"[".repeat(80)}${"]".repeat(80)}}\n`) },
  };

  for (const [name, files] of Object.entries(cases)) {
    it(name, async () => {
      const dir = shelf(`agree-${name}`, { [name]: files, fine: {} });
      const built = await runInProcess(["build", dir, "--out", path.join(root, "out", `agree-${name}`), "--json"]);
      const validated = await runInProcess(["validate", dir, "--json"]);
      expect(built.internal ?? validated.internal).toBeUndefined();
      expect(built.code, built.stdout).toBe(1);
      expect(validated.code, validated.stdout).toBe(1);
      const refused = (JSON.parse(built.stdout) as { problems: { skill: string; field: string; message: string }[] }).problems;
      expect(refused.length).toBeGreaterThan(0);
      const report = JSON.parse(validated.stdout) as {
        skills: { name: string; ok: boolean; problems: { field: string; severity: string; message: string }[] }[];
      };
      const reported = report.skills.flatMap((s) =>
        s.problems.filter((p) => p.severity === "error").map((p) => ({ skill: s.name, field: p.field, message: p.message })),
      );
      expect(reported).toEqual(refused);
      expect(report.skills.find((s) => s.name === "fine")?.ok).toBe(true);
    });
  }

  it("a blocked skill and a malformed record file", async () => {
    const { tree_hash } = await buildInventory([{ path: "SKILL.md", bytes: new TextEncoder().encode(skillMd("fine")) }]);
    const dir = shelf(
      "agree-records",
      { fine: {} },
      {
        "advisories.yaml": `advisories:\n- name: fine\n  source: anywhere\n  official_intent: Helps.\n  hidden_issue: Steals.\n  severity: low\n  reference: https://example.com/a\n  tree_hash: ${tree_hash}\n`,
        "guidance.yaml": "guidance: [\n",
      },
    );
    const built = await runInProcess(["build", dir, "--out", path.join(root, "out", "agree-records"), "--json"]);
    const validated = await runInProcess(["validate", dir]);
    expect(built.code).toBe(1);
    expect(validated.code).toBe(1);
    const refused = (JSON.parse(built.stdout) as { problems: { skill: string | null; field: string; message: string }[] }).problems;
    expect(refused.map((p) => p.field)).toEqual(["guidance.yaml", "trust"]);
    for (const p of refused) expect(validated.stdout).toContain(`${p.skill ?? "shelf"}: error: ${p.field}: ${p.message}`);
  });
});
