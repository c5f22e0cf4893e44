// The start-up warm-up (src/worker/warm-up.ts) must keep exercising what a cold request runs: its
// samples must parse (a schema that drifts from its sample would leave the warm-up testing the
// failure path only), and it must leave an idle MCP server of each current kind in the pool, so
// the first /mcp request of an isolate builds none.
import { describe, expect, it } from "vitest";
import { createShelfApp } from "../../src/worker/app.ts";
import { mcpServersBuilt, resetMcpServerPool } from "../../src/worker/views/mcp/server.ts";
import { warmUp } from "../../src/worker/warm-up.ts";

describe("start-up warm-up", () => {
  it("parses every sample successfully", () => {
    expect(warmUp(createShelfApp())).toEqual([true, true]);
  });

  it("leaves pooled MCP servers that a later warm-up reuses instead of building more", () => {
    resetMcpServerPool();
    const before = mcpServersBuilt();
    const app = createShelfApp();
    expect(mcpServersBuilt() - before).toBe(2);
    warmUp(app);
    expect(mcpServersBuilt() - before).toBe(2);
  });
});
