// The real `skills` CLI (1.7.4) across publishes, and `skillshelf outdated` reading the
// skills-lock.json that CLI wrote (docs/teams.md, "Knowing what changed"):
//  - `skills add <shelf> -y --copy -a claude-code` installs two skills and writes skills-lock.json;
//    `skillshelf outdated --lock skills-lock.json` says both are current;
// One shelf runs throughout (the CLI's lock records its URL, port included); `skillshelf build` and
// `publish` move it on between the steps.
//  - a publish changes one skill and deprecates the other (lifecycle.yaml): the v0.2 index the CLI
//    reads carries `deprecated`/`replaced_by`, and `outdated` says newer and deprecated (exit 0);
//  - `skills check` names the changed skill and brings its new bytes (in 1.7.4 `check` and
//    `update` are one command: runUpdate), byte-identical;
//  - a second change: `skills update` names it and installs it byte-identical; after that
//    `skills check` names nothing and `outdated` says current;
//  - the deprecated skill removed with a tombstone (deprecated, renamed), then without: gone, exit 1.
// (Blocked by an advisory is covered against a fake shelf in test/cli/commands/outdated.test.ts.)
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { LOCAL_TOKEN_FILE } from "../../scripts/start.ts";
import { runBounded } from "./bounded-child.ts";
import { compareTrees } from "./trees.ts";
import type { RunningShelf } from "./shelf-server.ts";
import { runSkillsCli } from "./skills-cli.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SKILLSHELF = path.join(ROOT, "src", "cli", "skillshelf.ts");
const TIMEOUT_MS = 120_000;

type WithShelf = <T>(shelfDir: string, state: string, vars: Record<string, string>, body: (shelf: RunningShelf) => Promise<T>) => Promise<T>;

/** Every file under `dir` (following the CLI's symlinks), by POSIX path. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    for (const name of await readdir(path.join(dir, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if ((await stat(path.join(dir, child))).isDirectory()) await walk(child);
      else out.set(child, await readFile(path.join(dir, child)));
    }
  }
  await walk("");
  return out;
}

/** The problems with `installed` as a copy of the shelf folder's skill `name`: missing, extra or different files. */
async function compareSkill(shelfDir: string, installed: string, name: string): Promise<string[]> {
  let got: Map<string, Buffer>;
  try {
    got = await readTree(installed);
  } catch {
    return [`${name} is not installed at ${installed}`];
  }
  return compareTrees(name, await readTree(path.join(shelfDir, "skills", name)), got);
}

async function writeSkill(shelfDir: string, name: string, body: string, extra: Record<string, string> = {}): Promise<void> {
  const dir = path.join(shelfDir, "skills", name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${name} for the skills update interop check.\n---\n# ${name}\n\n${body}\n`);
  for (const [rel, text] of Object.entries(extra)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

/** Runs this checkout's skillshelf CLI. */
function skillshelf(args: string[], env: Record<string, string> = {}) {
  return runBounded(process.execPath, [SKILLSHELF, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, timeoutMs: TIMEOUT_MS });
}

/** The local publish token the started shelf accepts (written by the dev server). */
async function publishToken(): Promise<string> {
  return (await readFile(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8")).trim();
}

async function outdated(
  url: string,
  project: string,
): Promise<{ code: number; rows: Map<string, { state: string; replaced_by: string | null }>; output: string }> {
  const run = await runBounded(process.execPath, [SKILLSHELF, "outdated", "--url", url, "--lock", path.join(project, "skills-lock.json"), "--json"], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "" },
    timeoutMs: TIMEOUT_MS,
  });
  const rows = new Map<string, { state: string; replaced_by: string | null }>();
  try {
    const json = JSON.parse(run.output.slice(run.output.indexOf("{"), run.output.lastIndexOf("}") + 1)) as {
      skills: { name: string; state: string; replaced_by: string | null }[];
    };
    for (const s of json.skills) rows.set(s.name, s);
  } catch {
    // Not JSON: the caller reports the output.
  }
  return { code: run.code ?? -1, rows, output: run.output };
}

function expectStates(problems: string[], what: string, got: Awaited<ReturnType<typeof outdated>>, want: Record<string, string>, code: number): void {
  const seen = Object.fromEntries([...got.rows].map(([n, r]) => [n, r.state]));
  if (JSON.stringify(seen) !== JSON.stringify(want)) problems.push(`${what}: outdated said ${JSON.stringify(seen)}, expected ${JSON.stringify(want)}`);
  if (got.code !== code) problems.push(`${what}: outdated exited ${got.code}, expected ${code}`);
}

/**
 * Runs the sequence; `withShelf` starts a shelf over a state folder (publishing the folder) and stops it after `body`.
 */
export async function skillsUpdateChecks(work: string, withShelf: WithShelf): Promise<{ problems: string[]; output: string }> {
  const problems: string[] = [];
  const logs: string[] = [];
  const shelfDir = path.join(work, "update-shelf");
  const state = path.join(work, "update-state");
  const project = await mkdtemp(path.join(tmpdir(), "skillshelf-skills-update-"));
  const home = path.join(project, ".home");
  await mkdir(home);
  const installedDir = (name: string) => path.join(project, ".claude", "skills", name);
  const cli = async (...args: string[]) => {
    const run = await runSkillsCli(args, project, home);
    logs.push(`$ skills ${args.join(" ")} (exit ${run.code})\n${run.output}`);
    return run;
  };
  try {
    await writeSkill(shelfDir, "alpha", "First alpha.");
    await writeSkill(shelfDir, "beta", "First beta.", { "references/notes.md": "Beta notes.\n" });

    await withShelf(shelfDir, state, {}, async (shelf) => {
      const publish = async (what: string) => {
        const build = path.join(work, "update-build");
        const built = await skillshelf(["build", shelfDir, "--out", build]);
        const published = await skillshelf(["publish", "--url", shelf.url, "--dir", build], { SKILLSHELF_PUBLISH_TOKEN: await publishToken() });
        if (built.code !== 0 || published.code !== 0) throw new Error(`publishing ${what} failed:\n${built.output}\n${published.output}`);
      };

      // 1. Install both; the lock names them; outdated: current.
      await cli("add", shelf.url, "-y", "--copy", "-a", "claude-code");
      for (const name of ["alpha", "beta"]) problems.push(...(await compareSkill(shelfDir, installedDir(name), name)));
      const lock = JSON.parse(await readFile(path.join(project, "skills-lock.json"), "utf8").catch(() => "{}")) as {
        skills?: Record<string, { sourceType?: string; wellKnownDigest?: string; computedHash?: string }>;
      };
      logs.push(`skills-lock.json: ${JSON.stringify(lock)}`);
      const entries = Object.entries(lock.skills ?? {});
      if (entries.length !== 2 || entries.some(([, e]) => e.sourceType !== "well-known" || !e.wellKnownDigest?.startsWith("sha256:") || !e.computedHash))
        problems.push("skills-lock.json does not hold two well-known entries with wellKnownDigest and computedHash");
      expectStates(problems, "after skills add", await outdated(shelf.url, project), { alpha: "current", beta: "current" }, 0);

      // 2. alpha changes, beta is deprecated in favour of alpha.
      await writeSkill(shelfDir, "alpha", "Second alpha, with more to say.", { "scripts/run.sh": "#!/bin/sh\necho alpha\n" });
      await writeFile(path.join(shelfDir, "lifecycle.yaml"), "skills:\n  beta:\n    deprecated: folded into alpha\n    replaced_by: alpha\n");
      await publish("alpha's change and beta's deprecation");
      const index = (await (await fetch(`${shelf.url}/.well-known/agent-skills/index.json`)).json()) as {
        skills: { name: string; deprecated?: string; replaced_by?: string }[];
      };
      const beta = index.skills.find((s) => s.name === "beta");
      if (beta?.deprecated !== "folded into alpha" || beta.replaced_by !== "alpha")
        problems.push(`the v0.2 index's beta entry does not say deprecated/replaced_by: ${JSON.stringify(beta)}`);
      if (index.skills.find((s) => s.name === "alpha")?.deprecated !== undefined) problems.push("the v0.2 index calls alpha deprecated");
      expectStates(problems, "after the publish", await outdated(shelf.url, project), { alpha: "newer", beta: "deprecated" }, 0);

      const check = await cli("check");
      if (!/Updating alpha/.test(check.output)) problems.push("skills check did not name alpha");
      if (/Updating beta/.test(check.output)) problems.push("skills check named beta, whose bytes did not change");
      problems.push(...(await compareSkill(shelfDir, installedDir("alpha"), "alpha")).map((p) => `after skills check: ${p}`));
      expectStates(problems, "after skills check", await outdated(shelf.url, project), { alpha: "current", beta: "deprecated" }, 0);

      // 3. Another change: skills update brings it; then nothing is left to check.
      await writeSkill(shelfDir, "alpha", "Third alpha.", { "scripts/run.sh": "#!/bin/sh\necho alpha 3\n", "references/more.md": "More.\n" });
      await publish("alpha's second change");
      expectStates(problems, "after the second publish", await outdated(shelf.url, project), { alpha: "newer", beta: "deprecated" }, 0);
      const update = await cli("update");
      if (!/Updating alpha/.test(update.output)) problems.push("skills update did not name alpha");
      problems.push(...(await compareSkill(shelfDir, installedDir("alpha"), "alpha")).map((p) => `after skills update: ${p}`));
      const again = await cli("check");
      if (/Updating [a-z0-9-]+…/.test(again.output)) problems.push("skills check after the update still names a skill");
      expectStates(problems, "after skills update", await outdated(shelf.url, project), { alpha: "current", beta: "deprecated" }, 0);

      // 4. beta removed with a tombstone (/v1/skills/beta answers 301 to alpha: deprecated), then without one: gone, exit 1.
      await rm(path.join(shelfDir, "skills", "beta"), { recursive: true });
      await writeFile(path.join(shelfDir, "lifecycle.yaml"), "skills:\n  beta:\n    replaced_by: alpha\n");
      await publish("beta's removal with a tombstone");
      expectStates(problems, "after beta's removal with a tombstone", await outdated(shelf.url, project), { alpha: "current", beta: "deprecated" }, 0);
      await rm(path.join(shelfDir, "lifecycle.yaml"));
      await publish("the tombstone's removal");
      expectStates(problems, "after beta's removal", await outdated(shelf.url, project), { alpha: "current", beta: "gone" }, 1);
    });
  } finally {
    await rm(project, { recursive: true, force: true });
  }
  return { problems, output: problems.length ? logs.join("\n") : "" };
}
