// `--token-env NAME` on lock and install: naming a variable that is not set is a usage error
// (exit 2) before any file or network is touched, as verify does; without the flag, an unset
// SKILLSHELF_READ_TOKEN simply means a public shelf.
import { describe, expect, it } from "vitest";
import { runInProcess, type InProcessRun } from "../run-in-process.ts";

function cli(command: string, args: string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  return runInProcess([command, ...args], { env });
}

describe("--token-env naming an unset variable", () => {
  it("lock refuses it with exit 2, naming the variable, before resolving anything", async () => {
    const res = await cli("lock", ["--url", "http://127.0.0.1:9", "code-review@^1", "--token-env", "SKILLSHELF_NO_SUCH_TOKEN"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--token-env SKILLSHELF_NO_SUCH_TOKEN: the variable is not set");
    expect(res.stderr).not.toContain("resolving");
  });

  it("install refuses it with exit 2 before reading the lockfile", async () => {
    const res = await cli("install", ["--to", "/nonexistent/skills", "--lock", "/nonexistent/lock.json", "--token-env", "SKILLSHELF_NO_SUCH_TOKEN"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--token-env SKILLSHELF_NO_SUCH_TOKEN: the variable is not set");
  });

  it("a set variable is accepted (the command then goes on to the lockfile)", async () => {
    const res = await cli("install", ["--to", "/nonexistent/skills", "--lock", "/nonexistent/lock.json", "--token-env", "T"], { T: "sk_read_x" });
    expect(res.stderr).not.toContain("--token-env");
  });
});
