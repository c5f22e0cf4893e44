// skillshelf outline <skill-dir> [--json]: the outline an agent is served for a skill, exactly
// as rendered (no newline added), or the outline data (keys, levels, titles, tokens) as JSON.
import { outlineOf, renderOutline } from "../../core/disclosure/outline.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { loadValidSkill } from "../lib/valid-skill.ts";

const USAGE = "skillshelf outline <skill-dir> [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one skill folder\nusage: ${USAGE}`);
  const skill = await loadValidSkill(positionals[0]!);
  const outline = outlineOf(skill.name, skill.body);
  ctx.stdout(values.json ? `${JSON.stringify(outline, null, 2)}\n` : renderOutline(outline));
  return 0;
};
