// A green test run prints no expected-error noise (issues 12 and 23: neither do lint and the dry-run bundle before it): one Worker test file that provokes
// storage faults on purpose (forged KV values, failing reads) (the Worker logs each one, as in production) run the way `npm test`
// runs vitest must print none of those logs, nor wrangler's "Using secrets" lines; and the same
// logs still reach the output of a failing run, where they help.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const VITEST = path.join(ROOT, "node_modules", ".bin", "vitest");
/** The environment `npm test` gives vitest (package.json's test script). */
const NPM_TEST_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn", CI: "true" };

function runVitest(file: string): { status: number | null; output: string } {
  const run = spawnSync(VITEST, ["run", "--project", "workerd", file], { cwd: ROOT, env: NPM_TEST_ENV, encoding: "utf8", timeout: 240_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "") };
}

it("prints no logs of provoked failures and no wrangler notices when the tests pass", () => {
  const { status, output } = runVitest("test/worker/storage/live.test.ts");
  expect(status, output).toBe(0);
  expect(output).toMatch(/passed/);
  expect(output).not.toMatch(/Using secrets/);
  expect(output).not.toMatch(/stderr \||stdout \|/); // vitest's header for a test's console output
}, 300_000);

it("still shows what a failing test logged", () => {
  const dir = mkdtempSync(path.join(ROOT, "test", "worker", "tmp-quiet-"));
  try {
    const file = path.join(dir, "fails.test.ts");
    writeFileSync(file, 'import { it, expect } from "vitest";\nit("fails", () => { console.error("noise-for-a-failure"); expect(1).toBe(2); });\n');
    const { status, output } = runVitest(path.relative(ROOT, file));
    expect(status).not.toBe(0);
    expect(output).toContain("noise-for-a-failure");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

// npm test runs these before vitest: their output is part of a green run too.
it("lint reports nothing at all, not even infos, on a clean tree", () => {
  const run = spawnSync(path.join(ROOT, "node_modules", ".bin", "biome"), ["lint", "--error-on-warnings"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  const output = `${run.stdout}${run.stderr}`;
  expect(run.status, output).toBe(0);
  expect(output).not.toMatch(/Found \d+ (info|warning)/);
}, 150_000);

it("the dry-run bundle names its environment, so wrangler prints no warning", () => {
  const script = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts["build:check"] as string;
  const run = spawnSync("sh", ["-c", script.replace("--outdir .wrangler/dry", `--outdir ${mkdtempSync(path.join(tmpdir(), "dry-"))}`)], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${path.join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` },
    encoding: "utf8",
    timeout: 120_000,
  });
  const output = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
  expect(run.status, output).toBe(0);
  expect(output).not.toMatch(/WARNING|Multiple environments/);
}, 150_000);
