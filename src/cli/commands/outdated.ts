// skillshelf outdated --url <shelf> [--lock skillshelf-lock.json | skills-lock.json | --dir <skills-folder>]
// [--json] [--token-env NAME]: per installed skill, current / newer / deprecated (and its
// replacement) / blocked by an advisory / gone, asked of the shelf's /v1/skills/{name}; exit 1
// when anything is blocked or gone, so CI can gate on it. A skills-lock.json (the `skills` CLI's)
// is compared by the digest its entries recorded from the shelf's v0.2 index.
import { access, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { classifyInstalled, outdatedExitCode, type OutdatedRow } from "../../core/changes/outdated.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { buildInventory } from "../../core/skill/inventory.ts";
import { SKILL_NAME_RE } from "../../core/skill/skill.ts";
import { LOCK_FILE } from "../../core/versions/lock.ts";
import { CliError, parseCommandArgs, printable, UsageError, type Command } from "../lib/cli.ts";
import { readLockFile, readTokenFrom } from "../lib/install.ts";
import { workerUrl } from "../lib/publish.ts";
import { askShelf, wellKnownDigests } from "../lib/shelf-status.ts";
import { readSkillDir } from "../lib/skill-dir.ts";
import { fromShelf, looksLikeSkillsLock, SKILLS_LOCK_FILE, SkillsLockSchema } from "../lib/skills-lock.ts";

const USAGE =
  "skillshelf outdated --url <shelf-url> [--lock skillshelf-lock.json | --lock skills-lock.json | --dir <skills-folder>] [--json] [--token-env NAME]";

/** Parallel look-ups of the shelf. */
const CONCURRENCY = 8;

type Installed = { name: string; tree_hash: string | null; version: string | null; well_known_digest?: string };

/** The skills a folder holds (each sub-folder with a SKILL.md), by tree hash. */
async function installedInFolder(dir: string): Promise<Installed[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    throw new CliError(`cannot read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const out: Installed[] = [];
  for (const name of entries.sort()) {
    if (!SKILL_NAME_RE.test(name)) continue;
    const files = await readSkillDir(path.join(dir, name));
    if (!files.some((f) => f.path === "SKILL.md")) continue;
    out.push({ name, tree_hash: (await buildInventory(files)).tree_hash, version: null });
  }
  return out;
}

/**
 * The skills a lockfile names: a skillshelf-lock.json by tree hash, or a skills-lock.json's entries
 * installed from this shelf by their index digest (the others are named on stderr and left out).
 * Without --lock: skillshelf-lock.json, else skills-lock.json, in the current folder.
 */
async function installedInLock(file: string | undefined, url: string, stderr: (text: string) => void): Promise<Installed[]> {
  const exists = (f: string) =>
    access(f).then(
      () => true,
      () => false,
    );
  const chosen = file ?? (!(await exists(LOCK_FILE)) && (await exists(SKILLS_LOCK_FILE)) ? SKILLS_LOCK_FILE : LOCK_FILE);
  let json: unknown = null;
  try {
    json = JSON.parse(await readFile(chosen, "utf8"));
  } catch {
    // Unreadable or not JSON: readLockFile below says which, in its words.
  }
  if (!looksLikeSkillsLock(json)) {
    const lock = await readLockFile(chosen);
    return Object.entries(lock.skills).map(([name, s]) => ({ name, tree_hash: s.tree_hash, version: s.version }));
  }
  const parsed = SkillsLockSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(printable(`${chosen} is not a skills-lock.json the skills CLI writes: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`));
  }
  const { mine, others } = fromShelf(parsed.data, url);
  if (others.length)
    stderr(
      printable(
        `skillshelf: ${others.length} skill(s) in ${chosen} were not installed from ${url}'s well-known index, so not checked: ${others.sort().join(", ")}\n`,
      ),
    );
  return mine.filter((m) => SKILL_NAME_RE.test(m.name)).map((m) => ({ name: m.name, tree_hash: null, version: null, well_known_digest: m.digest }));
}

function describe(row: OutdatedRow): string {
  const v = (x: { version: string | null; tree_hash: string | null; well_known_digest?: string | null } | null) =>
    x ? (x.version ?? x.tree_hash?.slice(0, 12) ?? x.well_known_digest?.slice(0, 19) ?? "?") : "-";
  switch (row.state) {
    case "current":
      return `${row.name}\tcurrent\t${v(row.installed)}`;
    case "newer":
      return `${row.name}\tnewer available\t${v(row.installed)} -> ${v(row.available)}`;
    case "deprecated":
      return `${row.name}\tdeprecated\t${row.deprecated}${row.replaced_by ? ` (use ${row.replaced_by})` : ""}`;
    case "blocked":
      return `${row.name}\tBLOCKED\t${row.advisory}`;
    case "gone":
      return `${row.name}\tGONE\tno longer on the shelf`;
  }
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { url: { type: "string" }, lock: { type: "string" }, dir: { type: "string" }, json: { type: "boolean" }, "token-env": { type: "string" } },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected ${positionals[0]}\nusage: ${USAGE}`);
  if (values.lock !== undefined && values.dir !== undefined) throw new UsageError(`give --lock or --dir, not both\nusage: ${USAGE}`);
  const url = workerUrl(values.url, USAGE, { capability: true }).replace(/\/+$/, "");
  const token = readTokenFrom(ctx.env, values["token-env"], USAGE);
  const installed = values.dir !== undefined ? await installedInFolder(values.dir) : await installedInLock(values.lock, url, ctx.stderr);
  installed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const digests = installed.some((s) => s.well_known_digest !== undefined) ? await wellKnownDigests(url, token) : null;
  const rows = await mapLimit(installed, CONCURRENCY, async (s) => {
    const answer = await askShelf(url, token, s.name);
    const asked = answer.kind === "skill" && digests ? { ...answer, digest: digests.get(s.name) ?? null } : answer;
    const mine = { tree_hash: s.tree_hash, version: s.version, ...(s.well_known_digest !== undefined ? { well_known_digest: s.well_known_digest } : {}) };
    return classifyInstalled(s.name, mine, asked);
  });
  if (values.json) ctx.stdout(`${JSON.stringify({ skills: rows }, null, 2)}\n`);
  else {
    for (const row of rows) ctx.stdout(`${describe(row)}\n`);
    if (rows.length === 0) ctx.stdout("no installed skills found\n");
  }
  return outdatedExitCode(rows);
};
