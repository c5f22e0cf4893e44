import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Four projects (test/README.md says what each covers and how long it takes):
// - "workerd": src/core unit tests and Worker integration tests, inside workerd with local R2 and
//   KV, so core is proven on the runtime that serves it. `isolate: false`: one workerd runs file
//   after file, so the ~3.6 s start of a runtime is paid once per worker, not once per file. A
//   setup file empties R2 and KV and the Worker's caches before each file, so files run in any
//   order (`--sequence.shuffle.files`) as if each had a runtime of its own.
// - "workerd-fresh": the Worker files that measure a cold isolate (storage operations counted
//   from nothing, memory TTLs, module-level caches), each in a runtime of its own.
// - "workerd-team": the Worker under a team environment's configuration.
// - "node": the CLI and anything that needs a real filesystem (build, seed, locks), on the
//   pinned Node 24 that runs the CLI.
//
// maxWorkers, measured on the 2-core machines this runs on (test/README.md has the figures): two
// workers per project; a third only adds contention.
const MAX_WORKERS = 2;

/** Worker tests that need a runtime of their own: each counts, times or records from a cold isolate and empty storage. */
const FRESH_ISOLATE_FILES = [
  "test/worker/pages/paging.test.ts",
  "test/worker/storage/budget.test.ts",
  // Counts every route from a cold isolate, and patches the Cache API to count it.
  "test/worker/budget/storage-ops.test.ts",
  "test/worker/admin/hostile-input.test.ts",
  "test/worker/routes/generated-cache.test.ts",
  "test/worker/routes/index.test.ts",
  // Records every route from an empty bucket: another file's version index would change its answers.
  "test/worker/sweep/route-sweep.test.ts",
];

// A session key as the SHELF_SESSION_KEY secret would provide it (the pages' sign-in needs one).
const TEST_SECRETS = { SHELF_SESSION_KEY: "test-session-key-0123456789abcdef0123456789abcdef" };

// Two KV namespaces for OAuth's tests (test/worker/oauth): a shelf's OAUTH_KV, and a second shelf's
// with its own keys. wrangler.toml binds neither, so OAuth stays off unless a test turns it on.
const OAUTH_TEST_KV = ["OAUTH_KV", "OAUTH_KV_OTHER"];

const worker = () => cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings: TEST_SECRETS, kvNamespaces: OAUTH_TEST_KV } });

export default defineConfig({
  test: {
    // Many tests provoke failures on purpose (storage faults, hostile input), and the code logs
    // them as it would in production. A green run prints none of that; a failing test still shows
    // everything it logged, which is when those lines help.
    silent: "passed-only",
    // Skipped tests name why they were skipped (test/skip-reasons-reporter.ts).
    reporters: ["default", "./test/skip-reasons-reporter.ts"],
    maxWorkers: MAX_WORKERS,
    projects: [
      {
        plugins: [worker()],
        test: {
          name: "workerd",
          include: ["test/core/**/*.test.ts", "test/worker/**/*.test.ts", "test/agents/**/*.test.ts"],
          exclude: ["test/worker/team-env/**", ...FRESH_ISOLATE_FILES],
          isolate: false,
          // Each file starts from empty storage and cold Worker caches (test/worker/fresh-file.setup.ts).
          setupFiles: ["test/worker/fresh-file.setup.ts"],
          maxWorkers: MAX_WORKERS,
          // Shelves of 1,000 and 10,000 skills are built in some tests (some in a beforeAll); nothing
          // here is timed (speed targets live in `npm run bench`), so a loaded machine must not fail them.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [worker()],
        test: {
          name: "workerd-fresh",
          include: FRESH_ISOLATE_FILES,
          maxWorkers: MAX_WORKERS,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The same Worker under a team environment ([env.acme] in wrangler.toml): its own
        // bindings and vars, with a read-token hash as a secret would provide it.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml", environment: "acme" },
            // sha256("sk_acme_read_0123456789abcdef0123"), the test's read token.
            miniflare: { bindings: { ...TEST_SECRETS, READ_TOKEN_SHA256: "94f8d38aa613a33126dfd8153c0356768ab5a4e58461a8badf5af0f14483274a" } },
          }),
        ],
        test: {
          name: "workerd-team",
          include: ["test/worker/team-env/**/*.test.ts"],
          // Its first request loads the whole Worker in a cold runtime, which took over 5 s on a
          // loaded CI machine (the default timeout failed a run): the same allowance as the others.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/cli/**/*.test.ts", "test/shelf/**/*.test.ts", "test/scripts/**/*.test.ts"],
          // Builds in the test's own process compress inline unless a test asks for threads (the file says why).
          setupFiles: ["test/cli/inline-build.setup.ts"],
          maxWorkers: MAX_WORKERS,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
