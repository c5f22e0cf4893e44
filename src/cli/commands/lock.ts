// skillshelf lock --url <shelf> <name@range>... [--out skillshelf-lock.json] [--token-env NAME] [--json]:
// resolves each range on the shelf (POST /v1/resolve) and writes the lockfile (skillshelf.lock/1).
import { LOCK_FILE, parseSkillSpec, renderLockFile } from "../../core/versions/lock.ts";
import { SKILL_NAME_RE } from "../../core/skill/skill.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readTokenFrom, resolveLock, shelfAddressForLock, writeFileAtomic } from "../lib/install.ts";
import { workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf lock --url <shelf-url> <name[@range]>... [--out skillshelf-lock.json] [--token-env NAME] [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { url: { type: "string" }, out: { type: "string" }, "token-env": { type: "string" }, json: { type: "boolean" } },
    USAGE,
  );
  const url = workerUrl(values.url, USAGE, { capability: true });
  if (positionals.length === 0) throw new UsageError(`name at least one skill, e.g. code-review@^1.2\nusage: ${USAGE}`);
  const skills: Record<string, string> = {};
  for (const spec of positionals) {
    const { name, range } = parseSkillSpec(spec);
    if (!SKILL_NAME_RE.test(name))
      throw new UsageError(`${JSON.stringify(spec)} does not start with a skill name (lowercase letters, digits, hyphens)\nusage: ${USAGE}`);
    if (skills[name] !== undefined && skills[name] !== range) throw new UsageError(`${name} is named twice with different ranges`);
    skills[name] = range;
  }
  const token = readTokenFrom(ctx.env, values["token-env"], USAGE);
  ctx.stderr(`resolving ${Object.keys(skills).length} skill(s) on ${new URL(url).origin}\n`);
  const lock = await resolveLock({ url, token }, skills);
  const out = values.out ?? LOCK_FILE;
  const text = renderLockFile(lock);
  await writeFileAtomic(out, text);
  if (shelfAddressForLock(url).hadCapability)
    ctx.stderr("note: the capability path (/c/<token>) is not written to the lockfile; pass the same --url to install\n");
  if (values.json) {
    ctx.stdout(text);
    return 0;
  }
  for (const [name, s] of Object.entries(lock.skills)) {
    ctx.stdout(
      `${name}@${s.range}\t${s.version ?? "(no version)"}\ttree ${s.tree_hash.slice(0, 12)}\tgeneration ${s.generation.slice(0, 12)}\t${s.files.length} file(s)\n`,
    );
  }
  ctx.stdout(`wrote ${out}\n`);
  return 0;
};
