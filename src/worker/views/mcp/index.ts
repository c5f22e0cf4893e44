// /mcp on the read surface (so also /g/<generation>/mcp and /c/<token>/mcp, behind the same read
// access, security headers and CORS): the official SDK's createMcpHandler answers both protocol
// eras, 2026-07-28 (no initialize, _meta envelope, Mcp-Method/Mcp-Name headers) and 2025
// (stateless initialize). No session state. Answered here: two refusals the SDK does not make (a
// batch, a spec request whose params break its schema) and, in the SDK's exact bytes, the common
// 2026-07-28 resources/read of a skill file (read-fast.ts); everything else is the SDK's.
import { createMcpHandler, specTypeSchemas } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { ShelfError } from "../../errors.ts";
import { readBodyCapped } from "../../http/capped-body.ts";
import { NO_STORE } from "../../http/headers.ts";
import type { ReadEnv } from "../../read/context.ts";
import { ScopeError, scopeOf, type McpScope } from "./scope.ts";
import { readFast } from "./read-fast.ts";
import { mcpServerFor } from "./server.ts";

/** Largest request body /mcp reads (413 beyond): a read-only server's requests are a few hundred bytes. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/**
 * The spec's requests whose params the SDK checks only inside its handler, answering a mismatch as
 * an internal error (-32603): checked here first against the SDK's own schemas, so it is -32602.
 */
const REQUEST_SCHEMAS: Readonly<Record<string, keyof typeof specTypeSchemas>> = {
  ping: "PingRequest",
  "tools/list": "ListToolsRequest",
  "resources/list": "ListResourcesRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/read": "ReadResourceRequest",
  "prompts/list": "ListPromptsRequest",
  "prompts/get": "GetPromptRequest",
  "completion/complete": "CompleteRequest",
  "logging/setLevel": "SetLevelRequest",
};

/** A JSON-RPC error answer made here (never cached, like every /mcp answer). */
function jsonRpcError(status: number, id: unknown, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": NO_STORE },
  });
}

/** A body /mcp refuses before the SDK sees it, carrying its JSON-RPC answer. */
class BodyRefusal extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super("refused /mcp body");
    this.response = response;
  }
}

/** A request as the SDK should see it: with the body already parsed when it was JSON (the SDK then reads nothing again). */
interface Screened {
  request: Request;
  parsedBody?: unknown;
}

/**
 * The request as the SDK should see it (its body read once, under the cap, and handed over
 * parsed), or the refusal of a JSON-RPC batch (MCP 2025-06-18 removed batching; one 5 KB batch
 * used to fan out to 100 calls) or of a spec request with invalid params. Anything else,
 * malformed JSON included, goes on to the SDK unchanged.
 */
async function screened(request: Request): Promise<Screened | Response> {
  if (request.method !== "POST") return { request };
  // Refusals before the SDK are JSON-RPC errors as the SDK's own would be (-32000 for a body over
  // the cap, -32700 for one that ended early), not the read group's plain JSON.
  let bytes: Uint8Array;
  try {
    bytes = await readBodyCapped(request.body, MAX_MCP_BODY_BYTES, {
      tooLarge: () => new BodyRefusal(jsonRpcError(413, null, -32000, `Request body too large: an /mcp request is at most ${MAX_MCP_BODY_BYTES} bytes`)),
      incomplete: () => new BodyRefusal(jsonRpcError(400, null, -32700, "Parse error: the request body ended before all of it arrived")),
    });
  } catch (error) {
    if (error instanceof BodyRefusal) return error.response;
    throw error;
  }
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Not JSON (or empty): the SDK reads the bytes itself and answers as it does.
    return { request: new Request(request, { body: bytes }) };
  }
  if (Array.isArray(message)) {
    return jsonRpcError(400, null, -32600, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one request per POST");
  }
  if (message !== null && typeof message === "object" && "id" in message && "method" in message && typeof message.method === "string") {
    const schema = Object.hasOwn(REQUEST_SCHEMAS, message.method) ? specTypeSchemas[REQUEST_SCHEMAS[message.method]!] : undefined;
    const checked = schema?.["~standard"].validate(message);
    if (checked && !(checked instanceof Promise) && checked.issues) {
      const issue = checked.issues[0]!;
      const where = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return jsonRpcError(200, message.id, -32602, `Invalid params for ${message.method}: ${where}: ${issue.message}`);
    }
  }
  // The body is spent; the SDK takes the parsed message instead of reading it (its `parsedBody`).
  return { request, parsedBody: message };
}

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
    const screen = await screened(c.req.raw);
    if (screen instanceof Response) return screen;
    // The common 2026-07-28 read of a skill file, answered as the SDK would without its exchange
    // (read-fast.ts); anything else, and any read that finds no file, goes on to the SDK.
    const fast = screen.parsedBody === undefined ? undefined : await readFast(screen.request, screen.parsedBody, shelf, scope, caller);
    if (fast !== undefined) {
      fast.headers.set("Cache-Control", NO_STORE);
      return fast;
    }
    // A handler per request (cheap): its factory closes over this request's shelf and scope and
    // binds them to the request, whichever server, new or pooled, serves it (server.ts).
    const handler = createMcpHandler((ctx) => mcpServerFor(ctx, shelf, scope, caller), {
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      onerror: (error) => console.warn(`mcp: ${error.message}`),
    });
    const response = await handler.fetch(screen.request, screen.parsedBody === undefined ? undefined : { parsedBody: screen.parsedBody });
    // The SDK marks its event streams no-cache; docs/mcp.md promises no-store for every answer.
    response.headers.set("Cache-Control", NO_STORE);
    return response;
  });
  return app;
}
