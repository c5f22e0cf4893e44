// skillshelf install --to <skills-dir> [--url <shelf>] [--lock skillshelf-lock.json] [--force] [--token-env NAME]:
// installs exactly the locked bytes of every skill in the lockfile (digests and tree hashes
// checked), one skill at a time, each atomically; local edits are never clobbered without --force.
// First it asks the shelf about every locked name and warns on stderr about deprecated, renamed,
// removed and blocked ones; a blocked skill is not installed.
import type { ShelfAnswer } from "../../core/changes/outdated.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { LOCK_FILE } from "../../core/versions/lock.ts";
import { stat } from "node:fs/promises";
import { CliError, parseCommandArgs, printable, UsageError, type Command } from "../lib/cli.ts";
import { installSkill, readLockFile, readTokenFrom } from "../lib/install.ts";
import { workerUrl } from "../lib/publish.ts";
import { askShelf, lifecycleWarning } from "../lib/shelf-status.ts";

const USAGE = "skillshelf install --to <skills-dir> [--url <shelf-url>] [--lock skillshelf-lock.json] [--force] [--token-env NAME]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { to: { type: "string" }, url: { type: "string" }, lock: { type: "string" }, force: { type: "boolean" }, "token-env": { type: "string" } },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  if (!values.to) throw new UsageError(`--to is required: the agent's skills folder, e.g. .claude/skills\nusage: ${USAGE}`);
  const target = await stat(values.to).catch(() => null);
  if (target !== null && !target.isDirectory()) throw new UsageError(`--to ${values.to} is not a folder: name the agent's skills folder\nusage: ${USAGE}`);
  const token = readTokenFrom(ctx.env, values["token-env"], USAGE);
  const lock = await readLockFile(values.lock ?? LOCK_FILE);
  const url = workerUrl(values.url ?? lock.shelf, USAGE, { capability: true });
  const names = Object.keys(lock.skills).sort();
  const failures: string[] = [];
  const unasked: { name: string; message: string }[] = [];
  const answers = await mapLimit(names, 8, async (name): Promise<ShelfAnswer | null> => {
    try {
      return await askShelf(url.replace(/\/+$/, ""), token, name);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      unasked.push({ name, message: error.message });
      return null;
    }
  });
  // One line, not one per skill: an unreachable or refusing shelf fails every look-up alike.
  if (unasked.length)
    ctx.stderr(
      `warning: cannot ask the shelf whether ${unasked.length} skill(s) are deprecated or blocked (${unasked[0]!.message}); installing the locked bytes\n`,
    );
  const blocked = new Set<string>();
  for (const [i, name] of names.entries()) {
    const answer = answers[i];
    const warning = answer ? lifecycleWarning(name, answer) : null;
    if (warning) ctx.stderr(`warning: ${warning}${answer?.kind === "blocked" ? "; it is not installed" : ""}\n`);
    if (answer?.kind === "blocked") blocked.add(name);
  }
  for (const [i, name] of names.entries()) {
    const skill = lock.skills[name]!;
    if (blocked.has(name)) {
      failures.push(name);
      continue;
    }
    // The version came from the shelf: printed with control characters escaped.
    const label = printable(`${name}@${skill.version ?? `sha256:${skill.tree_hash.slice(0, 12)}`}`);
    ctx.stderr(`[${i + 1}/${names.length}] ${label}: ${skill.files.length} file(s), ${skill.files.reduce((n, f) => n + f.size, 0)} bytes\n`);
    try {
      const outcome = await installSkill({ url, token }, values.to, name, skill, values.force === true);
      ctx.stdout(`${outcome}\t${label}\t${values.to}/${name}\n`);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      ctx.stderr(`skillshelf: ${error.message}\n`);
      failures.push(name);
    }
  }
  if (failures.length) throw new CliError(`${failures.length} of ${names.length} skill(s) not installed: ${failures.join(", ")}`);
  return 0;
};
