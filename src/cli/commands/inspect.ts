// skillshelf inspect <skill-dir> --json: inventory, content and tree hash, parsed frontmatter.
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { loadSkill } from "../lib/skill-dir.ts";

const USAGE = "skillshelf inspect <skill-dir> --json";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one skill folder\nusage: ${USAGE}`);
  if (!values.json) throw new UsageError(`inspect prints JSON; pass --json\nusage: ${USAGE}`);
  const skill = await loadSkill(positionals[0]!);
  if (!skill.inventory) throw new CliError(skill.validation.problems[0]?.message ?? "not a skill folder");
  const report = {
    name: skill.name,
    content_hash: skill.inventory.content_hash,
    tree_hash: skill.inventory.tree_hash,
    total_bytes: skill.inventory.total_bytes,
    has_scripts: skill.inventory.has_scripts,
    files: skill.inventory.files,
    frontmatter: skill.validation.parsed?.frontmatter ?? null,
    metadata: skill.validation.metadata ?? null,
    valid: skill.validation.ok,
    problems: skill.validation.problems,
  };
  ctx.stdout(`${JSON.stringify(report, null, 2)}\n`);
  return skill.validation.ok ? 0 : 1;
};
