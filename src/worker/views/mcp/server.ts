// The MCP server a request is served by: the skills extension over the shelf service, the eight
// agentskills tools, and on the fast path the one skill's body as the server's instructions. The
// registrations hold no request state (each handler call finds its own, request-state.ts), so a
// 2026-07-28 server is built once and reused by later requests of the isolate: a request checks
// an idle one out of a pool, and the SDK's close at the end of its exchange puts it back.
// Stateless as before: nothing a request brings outlives it, and no Durable Object is needed.
import { McpServer, type McpRequestContext } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { ShelfVisibility } from "../../auth/read-access.ts";
import type { ShelfService } from "../../shelf/service.ts";
import { bindRequestState } from "./request-state.ts";
import { answerSkillsListOurselves } from "./list.ts";
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
 * The cacheHint of this kind of server (pinned or current, public or private): what the skills
 * extension fills ttlMs and cacheScope from, and what read-fast.ts answers with.
 * @example cacheHintFor(false, { visibility: "public" }) // => { ttlMs: 60000, cacheScope: "public" }
 */
export function cacheHintFor(pinned: boolean, caller: McpCaller): { ttlMs: number; cacheScope: "public" | "private" } {
  return { ttlMs: pinned ? PINNED_TTL_MS : CURRENT_TTL_MS, cacheScope: caller.visibility === "public" ? "public" : "private" };
}

/** Idle servers kept per kind: enough for the requests one isolate serves at once. */
const IDLE_PER_KIND = 8;

/** Idle 2026-07-28 servers without instructions, by kind (what their registrations differ by: the cacheHint). */
const idle = new Map<string, McpServer[]>();
let built = 0;

/** Servers built in this isolate (tests check that reuse happens). */
export function mcpServersBuilt(): number {
  return built;
}

/** Forgets every idle server (tests that need a fresh isolate's behaviour). */
export function resetMcpServerPool(): void {
  idle.clear();
}

/** A new server: the skills extension with this kind's cacheHint (skills/list answered by list.ts), and the tools. */
function newServer(pinned: boolean, caller: McpCaller, instructions: string | undefined): McpServer {
  built++;
  const server = new McpServer({ ...MCP_SERVER_INFO }, instructions === undefined ? {} : { instructions });
  const cacheHint = cacheHintFor(pinned, caller);
  new SkillsExtension({
    source: shelfSkillSource,
    cacheHint,
    onWarning: (warning) => console.warn(`mcp skills: ${warning.path}: ${warning.message}`),
  }).attach(server);
  // skills/list without the SDK's per-entry check of entries it has already passed (list.ts).
  answerSkillsListOurselves(server, cacheHint);
  registerSkillTools(server, { fastPath: instructions !== undefined });
  return server;
}

/** The idle servers of one kind (pinned or current, public or private caller), the list created on first use. */
function idleOf(pinned: boolean, caller: McpCaller): McpServer[] {
  const kind = `${pinned ? "pinned" : "current"} ${caller.visibility}`;
  let free = idle.get(kind);
  if (free === undefined) {
    free = [];
    idle.set(kind, free);
  }
  return free;
}

/**
 * A reusable server of this kind: an idle one, or a new one that goes back to the pool when the
 * SDK closes its exchange (the transport's close detaches it, so it is free to connect again).
 */
function pooledServer(pinned: boolean, caller: McpCaller): McpServer {
  const free = idleOf(pinned, caller);
  const reused = free.pop();
  if (reused !== undefined) return reused;
  const server = newServer(pinned, caller, undefined);
  // createMcpHandler chains its own close hook in front of this one for each exchange and puts
  // this one back after; it runs when the exchange's transport is gone.
  server.server.onclose = () => {
    if (!server.isConnected() && free.length < IDLE_PER_KIND && !free.includes(server)) free.push(server);
  };
  return server;
}

/**
 * Puts one idle server of the current generation's kinds (public and private callers) in the pool
 * ahead of any request, so the first /mcp request of an isolate does not build one (warm-up.ts).
 */
export function prebuildMcpServers(): void {
  for (const visibility of ["public", "private"] as const) {
    const server = pooledServer(false, { visibility });
    const free = idleOf(false, { visibility });
    if (!free.includes(server)) free.push(server);
  }
}

/**
 * The MCP server for one request (both eras call this, once per request), with the request's
 * state bound to the Request object its handlers will be given. A 2026-07-28 request without the
 * fast path gets a pooled server: the SDK seeds such a server afresh on every exchange (protocol
 * version, client identity from the envelope), and reads capabilities from each request's
 * envelope. A 2025-era request (whose initialize leaves the client's identity and protocol
 * version on the instance) and a fast-path one (its instructions are the skill's body) get a new
 * server each time, as every request did before.
 * @example createMcpHandler((ctx) => mcpServerFor(ctx, shelf, scope, { visibility: "public" }))
 */
export async function mcpServerFor(ctx: McpRequestContext, shelf: ShelfService, scope: McpScope, caller: McpCaller): Promise<McpServer> {
  if (ctx.requestInfo === undefined) throw new Error("mcp: the SDK called the server factory without the request");
  bindRequestState(ctx.requestInfo, { shelf, scope });
  const decision = await fastPathOf(shelf, scope);
  if (decision.fastPath !== undefined) return newServer(shelf.pinned, caller, decision.fastPath.prompt);
  if (ctx.era !== "modern") return newServer(shelf.pinned, caller, undefined);
  return pooledServer(shelf.pinned, caller);
}
