// skills/list on a 2026-07-28 request, answered by a handler of ours in place of the skills
// extension's (issue 35). The extension's handler checks every entry a SkillSource hands it
// (SkillSchema and the URI rules, on every request: a source cannot opt out) and drops, with a
// warning, the ones that fail; on a warm page of 100 that check was about 40% of the request. Our
// entries are built once per isolate (source.ts), so the SDK's verdict is kept with them instead:
// an entry object the SDK's own handler has once kept is known good, and a page made only of such
// entries is answered here, in the shape the SDK's handler gives (`skills`, `nextCursor` when there
// is one, then the cache fields), from the very entries it would have returned. Every other call
// (a page with an entry the SDK has not yet judged, or judged bad; a 2025-era request; an unknown
// protocol revision) goes to the SDK's handler itself, which also teaches us its verdicts. The
// answer is the SDK's byte for byte (test/worker/mcp/list-handler.test.ts compares the two).
import { specTypeSchemas, type McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { SKILLS_LIST_METHOD, type ListSkillsResult, type Skill, type SkillCacheScope } from "@modelcontextprotocol/server/ext/skills";
import { shelfSkillSource } from "./source.ts";

/**
 * The one protocol revision our handler answers (the SDK adds the cache fields to a skills/list
 * result exactly when the negotiated revision is 2026-07-28 or later); any other goes to the SDK.
 */
const MODERN_REVISION = "2026-07-28";

/** What the SDK's stored handler takes: the JSON-RPC request (it checks `params` itself). */
type StoredHandler = (request: { method: string; params?: Record<string, unknown> }, ctx: ServerContext) => Promise<ListSkillsResult>;

/**
 * Entries the SDK's own skills/list handler has kept (its check passed), by identity. An entry is
 * never changed after it is built, and the check reads nothing but the entry (our extension is
 * neither strict nor trusted, the same on every server), so the verdict holds for its lifetime.
 */
const keptBySdk = new WeakSet<Skill>();

let sdkOnly = false;
let answeredHere = 0;

/** skills/list calls this isolate answered without the SDK's handler (tests check the fast path is taken). */
export function skillsListAnsweredHere(): number {
  return answeredHere;
}

/**
 * Serves every skills/list with the SDK's handler (true) or ours where it applies (false, the
 * default). For the test that compares the two answers and for the bench.
 */
export function serveSkillsListWithSdk(on: boolean): void {
  sdkOnly = on;
}

/** The protected accessor the SDK's Protocol keeps its stored handlers behind (`_getRequestHandler`). */
interface StoredHandlers {
  _getRequestHandler(method: string): StoredHandler | undefined;
}

/**
 * Replaces skills/list on `server` (the skills extension already attached, with this cacheHint)
 * with ours, keeping the extension's handler to hand every call ours does not answer. The params
 * are checked against the schema the extension registers (the spec's PaginatedRequestParams, the
 * same object), so a bad params object is refused with the SDK's own error.
 * @throws Error when the extension registered no skills/list handler (an SDK that changed)
 */
export function answerSkillsListOurselves(server: McpServer, cacheHint: { ttlMs: number; cacheScope: SkillCacheScope }): void {
  const protocol = server.server as unknown as StoredHandlers;
  const sdkList = protocol._getRequestHandler(SKILLS_LIST_METHOD);
  if (typeof sdkList !== "function") throw new Error("mcp: the skills extension registered no skills/list handler to stand in for");
  const cacheFields = { ttlMs: cacheHint.ttlMs, cacheScope: cacheHint.cacheScope };
  server.server.setRequestHandler(SKILLS_LIST_METHOD, { params: specTypeSchemas.PaginatedRequestParams }, async (params, ctx) => {
    const viaSdk = async (): Promise<ListSkillsResult> => {
      const result = await sdkList.call(protocol, { method: SKILLS_LIST_METHOD, params: { ...params } }, ctx);
      for (const skill of result.skills) keptBySdk.add(skill);
      return result;
    };
    if (sdkOnly || server.server.getNegotiatedProtocolVersion() !== MODERN_REVISION) return viaSdk();
    const page = await shelfSkillSource.list(params.cursor === undefined ? {} : { cursor: params.cursor }, ctx);
    for (const skill of page.skills) if (!keptBySdk.has(skill)) return viaSdk();
    answeredHere++;
    // The SDK's #list: `skills` (the kept entries, in order), `nextCursor` when there is one, then
    // its cache fields ({...cache}: ttlMs, cacheScope) on a 2026-07-28 exchange.
    return { skills: [...page.skills], ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }), ...cacheFields };
  });
}
