import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects:
// - "workerd": src/core unit tests and Worker integration tests, inside workerd with local
//   R2 and KV, so core is proven on the runtime that serves it.
// - "node": the CLI and anything that needs a real filesystem (build, seed, locks), on the
//   pinned Node 24 that runs the CLI.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: {
          name: "workerd",
          include: ["test/core/**/*.test.ts", "test/worker/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
