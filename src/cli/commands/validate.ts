// skillshelf validate <skill-or-shelf-dir> [--json]: every problem of every skill, at once.
import path from "node:path";
import type { Problem } from "../../core/skill/validate.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { isShelfDir, listShelfSkillDirs, loadSkill, requireDir } from "../lib/skill-dir.ts";

const USAGE = "skillshelf validate <skill-or-shelf-dir> [--json]";

interface SkillReport {
  name: string;
  dir: string;
  ok: boolean;
  problems: Problem[];
}

/** Validates one folder; filesystem refusals (symlinks, unreadable files) become problems. */
async function validateOne(dir: string): Promise<SkillReport> {
  const name = path.basename(path.resolve(dir));
  try {
    const skill = await loadSkill(dir);
    return { name, dir, ok: skill.validation.ok, problems: skill.validation.problems };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { name, dir, ok: false, problems: [{ skill: name, field: "folder", severity: "error", message: error.message }] };
  }
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one folder\nusage: ${USAGE}`);
  const target = positionals[0]!;
  await requireDir(target);

  const dirs = (await isShelfDir(target)) ? await listShelfSkillDirs(target) : [target];
  const reports: SkillReport[] = [];
  for (const dir of dirs) reports.push(await validateOne(dir));

  const all = reports.flatMap((r) => r.problems);
  const errors = all.filter((p) => p.severity === "error").length;
  const warnings = all.length - errors;
  const ok = errors === 0 && reports.length > 0;
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ok, errors, warnings, skills: reports }, null, 2)}\n`);
  } else {
    for (const p of all) ctx.stdout(`${p.skill}: ${p.severity}: ${p.field}: ${p.message}\n`);
    const invalid = reports.filter((r) => !r.ok).length;
    if (reports.length === 0) ctx.stdout(`no skills found in ${path.join(target, "skills")}\n`);
    else ctx.stdout(`${reports.length} skill(s) checked: ${reports.length - invalid} valid, ${invalid} invalid (${errors} error(s), ${warnings} warning(s))\n`);
  }
  return ok ? 0 : 1;
};
