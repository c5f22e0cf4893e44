// /mcp on the read surface (so also /g/<generation>/mcp and /c/<token>/mcp, behind the same read
// access, security headers and CORS): the official SDK's createMcpHandler answers both protocol
// eras, 2026-07-28 (no initialize, _meta envelope, Mcp-Method/Mcp-Name headers) and 2025
// (stateless initialize). No hand-written JSON-RPC, no session state.
import { createMcpHandler } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { ShelfError } from "../../errors.ts";
import { NO_STORE } from "../../http/headers.ts";
import type { ReadEnv } from "../../read/context.ts";
import { ScopeError, scopeOf, type McpScope } from "./scope.ts";
import { buildMcpServer } from "./server.ts";

/** Largest request body /mcp reads (413 beyond): a read-only server's requests are a few hundred bytes. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/**
 * The /mcp route, for mounting on the read surface after its guards (read access, openShelf).
 * @example surface.route("/", mcpRoutes())
 */
export function mcpRoutes(): Hono<ReadEnv> {
  const app = new Hono<ReadEnv>();
  app.all("/mcp", async (c) => {
    let scope: McpScope;
    try {
      scope = scopeOf(new URL(c.req.url));
    } catch (error) {
      if (error instanceof ScopeError) throw new ShelfError("invalid_parameter", 400, error.message);
      throw error;
    }
    const shelf = c.get("shelf");
    // Opened before the SDK sees the request: nothing published is the read routes' 404, and a
    // storage failure their 503 with Retry-After, rather than a JSON-RPC internal error.
    await shelf.generation();
    const caller = { visibility: c.get("shelfAccess").visibility };
    // A handler per request: its factory closes over this request's shelf and scope.
    const handler = createMcpHandler(() => buildMcpServer(shelf, scope, caller), {
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      onerror: (error) => console.warn(`mcp: ${error.message}`),
    });
    const response = await handler.fetch(c.req.raw);
    if (!response.headers.has("Cache-Control")) response.headers.set("Cache-Control", NO_STORE);
    return response;
  });
  return app;
}
