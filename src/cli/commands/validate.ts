// skillshelf validate <skill-or-shelf-dir> [--json]: every problem of every skill, at once. A
// shelf is checked exactly as `build` checks it (checkShelf), so validate passes when build would.
import path from "node:path";
import { auditSkill } from "../../core/audit/scan.ts";
import { findingId } from "../../core/audit/verdict.ts";
import type { ProvenanceEntry } from "../../core/import/provenance.ts";
import { allowedBy, SHELF_CONFIG_FILE } from "../../core/import/sources.ts";
import type { Problem } from "../../core/skill/validate.ts";
import { checkShelf, type CheckedSkill } from "../lib/build.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readAllowList } from "../lib/import/shelf-files.ts";
import { isShelfDir, loadSkill, requireDir } from "../lib/skill-dir.ts";

const USAGE = "skillshelf validate <skill-or-shelf-dir> [--json]";

interface SkillReport {
  name: string;
  dir: string;
  ok: boolean;
  problems: Problem[];
}

/** A malformed trust record file of a shelf, which refuses its build. */
interface RecordReport {
  file: string;
  message: string;
}

/** Validates one skill folder; filesystem refusals (symlinks, unreadable files) become problems, as in build. */
async function validateOne(dir: string): Promise<CheckedSkill> {
  const folder = path.basename(path.resolve(dir));
  try {
    const skill = await loadSkill(dir);
    // Findings are warnings here, as in a shelf's check (build.ts); the verdict is what gates on them.
    const audit = auditSkill(skill.files).findings.map(
      (f): Problem => ({ skill: folder, field: "audit", severity: "warning", message: `${f.severity} ${findingId(f)}: ${f.message.split(". ")[0]}` }),
    );
    return { folder, dir, problems: [...skill.validation.problems, ...audit] };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { folder, dir, problems: [{ skill: folder, field: "files", severity: "error", message: error.message }] };
  }
}

/** A problem for each imported skill whose recorded source the shelf's allow-list no longer names. */
async function unallowedSources(shelf: string, provenance: ReadonlyMap<string, ProvenanceEntry>): Promise<Problem[]> {
  if (!provenance.size) return [];
  const allow = await readAllowList(shelf);
  const entries = allow?.entries.map((e) => e.identity) ?? [];
  return [...provenance]
    .filter(([, entry]) => allowedBy(entries, entry.source) === null)
    .map(([name, entry]) => ({
      skill: name,
      field: "provenance",
      severity: "error",
      message: `imported from ${entry.source}, which ${SHELF_CONFIG_FILE} sources: no longer allows; remove the skill, or allow the source again`,
    }));
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one folder\nusage: ${USAGE}`);
  const target = positionals[0]!;
  await requireDir(target);

  let checked: CheckedSkill[];
  let records: RecordReport[] = [];
  if (await isShelfDir(target)) {
    const shelf = await checkShelf(target);
    checked = shelf.skills;
    records = shelf.recordProblems.map((p) => ({ file: p.field, message: p.message }));
    for (const p of await unallowedSources(target, shelf.provenance)) checked.find((s) => s.folder === p.skill)?.problems.push(p);
  } else checked = [await validateOne(target)];
  const reports: SkillReport[] = checked.map((s) => ({
    name: s.folder,
    dir: s.dir,
    ok: !s.problems.some((p) => p.severity === "error"),
    problems: s.problems,
  }));

  const all = reports.flatMap((r) => r.problems);
  const skillErrors = all.filter((p) => p.severity === "error").length;
  const errors = skillErrors + records.length;
  const warnings = all.length - skillErrors;
  // An empty shelf (skills/ with nothing in it yet, as `init --empty` writes it) builds, so it validates.
  const ok = errors === 0;
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ok, errors, warnings, records, skills: reports }, null, 2)}\n`);
  } else {
    for (const r of records) ctx.stdout(`shelf: error: ${r.file}: ${r.message}\n`);
    for (const p of all) ctx.stdout(`${p.skill}: ${p.severity}: ${p.field}: ${p.message}\n`);
    const invalid = reports.filter((r) => !r.ok).length;
    if (reports.length === 0) ctx.stdout(`no skills in ${path.join(target, "skills")} yet: the shelf is empty (add one as skills/<name>/SKILL.md)\n`);
    else ctx.stdout(`${reports.length} skill(s) checked: ${reports.length - invalid} valid, ${invalid} invalid (${errors} error(s), ${warnings} warning(s))\n`);
  }
  return ok ? 0 : 1;
};
