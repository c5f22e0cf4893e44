// One MCP server per request, built for that request's shelf, scope and caller: the skills
// extension over the shelf service, the eight agentskills tools, and on the fast path the one
// skill's body as the server's instructions. Stateless: nothing outlives the request, so both
// protocol eras are served by the same factory and no Durable Object is needed.
import { McpServer } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { ShelfVisibility } from "../../auth/read-access.ts";
import type { ShelfService } from "../../shelf/service.ts";
import { fastPathOf, type McpScope } from "./scope.ts";
import { shelfSkillSource } from "./source.ts";
import { registerSkillTools } from "./tools.ts";

/** What initialize and server/discover name this server. */
export const MCP_SERVER_INFO = { name: "skillshelf", version: "0.1.0" } as const;

/**
 * ttlMs of skills/list, skills/get, directory reads and files at /mcp: skill:// URIs name the
 * current generation, which a publish or an advisory can change, so a minute at most (as the
 * static layout's path URLs).
 */
export const CURRENT_TTL_MS = 60_000;

/**
 * ttlMs at /g/<generation>/mcp: the bytes never change, but an advisory published later can
 * still block a skill, so an hour rather than the client's 24-hour cap.
 */
export const PINNED_TTL_MS = 3_600_000;

/** Who is asking, as far as caching is concerned. */
export interface McpCaller {
  visibility: ShelfVisibility;
}

/**
 * The MCP server for one request (both eras call this, once per request).
 * @example createMcpHandler(() => buildMcpServer(c.get("shelf"), scope, { visibility: "public" }))
 */
export async function buildMcpServer(shelf: ShelfService, scope: McpScope, caller: McpCaller): Promise<McpServer> {
  const decision = await fastPathOf(shelf, scope);
  const server = new McpServer({ ...MCP_SERVER_INFO }, decision.fastPath ? { instructions: decision.fastPath.prompt } : {});
  new SkillsExtension({
    source: shelfSkillSource(shelf, scope),
    cacheHint: { ttlMs: shelf.pinned ? PINNED_TTL_MS : CURRENT_TTL_MS, cacheScope: caller.visibility === "public" ? "public" : "private" },
    onWarning: (warning) => console.warn(`mcp skills: ${warning.path}: ${warning.message}`),
  }).attach(server);
  registerSkillTools(server, shelf, scope, { fastPath: decision.fastPath !== undefined });
  return server;
}
