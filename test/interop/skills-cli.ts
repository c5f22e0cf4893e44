// Installs a shelf with the real `skills` CLI (npm package `skills`, pinned in package.json) and
// compares what landed on disk with the shelf's bytes. The exit code proves nothing: the CLI
// skips a skill silently when its digest does not match, so the set and the bytes are compared.
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { runBounded, type BoundedRun } from "./bounded-child.ts";
import { compareTrees } from "./trees.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "node_modules", "skills", "bin", "cli.mjs");
const CLI_TIMEOUT_MS = 120_000;
/** The agent whose project folder receives the copy (`.claude/skills/<name>/`). */
const AGENT = "claude-code";
const AGENT_DIR = path.join(".claude", "skills");
const JUNK = new Set([".DS_Store", "Thumbs.db", "desktop.ini"]);

/** Every regular file under `dir`, by POSIX path relative to it. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      if (JUNK.has(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) out.set(child, await readFile(path.join(dir, child)));
      else throw new Error(`${path.join(dir, child)} is neither a file nor a folder`);
    }
  }
  await walk("");
  return out;
}

/** Runs the pinned `skills` CLI with telemetry off, in `cwd`, with its own HOME (plus `env`, e.g. SKILLS_API_URL). */
export function runSkillsCli(args: string[], cwd: string, home: string, env: Record<string, string> = {}): Promise<BoundedRun> {
  return runBounded(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", CI: "1", NO_COLOR: "1", ...env },
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

/**
 * Runs `skills add <url> -y --copy -a claude-code` in a fresh project folder (with its own HOME)
 * and returns the problems: a missing or extra skill, a missing, extra or different file. With
 * `skills`, only those are asked for (`--skill <name>` each) and expected.
 */
export async function installAndCompare(url: string, shelfDir: string, options: { skills?: string[] } = {}): Promise<{ problems: string[]; output: string }> {
  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-skills-cli-"));
  try {
    const project = path.join(work, "project");
    const home = path.join(work, "home");
    await Promise.all([mkdir(project), mkdir(home)]);
    const only = (options.skills ?? []).flatMap((name) => ["--skill", name]);
    const { output } = await runSkillsCli(["add", url, ...only, "-y", "--copy", "-a", AGENT], project, home);
    const problems: string[] = [];
    const expectedNames =
      options.skills?.slice().sort() ??
      (await readdir(path.join(shelfDir, "skills"), { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    let installedNames: string[] = [];
    try {
      installedNames = (await readdir(path.join(project, AGENT_DIR), { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch {
      problems.push(`nothing was installed into ${AGENT_DIR}`);
    }
    if (!isDeepStrictEqual(installedNames, expectedNames))
      problems.push(`installed skills ${JSON.stringify(installedNames)} != shelf skills ${JSON.stringify(expectedNames)}`);
    for (const name of expectedNames.filter((n) => installedNames.includes(n))) {
      problems.push(...compareTrees(name, await readTree(path.join(shelfDir, "skills", name)), await readTree(path.join(project, AGENT_DIR, name))));
    }
    return { problems, output };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
