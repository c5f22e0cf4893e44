// What one /mcp request's handlers read: its shelf service (the generation it resolved, behind the
// caller's read access) and its scope. The registrations on an MCP server are built once and may
// serve many requests in turn (server.ts pools them), so they close over none of this: each
// handler call finds its request's state from the HTTP request the SDK hands it
// (`ctx.http.req`, the very Request object the factory was called with), never from the server.
import { ProtocolError, ProtocolErrorCode, type ServerContext } from "@modelcontextprotocol/server";
import type { ShelfService } from "../../shelf/service.ts";
import type { McpScope } from "./scope.ts";

/** One /mcp request's state, as its handlers see it. */
export interface McpRequestState {
  shelf: ShelfService;
  scope: McpScope;
}

/** Keyed by the Request object itself: it lives as long as its request and is never shared. */
const states = new WeakMap<Request, McpRequestState>();

/** Ties `state` to the request the SDK will hand this request's handlers (the factory's `requestInfo`). */
export function bindRequestState(request: Request, state: McpRequestState): void {
  states.set(request, state);
}

/**
 * The state of the request a handler call serves.
 * @throws ProtocolError (internal error) when the call carries no request bound here: a handler
 *   never falls back to another request's state.
 */
export function requestStateOf(ctx: ServerContext): McpRequestState {
  const request = ctx.http?.req;
  const state = request === undefined ? undefined : states.get(request);
  if (state === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error: no /mcp request state for this call");
  return state;
}
