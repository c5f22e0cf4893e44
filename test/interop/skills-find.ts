// `skills find` against a running shelf: the real CLI (the pinned `skills` npm package) with
// SKILLS_API_URL=<shelf> asks the shelf's /api/search, prints `<source>@<name>` per result; the
// expected curated skill must be among them with the shelf's base URL as source, and
// `skills add <source> --skill <name>` must install exactly that skill, byte for byte.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { installAndCompare, runSkillsCli } from "./skills-cli.ts";

// The CLI colours its output with fixed escape codes whatever NO_COLOR says.
const ANSI = /\x1b\[[0-9;]*m/g;

/** The `<source>@<name>` lines `skills find` printed, in order. */
export function foundSkills(output: string): Array<{ source: string; name: string }> {
  const found: Array<{ source: string; name: string }> = [];
  for (const line of output.replace(ANSI, "").split("\n")) {
    const match = /^(\S+)@([a-z0-9][a-z0-9-]*)(?:\s|$)/.exec(line.trim());
    if (match) found.push({ source: match[1]!, name: match[2]! });
  }
  return found;
}

/**
 * Runs `skills find <words…>` against `baseUrl` (SKILLS_API_URL), checks `expected` is found
 * with `baseUrl` as its source, then installs it from that source with `--skill` and compares it
 * with the shelf folder. Returns the problems and everything the CLI printed.
 */
export async function findAndInstall(baseUrl: string, shelfDir: string, words: string[], expected: string): Promise<{ problems: string[]; output: string }> {
  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-skills-find-"));
  try {
    const project = path.join(work, "project");
    const home = path.join(work, "home");
    await Promise.all([mkdir(project), mkdir(home)]);
    const find = await runSkillsCli(["find", ...words], project, home, { SKILLS_API_URL: baseUrl });
    const problems: string[] = [];
    if (find.code !== 0) problems.push(`skills find exited ${find.code}`);
    const found = foundSkills(find.output);
    const hit = found.find((f) => f.name === expected);
    if (!hit) {
      problems.push(`skills find ${words.join(" ")} did not list ${expected} (it listed ${JSON.stringify(found.map((f) => f.name))})`);
      return { problems, output: find.output };
    }
    if (hit.source !== baseUrl) problems.push(`skills find gave ${expected} the source ${hit.source}, expected ${baseUrl}`);
    const installed = await installAndCompare(hit.source, shelfDir, { skills: [expected] });
    problems.push(...installed.problems);
    return { problems, output: `${find.output}\n--- skills add ${hit.source} --skill ${expected}\n${installed.output}` };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
