// The CLI's manners: every command answers --help (usage, what it does, an example; exit 0),
// --version prints the package's version, and a stray argument is a usage error. In process
// (run-in-process.ts runs the bin's own dispatch); the last block runs the real bin.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.ts";
import { cli, runInProcess } from "./run-in-process.ts";

const COMMANDS = [
  "advise",
  "attest",
  "build",
  "catalog",
  "gc",
  "hash",
  "history",
  "inspect",
  "keygen",
  "outline",
  "publish",
  "rollback",
  "section",
  "seed",
  "select",
  "trust",
  "validate",
  "verify",
];

describe("--help and --version", () => {
  it.each(COMMANDS)("%s --help prints its usage, options and an example, exit 0", async (name) => {
    const r = await cli(name, "--help");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: skillshelf ${name}\\b`));
    expect(r.stdout).toMatch(new RegExp(`\\nexample:\\n {2}skillshelf ${name} `));
  });
  it("--help wins over other arguments, even a misplaced one", async () => {
    const r = await cli("publish", "--no-such-flag", "-h");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: skillshelf publish --url/);
  });
  it("help <command> is the command's help", async () => {
    expect((await cli("help", "rollback")).stdout).toBe((await cli("rollback", "--help")).stdout);
  });
  it("--version prints the package version", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const r = await cli("--version");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`skillshelf ${version}\n`);
  });
  it("history with a stray argument is a usage error, before any request", async () => {
    const r = await cli("history", "--url", "http://127.0.0.1:9", "extra");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unexpected argument extra\nusage: skillshelf history/);
  });
});

describe("output for people says what the core's #FALLBACK marker means", () => {
  const args = ["select", "shelf", "--names", "release-checklist,no-such-skill", "--enable", "release-checklist@zzz"];
  it("select's notes say 'fell back to the safe choice', never #FALLBACK", async () => {
    const r = await cli(...args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("#FALLBACK");
    expect(r.stdout).toContain("note: fell back to the safe choice: malformed enabled pin 'release-checklist@zzz' ignored (no grant)");
    expect(r.stdout).toContain("note: fell back to the safe choice: skill 'no-such-skill' named for this context is not loadable");
  });
  it("--json keeps the marker tools match on", async () => {
    const r = await cli(...args, "--json");
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings.some((w) => w.startsWith("#FALLBACK: malformed enabled pin"))).toBe(true);
  });
});

/** A local port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a --url where nothing answers", () => {
  it.each([["history"], ["rollback", "--previous"], ["gc"]])("%s says so after one quick retry, exit 1", async (name, ...rest) => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const started = Date.now();
    const r = await runInProcess([name, "--url", url, ...rest], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" } });
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`nothing answers at ${url} (ECONNREFUSED): is the Worker running (npm start), and is the URL right?`);
    expect(r.stderr).not.toMatch(/rerun the command to continue/);
    expect(seconds).toBeLessThan(4);
  });
});

// Child processes: what is under test here is the bin itself (src/cli/skillshelf.ts), its exit
// status, its two streams and the environment it hands a command.
describe("the real bin", () => {
  it("--version: the package version on stdout, exit status 0", () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(runCli(["--version"])).toEqual({ code: 0, stdout: `skillshelf ${version}\n`, stderr: "" });
  });
  it("no command: the help on stdout, exit status 2", () => {
    const r = runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^usage: skillshelf <command> \[args\]\n\ncommands:\n {2}skillshelf advise /);
    expect(r.stderr).toBe("");
  });
  it("a user's mistake: one line on stderr, nothing on stdout, exit status 2", () => {
    const r = runCli(["hash", "no/such/skill-folder"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^skillshelf: [^\n]*not found[^\n]*\n$/);
  });
  it("a command's output on stdout, exit status 0", () => {
    const r = runCli(["hash", "shelf/skills/code-review"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
  });
  it("the process's environment reaches the command (--token-env)", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const unset = runCli(["history", "--url", url, "--token-env", "SKILLSHELF_BIN_TEST_TOKEN"]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toBe("skillshelf: no publish token: set SKILLSHELF_BIN_TEST_TOKEN to the publish token (or name another variable with --token-env)\n");
    const set = runCli(["history", "--url", url, "--token-env", "SKILLSHELF_BIN_TEST_TOKEN"], { env: { SKILLSHELF_BIN_TEST_TOKEN: "sk_test" } });
    expect(set.code).toBe(1);
    expect(set.stderr).toContain(`nothing answers at ${url}`);
  });
});
