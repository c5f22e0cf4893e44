// The publish-side CLI against a real local Worker started the way `npm start` starts it
// (scripts/start.ts: build, wrangler dev on loopback, publish): a second start uploads nothing,
// and publish/history/advise/rollback/gc work end to end, with bad tokens refused.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "../../../scripts/start.ts";
import { SHELF_WIDE_LISTINGS } from "../../../src/core/api/listings.ts";
import { AdminClient } from "../../../src/core/publish/client.ts";
import type { CliError } from "../../../src/cli/lib/cli.ts";
import { adminCall } from "../../../src/cli/lib/publish.ts";
import { runInProcess, type InProcessRun } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-publish-cli-"));
const state = path.join(root, "state");
const shelfDir = path.join(root, "shelf");
const buildDir = path.join(root, "start-build");
let shelf: RunningShelf | undefined;
let token = "";

/** Runs the CLI in this process with the local Worker's publish token (an `env` entry overrides it). */
function cli(args: string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  return runInProcess(args, { env: { SKILLSHELF_PUBLISH_TOKEN: token, ...env } });
}

beforeAll(async () => {
  cpSync("shelf", shelfDir, { recursive: true });
  shelf = await startShelfOnFreePort({ shelfDir, persistTo: state, buildDir });
  token = readFileSync(LOCAL_TOKEN_FILE, "utf8").trim();
}, 180_000);

afterAll(async () => {
  await shelf?.stop();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("npm start's publish path and the publish CLI", () => {
  it("published the shelf on first start, and a second start uploads nothing", async () => {
    expect(shelf!.publish!.previous).toBeNull();
    expect(shelf!.publish!.uploaded.generation).toBe(1);
    const res = await fetch(`${shelf!.url}/skills/code-review/SKILL.md`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(readFileSync(path.join(shelfDir, "skills/code-review/SKILL.md"), "utf8"));

    await shelf!.stop();
    shelf = await startShelfOnFreePort({ shelfDir, persistTo: state, buildDir });
    expect(shelf.publish!.alreadyCurrent).toBe(true);
    expect(shelf.publish!.bytesUploaded).toBe(0);
  }, 180_000);

  it("publishes an edited shelf, lists history, rolls back, and runs gc as a dry run", async () => {
    const first = shelf!.generation;
    writeFileSync(path.join(shelfDir, "skills/code-review/references-extra.md"), "# Extra\n\nAn added file.\n");
    const out = path.join(root, "cli-build");
    expect((await cli(["build", shelfDir, "--out", out])).code).toBe(0);

    // npm start runs the Worker with SHELF_LIVE_TTL_MS 0: the publish shows on the next request,
    // although the read above left the old pointer in the isolate's memory (30 s otherwise).
    const published = await cli(["publish", "--url", shelf!.url, "--dir", out, "--wait", "--wait-timeout", "5"]);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stderr).toMatch(/ serves [0-9a-f]{12}… \(after [0-2] s\)/);
    // --wait then asks for every shelf-wide listing, which the Worker keeps in R2 for its cold isolates.
    expect(published.stderr).toContain(`built ${SHELF_WIDE_LISTINGS.length} shelf-wide listing(s) of the new generation`);
    expect(published.stderr).not.toContain("not built now");
    expect(published.stdout).toMatch(/published generation [0-9a-f]{64} \(previous: [0-9a-f]{64}\)/);
    // The edited file, the skill's three archives (.tar.gz, .zip, Claude Code plugin zip), its record, the shard, the manifest.
    expect(published.stdout).toMatch(/uploaded 4 blob\(s\), 1 record\(s\), 1 shard\(s\), 1 manifest\(s\)/);
    expect(published.stderr).toMatch(/^uploading \d+\/\d+ objects, .* of .*, .*\/s$/m);

    const again = await cli(["publish", "--url", shelf!.url, "--dir", out]);
    expect(again.stdout).toMatch(/already current at .*; nothing uploaded/);

    const history = await cli(["history", "--url", shelf!.url]);
    expect(history.code).toBe(0);
    expect(history.stdout.trim().split("\n")).toHaveLength(2);
    expect(history.stdout).toContain(first);

    const rolled = await cli(["rollback", "--url", shelf!.url, first.slice(0, 8), "--wait", "--wait-timeout", "5"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(new RegExp(`rolled back to ${first}`));
    expect(rolled.stderr).toContain(`serves ${first.slice(0, 12)}…`);
    expect((await fetch(`${shelf!.url}/v1/shelf`)).headers.get("Skillshelf-Generation")).toBe(first);

    const gc = await cli(["gc", "--url", shelf!.url, "--keep", "0", "--grace-hours", "0"]);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(/dry run: nothing deleted/);
    // --grace-hours 0 cannot undercut gc's minimum grace: everything here was uploaded within the hour.
    expect(gc.stdout).toMatch(/older than 1 h: 0 manifest\(s\), 0 shard\(s\), 0 record\(s\), 0 blob\(s\)/);
    expect(gc.stderr).toMatch(/keeps everything uploaded within the last 1 h whatever --grace-hours says/);
  }, 120_000);

  it("publishes advisories on their own", async () => {
    const file = path.join(root, "advisories.yaml");
    writeFileSync(
      file,
      "advisories:\n- name: some-skill\n  source: elsewhere\n  official_intent: Helps.\n  hidden_issue: Does harm.\n  severity: high\n  reference: https://example.com/x\n  advisory_id: ASA-CLI-1\n",
    );
    const r = await cli(["advise", "--url", shelf!.url, file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/advisories updated: 1 in force/);
    expect((await cli(["advise", "--url", shelf!.url, file])).stdout).toMatch(/advisories unchanged/);
    writeFileSync(file, "advisories:\n- name: x\n  severity: terrible\n");
    const bad = await cli(["advise", "--url", shelf!.url, file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/nothing was published/);
  }, 60_000);

  it("a restart keeps a generation published from elsewhere, and --force publishes the folder over it", async () => {
    // A generation no local run published: the shelf with one more file, built and published with the CLI.
    const otherShelf = path.join(root, "other-shelf");
    const otherBuild = path.join(root, "other-build");
    cpSync(shelfDir, otherShelf, { recursive: true });
    writeFileSync(path.join(otherShelf, "skills/code-review/published-elsewhere.md"), "# Elsewhere\n");
    expect((await cli(["build", otherShelf, "--out", otherBuild])).code).toBe(0);
    const published = await cli(["publish", "--url", shelf!.url, "--dir", otherBuild, "--json"]);
    expect(published.code, published.stderr).toBe(0);
    const elsewhere = (JSON.parse(published.stdout) as { generation: string }).generation;

    await shelf!.stop();
    const lines: string[] = [];
    shelf = await startShelfOnFreePort({ shelfDir, persistTo: state, buildDir, log: (line) => lines.push(line) });
    expect(shelf.publish).toBeNull();
    expect(shelf.kept).toMatchObject({ generation: elsewhere, action: "publish" });
    expect(shelf.generation).toBe(elsewhere);
    expect(lines.join("\n")).toMatch(
      new RegExp(
        `not publishing: .* serves generation ${elsewhere.slice(0, 12)}… \\(seq \\d+, made current .* by a publish that did not come from .*rerun with --force`,
      ),
    );
    expect((await fetch(`${shelf.url}/v1/shelf`)).headers.get("Skillshelf-Generation")).toBe(elsewhere);

    await shelf.stop();
    shelf = await startShelfOnFreePort({ shelfDir, persistTo: state, buildDir, force: true });
    expect(shelf.publish?.previous).toBe(elsewhere);
    expect(shelf.kept).toBeUndefined();
    expect((await fetch(`${shelf.url}/v1/shelf`)).headers.get("Skillshelf-Generation")).toBe(shelf.generation);
    expect(shelf.generation).not.toBe(elsewhere);
  }, 240_000);

  it("a pointer move whose previous is stale exits 3 (lost race), as the Worker really answers it", async () => {
    const client = new AdminClient({ url: shelf!.url, token });
    const error = (await adminCall(() => client.movePointer({ generation: "a".repeat(64), previous: "b".repeat(64) })).catch((e: unknown) => e)) as CliError;
    expect(error.message).toMatch(/409 .*another publish won/);
    expect(error.exitCode).toBe(3);
  }, 60_000);

  it("refuses a wrong or missing token and bad flags with one-line errors", async () => {
    const wrong = await cli(["history", "--url", shelf!.url], { SKILLSHELF_PUBLISH_TOKEN: "not-the-token" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/401 The publish token is not valid/);
    const missing = await cli(["history", "--url", shelf!.url], { SKILLSHELF_PUBLISH_TOKEN: "" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/set SKILLSHELF_PUBLISH_TOKEN/);
    const named = await cli(["history", "--url", shelf!.url, "--token-env", "MY_TOKEN"], { MY_TOKEN: token, SKILLSHELF_PUBLISH_TOKEN: "" });
    expect(named.code).toBe(0);
    expect((await cli(["publish"])).code).toBe(2);
    const noBuild = await cli(["publish", "--url", shelf!.url, "--dir", path.join(root, "no-such-build")]);
    expect(noBuild.code).toBe(2);
    expect(noBuild.stderr).toMatch(/no build folder at .*; run `npx skillshelf build/);
    expect((await cli(["rollback", "--url", shelf!.url, "not-a-generation"])).code).toBe(2);
    expect((await cli(["gc", "--url", shelf!.url, "--keep", "many"])).code).toBe(2);
    for (const r of [wrong, missing]) expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
