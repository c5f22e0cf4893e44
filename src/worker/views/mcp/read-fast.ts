// resources/read of a skill file on a 2026-07-28 request, answered without the SDK's exchange
// (issue 35). createMcpHandler's exchange (classification, the `_meta` envelope's zod check, the
// header ladder, a server checked out and connected to a per-request transport, the resource
// template's regular expression rebuilt per match, result encoding) costs about twice a whole
// file GET before any skill is read. The common request, one a host built on the SDK sends for
// each file, is answered here instead, in exactly the bytes the SDK would give, from the same
// SkillSource read the skills extension calls (source.ts: scope, advisories, digest check).
//
// Conservative: only a request whose every part is one this file knows how the SDK answers is
// taken (below, `commonRead`); anything else, and any read that does not return a file (not
// found, blocked, a folder, out of scope, a storage failure), goes to the SDK unchanged, which
// answers it as before. test/worker/mcp/read-fast.test.ts sends each variant both ways and
// compares status, headers and body bytes.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ShelfService } from "../../shelf/service.ts";
import { bindRequestState } from "./request-state.ts";
import { fastPathOf, type McpScope } from "./scope.ts";
import { cacheHintFor, MCP_SERVER_INFO, type McpCaller } from "./server.ts";
import { shelfSkillSource } from "./source.ts";
import { SKILL_URI_BASE } from "./uris.ts";

/** The one protocol revision answered here (the SDK serves no other modern one). */
const MODERN_REVISION = "2026-07-28";
const METHOD = "resources/read";
/** The envelope keys a host sends (the SDK client's three); any other key, logLevel included, goes to the SDK. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** Longer URIs go to the SDK (no skill file's URI is near this; the SDK's own limits are far above it). */
const MAX_URI_LENGTH = 4096;

let sdkOnly = false;
let answeredHere = 0;

/** resources/read calls this isolate answered without the SDK (tests and the bench check the fast path is taken). */
export function resourcesReadAnsweredHere(): number {
  return answeredHere;
}

/** Serves every resources/read through the SDK (true) or here where it applies (false, the default). For the comparison test and the bench. */
export function serveResourcesReadWithSdk(on: boolean): void {
  sdkOnly = on;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** True when `object` has exactly these own keys (any order). */
function hasExactly(object: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(object);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(object, key));
}

/**
 * Verdicts of the SDK's own classifier on `_meta` envelopes, keyed by the envelope's JSON: a host
 * sends the same envelope on every request, so the SDK's check (zod) runs once per envelope and
 * isolate, not per request. The verdict depends on nothing but the envelope (the rest of the
 * message and the headers are checked exactly in `commonRead`). Bounded: cleared when full.
 */
const envelopeVerdicts = new Map<string, boolean>();
const MAX_ENVELOPE_VERDICTS = 64;

/**
 * Whether the SDK's classifier (`classifyInboundRequest`, the code createMcpHandler runs) routes
 * this message, with headers that agree with it, to the modern path at 2026-07-28: which it does
 * exactly when the envelope passes the SDK's schema. An envelope whose JSON would not parse back
 * to the same value (a non-finite number or -0) is not judged: the request goes to the SDK.
 */
function envelopeAccepted(message: Record<string, unknown>, meta: Record<string, unknown>, uri: string): boolean {
  let odd = false;
  const key = JSON.stringify(meta, (_name, value: unknown) => {
    if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) odd = true;
    return value;
  });
  if (odd) return false;
  let verdict = envelopeVerdicts.get(key);
  if (verdict === undefined) {
    const outcome = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: MODERN_REVISION,
      mcpMethodHeader: METHOD,
      mcpNameHeader: uri,
      body: message,
    });
    verdict = outcome.kind === "modern" && outcome.messageKind === "request" && outcome.classification.revision === MODERN_REVISION;
    if (envelopeVerdicts.size >= MAX_ENVELOPE_VERDICTS) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * The id and URI of a request this file answers, or undefined for anything else. What the SDK
 * checks on a modern request, and what is required here so that each check passes as reproduced:
 * - POST with a Content-Type the SDK's `isJsonContentType` takes (else its 415);
 * - the body exactly `{jsonrpc: "2.0", id, method: "resources/read", params: {uri, _meta}}`, id a
 *   string or a safe integer (the SDK's RequestIdSchema), no other member anywhere (no retry
 *   fields, no other `_meta` key);
 * - `_meta` exactly the three envelope keys, the protocol version 2026-07-28 and the envelope one
 *   the SDK's own classifier accepts (envelopeAccepted);
 * - `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: resources/read` and `Mcp-Name` equal to the
 *   URI, each exactly (the SDK's header ladder: present, agreeing with the body; an `Mcp-Name`
 *   in the `=?base64?…?=` form goes to the SDK);
 * - a skill:// URI already in WHATWG form (`new URL(uri).href === uri`): the SDK reads and
 *   answers `uri.href`, so the answer names the URI as sent;
 * - the request not aborted (the SDK answers 499 then).
 * Accept is not looked at: the SDK's modern path does not either (its answer is JSON whatever
 * the client accepts; the test sends both spellings and none).
 */
function commonRead(request: Request, message: unknown): { id: string | number; uri: string } | undefined {
  if (request.method !== "POST" || request.signal.aborted) return undefined;
  if (!isPlainObject(message) || !hasExactly(message, ["jsonrpc", "id", "method", "params"])) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== METHOD) return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !hasExactly(params, ["uri", "_meta"])) return undefined;
  const { uri, _meta: meta } = params;
  if (typeof uri !== "string" || uri.length > MAX_URI_LENGTH || !uri.startsWith(SKILL_URI_BASE)) return undefined;
  if (!isPlainObject(meta) || !hasExactly(meta, [...ENVELOPE_KEYS]) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return undefined;
  const headers = request.headers;
  if (!isJsonContentType(headers.get("content-type"))) return undefined;
  if (headers.get("mcp-protocol-version") !== MODERN_REVISION || headers.get("mcp-method") !== METHOD || headers.get("mcp-name") !== uri) return undefined;
  let href: string;
  try {
    href = new URL(uri).href;
  } catch {
    return undefined;
  }
  if (href !== uri || !envelopeAccepted(message, meta, uri)) return undefined;
  return { id: id as string | number, uri };
}

/** Standard base64, as the skills extension encodes a blob (its `encodeBase64`). */
function base64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 32768;
  for (let offset = 0; offset < bytes.length; offset += chunk) binary += String.fromCharCode(...bytes.subarray(offset, offset + chunk));
  return btoa(binary);
}

/**
 * The SDK's answer to a common 2026-07-28 resources/read of a skill file, made here; undefined
 * when the request is anything else or the read does not return a file (the caller hands the
 * request to the SDK, which answers it as it always has). `message` is the parsed body.
 * @example const answered = await readFast(c.req.raw, parsedBody, shelf, scope, caller); if (answered) return answered
 */
export async function readFast(request: Request, message: unknown, shelf: ShelfService, scope: McpScope, caller: McpCaller): Promise<Response | undefined> {
  if (sdkOnly) return undefined;
  const read = commonRead(request, message);
  if (read === undefined) return undefined;
  let file: Awaited<ReturnType<NonNullable<typeof shelfSkillSource.read>>>;
  try {
    // As the SDK's factory (server.ts mcpServerFor) would: a one-skill scope is the single-skill
    // fast path, whose server has instructions; that server's answers are left to the SDK.
    if ((await fastPathOf(shelf, scope)).fastPath !== undefined) return undefined;
    bindRequestState(request, { shelf, scope });
    // The skills extension's read: the same source call, with the context it reads (the request).
    file = await shelfSkillSource.read(read.uri, { http: { req: request } } as unknown as ServerContext);
  } catch {
    // A blocked skill, a folder, a storage failure: the SDK reads again and answers its error.
    return undefined;
  }
  if (file === undefined) return undefined;
  answeredHere++;
  // The extension's toContents (uri, mimeType when present, text or blob), then the 2026-07-28
  // encoding: resultType, the cache fields from the template's cacheHint, the server's identity
  // under _meta; the JSON-RPC envelope in the SDK's order (result, jsonrpc, id).
  const mimeType = file.mimeType === undefined ? {} : { mimeType: file.mimeType };
  const contents = "text" in file ? { uri: read.uri, ...mimeType, text: file.text } : { uri: read.uri, ...mimeType, blob: base64(file.bytes) };
  const { ttlMs, cacheScope } = cacheHintFor(shelf.pinned, caller);
  const result = { contents: [contents], resultType: "complete", ttlMs, cacheScope, _meta: { [SERVER_INFO_META_KEY]: { ...MCP_SERVER_INFO } } };
  return new Response(JSON.stringify({ result, jsonrpc: "2.0", id: read.id }), { status: 200, headers: { "Content-Type": "application/json" } });
}
