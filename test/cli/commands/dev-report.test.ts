// `skillshelf dev` / `npm start`'s start-up report names the Claude Code marketplace URL, and says
// that installs need https at a real host name (Claude Code refuses loopback archive URLs).
import { describe, expect, it } from "vitest";
import { servingReport, type DevInvocation } from "../../../src/cli/commands/dev.ts";
import type { RunningShelf } from "../../../src/cli/lib/dev-server.ts";

const invocation: DevInvocation = { command: "npm start", npmScript: "start", root: "/repo", defaultShelf: () => "shelf" };

function shelf(priv: boolean): RunningShelf {
  return {
    url: "http://127.0.0.1:8787",
    port: 8787,
    generation: "a".repeat(64),
    skillCount: 3,
    buildDir: "/repo/.skillshelf/dev/8787",
    publish: null,
    stop: async () => {},
    exited: new Promise(() => {}),
    signingPublicKey: "key",
    private: priv,
    capabilityUrls: false,
    ...(priv ? { readToken: "sk_local_read_x" } : {}),
  };
}

describe("servingReport", () => {
  it("prints the marketplace URL on public and private shelves", () => {
    for (const priv of [false, true]) {
      const report = servingReport(shelf(priv), { help: false, verbose: false, force: false }, invocation, "shelf");
      expect(report).toContain("Claude Code marketplace: http://127.0.0.1:8787/.claude-plugin/marketplace.json");
      expect(report).toContain("installs need https");
    }
  });
});
