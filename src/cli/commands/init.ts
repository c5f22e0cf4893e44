// `skillshelf init <dir> [--name <name>] [--empty] [--exclude a,b] [--package <tarball | spec>]`: a team's
// repository, with no fork of skillshelf: package.json depending on skillshelf (the Worker and the CLI
// from node_modules), wrangler.toml, the Worker's entry, a seeded (or empty) shelf, local-secret and
// git-ignore files, a README and a GitHub Actions workflow. Written into a staging folder beside <dir>
// and renamed into place, so a failure leaves nothing half-written.
// `skillshelf init --check [<dir>] [--json]`: the edits an existing team repository needs for this
// skillshelf version (team/check.ts); exit 1 when any must be made.
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { commaList, CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { curatedShelfDir, ownPackage, type OwnPackage } from "../lib/package-root.ts";
import { seedShelf } from "../lib/seed.ts";
import { checkTeamRepository } from "../lib/team/check.ts";
import { teamFiles, WORKFLOW_FILE } from "../lib/team/template.ts";
import { pruneOrphanRecords } from "./attest.ts";

const USAGE = "skillshelf init <dir> [--name <name>] [--empty] [--exclude a,b ...] [--package <tarball | spec>] | init --check [<dir>] [--json]";

/** A Worker name (also the bucket's and the KV namespace's): what Cloudflare accepts for all three. */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The name a folder suggests: lowercased, anything else turned into dashes. */
export function nameFromFolder(dir: string): string {
  return path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}

/** True when `dir` does not exist or is an empty folder; a file or a non-empty folder is refused. */
async function usableTarget(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info) return;
  if (!info.isDirectory()) throw new UsageError(`${dir} exists and is not a folder; choose a new folder for the team's repository`);
  const entries = await readdir(dir);
  if (entries.length)
    throw new UsageError(
      `${dir} is not empty (${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""}); init writes a new repository into an empty or new folder`,
    );
}

const run$ = promisify(execFile);

/**
 * Puts skillshelf's own package into <staging>/vendor as a tarball and returns the dependency spec for it.
 * From an installed package, `npm pack` of its folder (no scripts: its sources are not there); from a
 * checkout, `npm pack` with its prepack build, so the tarball holds a fresh bundle.
 */
async function vendorOwnPackage(own: OwnPackage, staging: string, log: (line: string) => void): Promise<string> {
  const vendor = path.join(staging, "vendor");
  await mkdir(vendor, { recursive: true });
  const checkout = Boolean(await stat(path.join(own.root, "src", "cli")).catch(() => null));
  log(`packing skillshelf ${own.version} into vendor/ (npm pack${checkout ? ", building its bundles first" : ""})…`);
  const args = ["pack", own.root, "--pack-destination", vendor, "--silent", ...(checkout ? [] : ["--ignore-scripts"])];
  let stdout: string;
  try {
    ({ stdout } = await run$("npm", args, { cwd: checkout ? own.root : vendor, maxBuffer: 16 * 1024 * 1024 }));
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT") throw new CliError("npm was not found on PATH; init packs skillshelf with it (or pass --package <tarball | spec>)");
    throw new CliError(`npm pack of ${own.root} failed: ${(e.stderr ?? e.message).trim().split("\n").slice(-3).join(" ")}`);
  }
  const tarball = stdout.trim().split("\n").pop()!;
  return `file:vendor/${path.basename(tarball)}`;
}

/** The dependency spec for --package: a tarball is copied under vendor/, anything else (a git URL, a range) is used as given. */
async function packageSpec(value: string, staging: string): Promise<{ spec: string; source: string }> {
  if (/\.(tgz|tar\.gz)$/.test(value)) {
    const info = await stat(value).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`--package ${value}: no such tarball`);
    await mkdir(path.join(staging, "vendor"), { recursive: true });
    await copyFile(value, path.join(staging, "vendor", path.basename(value)));
    return { spec: `file:vendor/${path.basename(value)}`, source: `a tarball committed under vendor/, a file: dependency` };
  }
  return { spec: value, source: `as ${value}` };
}

async function runCheck(ctx: Parameters<Command>[0], dir: string, json: boolean): Promise<number> {
  const own = await ownPackage();
  const findings = await checkTeamRepository(dir, own);
  const edits = findings.filter((f) => f.level === "edit");
  if (json) {
    ctx.stdout(`${JSON.stringify({ skillshelf: own.version, ok: edits.length === 0, findings }, null, 2)}\n`);
  } else {
    for (const f of findings) ctx.stdout(`${f.level === "edit" ? "edit  " : "notice"} ${f.file} ${f.where}: ${f.message}\n`);
    ctx.stdout(
      edits.length
        ? `${edits.length} edit(s) needed for skillshelf ${own.version}; make them, then npm run deploy\n`
        : `${dir === "." ? "this repository" : dir} is ready for skillshelf ${own.version}${findings.length ? " (notices above are advice)" : ""}\n`,
    );
  }
  return edits.length ? 1 : 0;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      name: { type: "string" },
      empty: { type: "boolean" },
      exclude: { type: "string", multiple: true },
      package: { type: "string" },
      check: { type: "boolean" },
      json: { type: "boolean" },
    },
    USAGE,
  );
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}\nusage: ${USAGE}`);
  if (values.check) {
    for (const flag of ["name", "empty", "exclude", "package"] as const)
      if (values[flag] !== undefined) throw new UsageError(`--check reads a repository; --${flag} is for writing one\nusage: ${USAGE}`);
    return runCheck(ctx, positionals[0] ?? ".", values.json ?? false);
  }
  if (values.json) throw new UsageError(`--json goes with --check\nusage: ${USAGE}`);
  const dir = positionals[0];
  if (dir === undefined) throw new UsageError(`name the folder to write the team's repository into\nusage: ${USAGE}`);
  const name = values.name ?? nameFromFolder(dir);
  if (!NAME.test(name))
    throw new UsageError(
      `${values.name === undefined ? `the folder name gives "${name}", which` : `--name ${JSON.stringify(name)}`} is not a Worker name (lowercase letters, digits and dashes, 1-63, not starting or ending with a dash)${values.name === undefined ? "; pass --name" : ""}`,
    );
  const exclude = values.exclude?.flatMap((v) => commaList(v) ?? []) ?? [];
  if (values.empty && exclude.length) throw new UsageError(`--exclude leaves curated skills out of a seeded shelf; --empty seeds none\nusage: ${USAGE}`);
  await usableTarget(dir);

  const own = await ownPackage();
  const target = path.resolve(dir);
  await mkdir(path.dirname(target), { recursive: true });
  const staging = await mkdtemp(path.join(path.dirname(target), `.${path.basename(target)}.init-`));
  const log = (line: string) => ctx.stderr(`${line}\n`);
  let spec: string;
  let seeded: string[] = [];
  try {
    let source: string;
    ({ spec, source } = values.package
      ? await packageSpec(values.package, staging)
      : { spec: await vendorOwnPackage(own, staging, log), source: "a tarball committed under vendor/, a file: dependency" });

    const shelf = path.join(staging, "shelf");
    if (values.empty) {
      await mkdir(path.join(shelf, "skills"), { recursive: true });
      await writeFile(path.join(shelf, "skills", ".gitkeep"), "");
    } else {
      const report = await seedShelf(await curatedShelfDir(), shelf, exclude.length ? { exclude } : {});
      seeded = report.added
        .filter((item) => item.startsWith("skills/"))
        .map((item) => item.slice("skills/".length))
        .sort();
      const pruned = await pruneOrphanRecords(shelf, (w) => log(`warning: ${w}`));
      log(`seeded shelf/ with ${seeded.length} curated skill(s)${pruned.length ? `; left out ${pruned.join(", ")} and their validation records` : ""}`);
    }

    const versions = { skillshelf: own.version, node: own.devDependencies.node ?? "24", wrangler: own.devDependencies.wrangler ?? "4" };
    for (const file of teamFiles({ name, skillshelfSpec: spec, versions, seeded, packageSource: source })) {
      await mkdir(path.dirname(path.join(staging, file.path)), { recursive: true });
      await writeFile(path.join(staging, file.path), file.text);
    }
    // An empty target folder is replaced by the staged one (rmdir refuses one that filled up meanwhile).
    await rmdir(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw new CliError(`${dir} changed while init ran (${error.code}); nothing was written`);
    });
    await rename(staging, target);
    // mkdtemp made the staging folder private (0700); a repository is an ordinary folder.
    await chmod(target, 0o755);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  ctx.stdout(
    `wrote ${dir}: the shelf repository "${name}" (skillshelf ${own.version}, ${spec})\n` +
      `  package.json, wrangler.toml, src/worker.ts, shelf/ (${seeded.length ? `${seeded.length} curated skill(s)` : "empty"}), .dev.vars.example, .gitignore, .npmrc, README.md, ${WORKFLOW_FILE}\n` +
      `next:\n  cd ${dir}\n  git init && npm install\n  npm run validate\n  npm run dev          # serves it locally and prints the URLs to try\n` +
      `README.md says how to deploy it; after upgrading skillshelf, npx skillshelf init --check names the edits wrangler.toml needs\n`,
  );
  return 0;
};
