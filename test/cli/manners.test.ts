// The CLI's manners, through the real bin: every command answers --help (usage, what it does, an
// example; exit 0), --version prints the package's version, and a stray argument is a usage error.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { cli, runCli } from "./run-cli.ts";

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
  it.each(COMMANDS)("%s --help prints its usage, options and an example, exit 0", (name) => {
    const r = cli(name, "--help");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: skillshelf ${name}\\b`));
    expect(r.stdout).toMatch(new RegExp(`\\nexample:\\n {2}skillshelf ${name} `));
  });
  it("--help wins over other arguments, even a misplaced one", () => {
    const r = cli("publish", "--no-such-flag", "-h");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: skillshelf publish --url/);
  });
  it("help <command> is the command's help", () => {
    expect(cli("help", "rollback").stdout).toBe(cli("rollback", "--help").stdout);
  });
  it("--version prints the package version", () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const r = cli("--version");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`skillshelf ${version}\n`);
  });
  it("history with a stray argument is a usage error, before any request", () => {
    const r = cli("history", "--url", "http://127.0.0.1:9", "extra");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unexpected argument extra\nusage: skillshelf history/);
  });
});

describe("output for people says what the core's #FALLBACK marker means", () => {
  const args = ["select", "shelf", "--names", "release-checklist,no-such-skill", "--enable", "release-checklist@zzz"];
  it("select's notes say 'fell back to the safe choice', never #FALLBACK", () => {
    const r = cli(...args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("#FALLBACK");
    expect(r.stdout).toContain("note: fell back to the safe choice: malformed enabled pin 'release-checklist@zzz' ignored (no grant)");
    expect(r.stdout).toContain("note: fell back to the safe choice: skill 'no-such-skill' named for this context is not loadable");
  });
  it("--json keeps the marker tools match on", () => {
    const r = cli(...args, "--json");
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
    const r = runCli([name, "--url", url, ...rest], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" } });
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`nothing answers at ${url} (ECONNREFUSED): is the Worker running (npm start), and is the URL right?`);
    expect(r.stderr).not.toMatch(/rerun the command to continue/);
    expect(seconds).toBeLessThan(4);
  });
});
