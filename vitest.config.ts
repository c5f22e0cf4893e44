import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Three projects:
// - "workerd": src/core unit tests and Worker integration tests, inside workerd with local
//   R2 and KV, so core is proven on the runtime that serves it.
// - "workerd-team": the Worker under a team environment's configuration.
// - "node": the CLI and anything that needs a real filesystem (build, seed, locks), on the
//   pinned Node 24 that runs the CLI.
export default defineConfig({
  test: {
    // Many tests provoke failures on purpose (storage faults, hostile input), and the code logs
    // them as it would in production. A green run prints none of that; a failing test still shows
    // everything it logged, which is when those lines help.
    silent: "passed-only",
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: {
          name: "workerd",
          include: ["test/core/**/*.test.ts", "test/worker/**/*.test.ts", "test/agents/**/*.test.ts"],
          // Shelves of 1,000 and 10,000 skills are built in some tests; nothing here is timed
          // (speed targets live in `npm run bench`), so a loaded CI machine must not fail them.
          testTimeout: 60_000,
          exclude: ["test/worker/team-env/**"],
        },
      },
      {
        // The same Worker under a team environment ([env.acme] in wrangler.toml): its own
        // bindings and vars, with a read-token hash as a secret would provide it.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml", environment: "acme" },
            // sha256("sk_acme_read_0123456789abcdef0123"), the test's read token.
            miniflare: { bindings: { READ_TOKEN_SHA256: "94f8d38aa613a33126dfd8153c0356768ab5a4e58461a8badf5af0f14483274a" } },
          }),
        ],
        test: {
          name: "workerd-team",
          include: ["test/worker/team-env/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/cli/**/*.test.ts", "test/shelf/**/*.test.ts", "test/scripts/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
