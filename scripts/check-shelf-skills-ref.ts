#!/usr/bin/env node
// Runs the specification's reference validator (npm skills-ref 0.1.5) on every skill of a shelf.
// Usage: npx node scripts/check-shelf-skills-ref.ts [shelf-dir]   (default: shelf)
// A skill passes when skills-ref reports it valid, or reports exactly one problem: "Unexpected
// fields" naming exactly the documented extension keys (version, when_to_use, when_not_to_use)
// that its frontmatter uses. Anything else (another unknown key, a parse error, a bad name)
// fails. Exit 0 all pass, 1 any fail, 2 usage error.
import { execFile } from "node:child_process";
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseSkillMd } from "../src/core/skill/skill-md.ts";
import { EXTENSION_FIELDS } from "../src/core/skill/validate.ts";
import { CliError } from "../src/cli/lib/cli.ts";
import { listShelfSkillDirs } from "../src/cli/lib/skill-dir.ts";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The installed skills-ref CLI (a devDependency pinned at 0.1.5). */
const SKILLS_REF_BIN = path.join(repoRoot, "node_modules", ".bin", "skills-ref");

/** skills-ref's full message for unexpected top-level keys, given the sorted key list. */
export function unexpectedFieldsMessage(keys: readonly string[]): string {
  return `Unexpected fields in frontmatter: ${[...keys].sort().join(", ")}. Only allowed-tools, compatibility, description, license, metadata, name are allowed.`;
}

/** The documented extension keys a SKILL.md's frontmatter uses, sorted; [] if it does not parse. */
async function extensionKeysOf(skillDir: string): Promise<string[]> {
  try {
    const { frontmatter } = parseSkillMd(await readFile(path.join(skillDir, "SKILL.md"), "utf8"));
    return EXTENSION_FIELDS.filter((k) => Object.hasOwn(frontmatter, k)).sort();
  } catch {
    return []; // skills-ref reports the parse problem itself, which fails the check
  }
}

/** The result of checking one skill: ok, plus a line for the report. */
export interface SkillsRefResult {
  name: string;
  ok: boolean;
  line: string;
}

/** Runs skills-ref on one skill folder and judges its output against the skill's extension keys. */
export async function checkSkill(skillDir: string): Promise<SkillsRefResult> {
  const name = path.basename(skillDir);
  const expected = await extensionKeysOf(skillDir);
  let code = 0;
  let stdout = "";
  let stderr = "";
  try {
    ({ stdout, stderr } = await run(process.execPath, [SKILLS_REF_BIN, "validate", skillDir]));
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw new CliError(`cannot run skills-ref (${SKILLS_REF_BIN}): ${String(e.code ?? error)}; run npm install`);
    ({ code, stdout = "", stderr = "" } = e as { code: number; stdout?: string; stderr?: string });
  }
  const problems = stderr
    .split("\n")
    .filter((l) => l.startsWith("  - "))
    .map((l) => l.slice(4));
  const report = [stdout.trim(), stderr.trim()].filter(Boolean).join(" | ");
  if (expected.length === 0) {
    const ok = code === 0 && problems.length === 0;
    return { name, ok, line: ok ? `${name}: valid` : `${name}: skills-ref reported problems: ${report}` };
  }
  const wanted = unexpectedFieldsMessage(expected);
  const ok = code === 1 && problems.length === 1 && problems[0] === wanted;
  return {
    name,
    ok,
    line: ok
      ? `${name}: valid apart from the documented extension keys ${expected.join(", ")}`
      : `${name}: expected only "${wanted}", skills-ref said: ${report}`,
  };
}

async function main(argv: string[]): Promise<number> {
  if (argv.length > 1 || argv[0]?.startsWith("-")) {
    process.stderr.write("usage: npx node scripts/check-shelf-skills-ref.ts [shelf-dir]\n");
    return 2;
  }
  try {
    await access(SKILLS_REF_BIN);
  } catch {
    process.stderr.write(`skills-ref is not installed at ${SKILLS_REF_BIN}; run npm install\n`);
    return 2;
  }
  const dirs = await listShelfSkillDirs(argv[0] ?? path.join(repoRoot, "shelf"));
  let failed = 0;
  for (const dir of dirs) {
    const result = await checkSkill(dir);
    if (!result.ok) failed++;
    (result.ok ? process.stdout : process.stderr).write(`${result.ok ? "ok  " : "FAIL"} ${result.line}\n`);
  }
  process.stdout.write(`skills-ref ${dirs.length} skill(s): ${dirs.length - failed} passed, ${failed} failed\n`);
  return failed || dirs.length === 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`check-shelf-skills-ref: ${error instanceof CliError ? error.message : ((error as Error).stack ?? String(error))}\n`);
      process.exitCode = error instanceof CliError ? error.exitCode : 70;
    },
  );
}
