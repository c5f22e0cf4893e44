// `skillshelf trust <shelf-dir> [--json]`: every skill's trust verdict and the reasons behind it,
// evaluated exactly as selection does (provenance derived from the records, worst verdict).
import path from "node:path";
import { auditSkill } from "../../core/audit/scan.ts";
import { applyAudit } from "../../core/audit/verdict.ts";
import { judgeSkill } from "../../core/trust/select.ts";
import { forPeople, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readShelfRecords } from "../lib/shelf-records.ts";
import { listShelfSkillDirs, loadSkill, requireDir } from "../lib/skill-dir.ts";

const USAGE = "skillshelf trust <shelf-dir> [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one shelf folder\nusage: ${USAGE}`);
  const shelf = positionals[0]!;
  await requireDir(shelf, "shelf folder");
  const warnings: string[] = [];
  const records = await readShelfRecords(shelf, (w) => warnings.push(w));
  const skills = [];
  for (const dir of await listShelfSkillDirs(shelf)) {
    const loaded = await loadSkill(dir);
    const name = path.basename(dir);
    if (!loaded.inventory || !loaded.validation.ok) {
      const reason = loaded.validation.problems.find((p) => p.severity === "error")?.message ?? "not a valid skill";
      skills.push({ name, tree_hash: loaded.inventory?.tree_hash ?? null, verdict: null, notes: [], invalid: reason });
      continue;
    }
    const notes: string[] = [];
    // The audit can only make the verdict stricter (as the build's); no gating finding, no change.
    const verdict = applyAudit(
      judgeSkill(records, { name, tree_hash: loaded.inventory.tree_hash, has_scripts: loaded.inventory.has_scripts }, (m) => notes.push(m)),
      auditSkill(loaded.files).findings,
    );
    skills.push({ name, tree_hash: loaded.inventory.tree_hash, verdict, notes, invalid: null });
  }
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ shelf, warnings, skills }, null, 2)}\n`);
  } else {
    for (const w of warnings) ctx.stderr(`warning: ${w}\n`);
    for (const s of skills) {
      if (!s.verdict) {
        ctx.stdout(`${s.name}  invalid  ${forPeople(s.invalid ?? "")}\n`);
        continue;
      }
      const state = s.verdict.blocked ? "BLOCKED" : s.verdict.attachable ? "attachable" : "requires review";
      ctx.stdout(`${s.name}  ${s.verdict.level}  ${state}  tree ${s.tree_hash}\n`);
      for (const r of s.verdict.reasons) ctx.stdout(`    ${forPeople(r)}\n`);
      for (const n of s.notes) ctx.stdout(`    note: ${forPeople(n)}\n`);
    }
  }
  // Invalid skills are a shelf problem; verdicts (even blocked) are information, not failure.
  return skills.some((s) => s.invalid) ? 1 : 0;
};
