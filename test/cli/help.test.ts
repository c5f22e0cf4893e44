// `skillshelf help` lists each command with its full synopsis: the summary in the COMMANDS table
// must start with exactly the usage line the command itself prints on a usage error, so a flag
// added to a command cannot stay missing from the help.
import { describe, expect, it } from "vitest";
import { cli as run } from "./run-in-process.ts";

const help = (await run("help")).stdout;

describe("help summaries", () => {
  const entries = [...help.matchAll(/^ {2}skillshelf ([a-z]+) (.*)$/gm)].map((m) => ({ name: m[1]!, line: `${m[1]} ${m[2]}` }));
  it("lists every command", () => {
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(["attest", "gc", "history", "publish", "rollback", "seed"]));
    expect(entries.length).toBeGreaterThanOrEqual(16);
  });
  it.each(entries)("$name: the summary's synopsis is the command's usage line", async ({ name, line }) => {
    const r = await run(name, "--no-such-flag");
    expect(r.code).toBe(2);
    const usage = /^usage: skillshelf (.*)$/m.exec(r.stderr)?.[1];
    expect(usage, r.stderr).toBeDefined();
    expect(line.startsWith(`${usage}  `), `help: ${line}\nusage: ${usage}`).toBe(true);
  });
});
