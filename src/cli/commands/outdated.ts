// skillshelf outdated --url <shelf> [--lock skillshelf-lock.json | --dir <skills-folder>] [--json]
// [--token-env NAME]: per installed skill, current / newer / deprecated (and its replacement) /
// blocked by an advisory / gone, asked of the shelf's /v1/skills/{name}; exit 1 when anything is
// blocked or gone, so CI can gate on it.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { classifyInstalled, outdatedExitCode, type OutdatedRow, type ShelfAnswer } from "../../core/changes/outdated.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { buildInventory } from "../../core/skill/inventory.ts";
import { SKILL_NAME_RE } from "../../core/skill/skill.ts";
import { LOCK_FILE } from "../../core/versions/lock.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readLockFile, readTokenFrom } from "../lib/install.ts";
import { workerUrl } from "../lib/publish.ts";
import { readSkillDir } from "../lib/skill-dir.ts";

const USAGE = "skillshelf outdated --url <shelf-url> [--lock skillshelf-lock.json | --dir <skills-folder>] [--json] [--token-env NAME]";

/** Parallel look-ups of the shelf. */
const CONCURRENCY = 8;

type Installed = { name: string; tree_hash: string | null; version: string | null };

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

/** What the shelf answers for a name, redirects not followed (a 301 is a rename). */
async function askShelf(url: string, token: string | undefined, name: string): Promise<ShelfAnswer> {
  const headers = new Headers({ Accept: "application/json" });
  if (token) headers.set("Authorization", `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(`${url}/v1/skills/${name}`, { headers, redirect: "manual" });
  } catch (error) {
    throw new CliError(`cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.status === 200 && body && typeof body.tree_hash === "string") {
    return {
      kind: "skill",
      tree_hash: body.tree_hash,
      version: typeof body.version === "string" ? body.version : null,
      deprecated: typeof body.deprecated === "string" ? body.deprecated : null,
      replaced_by: typeof body.replaced_by === "string" ? body.replaced_by : null,
    };
  }
  if (res.status === 301 && body && typeof body.replaced_by === "string") return { kind: "renamed", replaced_by: body.replaced_by };
  if (res.status === 410) {
    const advisory = (body?.advisory ?? null) as { advisory_id?: string | null } | null;
    return { kind: "blocked", advisory_id: advisory?.advisory_id ?? null, reason: typeof body?.detail === "string" ? body.detail : "blocked by an advisory" };
  }
  if (res.status === 404) return { kind: "gone" };
  if (res.status === 401) throw new CliError(`${new URL(url).origin} refused the read (401): pass a read token with --token-env NAME`);
  throw new CliError(`${new URL(url).origin} answered ${res.status} for /v1/skills/${name}; retry shortly`);
}

function describe(row: OutdatedRow): string {
  const v = (x: { version: string | null; tree_hash: string | null } | null) => (x ? (x.version ?? x.tree_hash?.slice(0, 12) ?? "?") : "-");
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
  const url = workerUrl(values.url, USAGE).replace(/\/+$/, "");
  const token = readTokenFrom(ctx.env, values["token-env"], USAGE);
  let installed: Installed[];
  if (values.dir !== undefined) installed = await installedInFolder(values.dir);
  else {
    const lock = await readLockFile(values.lock ?? LOCK_FILE);
    installed = Object.entries(lock.skills).map(([name, s]) => ({ name, tree_hash: s.tree_hash, version: s.version }));
  }
  installed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = await mapLimit(installed, CONCURRENCY, async (s) =>
    classifyInstalled(s.name, { tree_hash: s.tree_hash, version: s.version }, await askShelf(url, token, s.name)),
  );
  if (values.json) ctx.stdout(`${JSON.stringify({ skills: rows }, null, 2)}\n`);
  else {
    for (const row of rows) ctx.stdout(`${describe(row)}\n`);
    if (rows.length === 0) ctx.stdout("no installed skills found\n");
  }
  return outdatedExitCode(rows);
};
