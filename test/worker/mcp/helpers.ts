// Drives /mcp with the official SDK client (@modelcontextprotocol/client) through the Worker app
// in workerd: its fetch is the app's request function, so every byte goes through the read
// surface (read access, CORS, security headers) exactly as over HTTP.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { env } from "cloudflare:workers";
import app from "../../../src/worker/index.ts";

export const BASE = "https://shelf.test";

/** The two protocol eras a host may speak: 2026-07-28 (no initialize) and 2025 (stateless initialize). */
export type Era = "modern" | "legacy";
export const ERAS: readonly Era[] = ["modern", "legacy"];

/** Options of {@link connectMcp}. */
export interface ConnectOptions {
  era?: Era;
  /** Path of the endpoint (default /mcp), with any query. */
  path?: string;
  headers?: Record<string, string>;
  bindings?: object;
}

/** A fetch that calls the Worker app in-process. */
export function appFetch(bindings: object = env): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => app.request(input instanceof Request ? input : String(input), init, bindings);
}

/**
 * An SDK client connected to the Worker's /mcp in one era, and its SkillsClient.
 * @example const { client, skills } = await connectMcp({ era: "modern" })
 */
export async function connectMcp(options: ConnectOptions = {}): Promise<{ client: Client; skills: SkillsClient }> {
  const era = options.era ?? "modern";
  const client = new Client({ name: "skillshelf-test", version: "1.0.0" }, era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}${options.path ?? "/mcp"}`), {
    fetch: appFetch(options.bindings),
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
  });
  await client.connect(transport);
  return { client, skills: new SkillsClient(client) };
}

/**
 * A raw 2026-07-28 request as a host sends it (the `_meta` envelope and the Mcp-* headers), for
 * checks below the SDK client. `headers` may add Mcp-Name or override any header.
 */
export function modernRequest(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, id = 1): RequestInit {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
  };
}
