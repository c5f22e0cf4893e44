// A green test run prints no expected-error noise (issue 12): one Worker test file that provokes
// storage faults on purpose (forged KV values, failing reads) (the Worker logs each one, as in production) run the way `npm test`
// runs vitest must print none of those logs, nor wrangler's "Using secrets" lines; and the same
// logs still reach the output of a failing run, where they help. Lint and the dry-run bundle before
// vitest are held quiet by npm test's checks step itself (scripts/checks.ts, test/scripts/checks.test.ts; issue 23).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const VITEST = path.join(ROOT, "node_modules", ".bin", "vitest");
/** The environment `npm test` gives vitest (package.json's test script). */
const NPM_TEST_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn", CI: "true" };

/** Runs vitest on `files` in the workerd project as npm test does, one file after another (one runtime, one start). */
function runVitest(files: string[]): { status: number | null; output: string } {
  const run = spawnSync(VITEST, ["run", "--project", "workerd", "--maxWorkers", "1", ...files], {
    cwd: ROOT,
    env: NPM_TEST_ENV,
    encoding: "utf8",
    timeout: 240_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "") };
}

// One run of two files (a vitest and a workerd start, not two of each): a passing file that provokes
// storage faults on purpose, and a failing one that logs. Silence is per test ("passed-only"), so the
// passing file's logs stay out of the output although the run as a whole fails.
// documents.test.ts logs on every forged KV copy and failing read it provokes (11 lines when not silenced).
const PASSING = "test/worker/storage/documents.test.ts";
let quiet: { status: number | null; output: string };
beforeAll(() => {
  const dir = mkdtempSync(path.join(ROOT, "test", "worker", "tmp-quiet-"));
  try {
    const file = path.join(dir, "fails.test.ts");
    writeFileSync(file, 'import { it, expect } from "vitest";\nit("fails", () => { console.error("noise-for-a-failure"); expect(1).toBe(2); });\n');
    quiet = runVitest([PASSING, path.relative(ROOT, file)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

it("prints no logs of provoked failures and no wrangler notices when the tests pass", () => {
  const { output } = quiet;
  // The passing file passed, every test of it (vitest marks a file with a failed test ❯ or ×).
  expect(output).toMatch(new RegExp(`✓ .*${PASSING.replaceAll(".", "\\.")} \\(\\d+ tests?\\)`));
  expect(output).toMatch(/Test Files {2}1 failed \| 1 passed \(2\)/);
  expect(output).not.toMatch(/Using secrets/);
  // vitest's header for a test's console output, for any test of the passing file
  expect(output).not.toMatch(new RegExp(`(stderr|stdout) \\| ${PASSING.replaceAll(".", "\\.")}`));
});

it("still shows what a failing test logged", () => {
  const { status, output } = quiet;
  expect(status).not.toBe(0);
  expect(output).toMatch(/(stderr|stdout) \| test\/worker\/tmp-quiet-[^/]+\/fails\.test\.ts/);
  expect(output).toContain("noise-for-a-failure");
});
