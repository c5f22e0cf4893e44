// `skillshelf dev`'s decisions that need no running wrangler: its arguments (npm swallowing options
// written before "--" in `npm run dev`, bad values), and the clear refusals before anything starts (no
// wrangler.toml, no wrangler installed). Serving a team's shelf is .ci/run's team step;
// test/scripts/start.test.ts runs the same code as `npm start`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { devHelp, parseDevArgs, type DevInvocation } from "../../../src/cli/commands/dev.ts";
import { startShelf } from "../../../src/cli/lib/dev-server.ts";
import { runInProcess } from "../run-in-process.ts";

const work = mkdtempSync(path.join(tmpdir(), "skillshelf-dev-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const team: DevInvocation = { command: "npm run dev", npmScript: "dev", root: work, defaultShelf: () => "shelf" };

describe("skillshelf dev", () => {
  it("names the command to type when npm kept an option for itself (npm run dev --port 8811)", () => {
    expect(() => parseDevArgs(["8811"], { npm_lifecycle_event: "dev", npm_config_port: "true" }, team)).toThrow(
      /options for npm run dev go after "--". Type: npm run dev -- --port 8811/,
    );
    // The same variables under another script are not ours to judge.
    expect(parseDevArgs([], { npm_lifecycle_event: "build", npm_config_port: "1" }, team).port).toBeUndefined();
  });

  it("refuses bad values and unknown options as usage errors", async () => {
    for (const [args, message] of [
      [["--port", "0"], /--port must be a port number/],
      [["--env", "../x"], /--env must name an environment/],
      [["--nope"], /Unknown option '--nope'/],
    ] as const) {
      const run = await runInProcess(["dev", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it("prints help naming its options", async () => {
    const run = await runInProcess(["dev", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--port N");
    expect(devHelp(team)).toContain("npm run dev -- --port 8811");
  });

  it("refuses a folder without wrangler.toml, and one without wrangler installed, before starting anything", async () => {
    await expect(startShelf({ root: work })).rejects.toThrow(/no wrangler\.toml in .*skillshelf init <dir> writes one/);
    const repo = path.join(work, "repo");
    mkdirSync(path.join(repo, "shelf/skills"), { recursive: true });
    writeFileSync(path.join(repo, "wrangler.toml"), 'name = "x"\nmain = "src/worker.ts"\n');
    writeFileSync(path.join(repo, "package.json"), "{}");
    await expect(startShelf({ root: repo })).rejects.toThrow(/wrangler is not installed in .*run npm install/);
  });
});
