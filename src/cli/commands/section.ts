// skillshelf section <skill-dir> <key>: one section of a skill's body, exactly as an agent gets
// it from get_skill_section (no newline added). An unknown key lists the keys that exist.
import { outlineOf, SectionNotFoundError, sectionOf } from "../../core/disclosure/outline.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { loadValidSkill } from "../lib/valid-skill.ts";

const USAGE = "skillshelf section <skill-dir> <key>";

export const run: Command = async (ctx) => {
  const { positionals } = parseCommandArgs(ctx.args, {}, USAGE);
  if (positionals.length !== 2) throw new UsageError(`expected a skill folder and a section key\nusage: ${USAGE}`);
  const [dir, key] = positionals as [string, string];
  const skill = await loadValidSkill(dir);
  try {
    ctx.stdout(sectionOf(skill.body, outlineOf(skill.name, skill.body), key));
  } catch (error) {
    if (error instanceof SectionNotFoundError) {
      throw new CliError(`${error.message} (see skillshelf outline ${dir})`);
    }
    throw error;
  }
  return 0;
};
