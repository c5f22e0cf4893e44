// skillshelf hash <skill-dir>: the tree hash alone on one line (for scripts and pins).
import { buildInventory } from "../../core/skill/inventory.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readSkillDir } from "../lib/skill-dir.ts";
import { treeHash, sha256Hex } from "../../core/skill/hash.ts";

const USAGE = "skillshelf hash <skill-dir>";

export const run: Command = async (ctx) => {
  const { positionals } = parseCommandArgs(ctx.args, {}, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one skill folder\nusage: ${USAGE}`);
  const files = await readSkillDir(positionals[0]!);
  // The tree hash is defined for any folder; a missing SKILL.md is the validator's business.
  const hash = files.some((f) => f.path === "SKILL.md")
    ? (await buildInventory(files)).tree_hash
    : await treeHash(await Promise.all(files.map(async (f) => ({ path: f.path, sha256: await sha256Hex(f.bytes) }))));
  ctx.stdout(`${hash}\n`);
  return 0;
};
