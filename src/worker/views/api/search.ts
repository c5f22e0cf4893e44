// The search group: GET /v1/search ranks the servable skills for a task description, and GET
// /api/search gives the same ranking in the `skills` CLI's find contract, so
// `SKILLS_API_URL=<shelf> npx skills find <words>` searches this shelf. Both are computed answers
// (src/worker/read/respond.ts): cached per generation, advisories in force and normalized query,
// so a repeated search computes nothing and reads no storage.
import { createRoute } from "@hono/zod-openapi";
import { API_BASE, API_LIMITS } from "../../../core/api/contract.ts";
import { FIND_PATH, SEARCH_API } from "../../../core/api/search.ts";
import { parseQuery, SearchQueryTooLongError, type SearchQuery } from "../../../core/search/bm25.ts";
import { searchShelf } from "../../shelf/search.ts";
import { invalidParameter } from "./problem.ts";
import { computedJson } from "../../read/respond.ts";
import { bindRoute, openApiRoute, queryOf, type ApiApp, type ApiContext } from "./routes.ts";

/** Scores are shown to 4 decimals: enough to see the gaps, short enough to read. */
const SCORE_DECIMALS = 1e4;

/** The validated `q` and `limit` of either route, normalized so equal searches share a cache key. */
function searchArguments(q: string, limit: string | undefined): { query: SearchQuery; limit: number } {
  let query: SearchQuery;
  try {
    query = parseQuery(q);
  } catch (err) {
    // The schema already caps q in the same unit; kept so the core's own check cannot surface as a 500.
    if (err instanceof SearchQueryTooLongError) throw invalidParameter("q", err.message);
    throw err;
  }
  return { query, limit: limit === undefined ? API_LIMITS.defaultSearchResults : Number(limit) };
}

async function search(c: ApiContext): Promise<Response> {
  const raw = queryOf(c, SEARCH_API.search);
  const { query, limit } = searchArguments(raw.q, raw.limit);
  return computedJson(
    c,
    "search",
    { q: query.text, limit },
    async () => {
      const generation = await c.get("shelf").generation();
      const prefix = c.get("shelfAccess").urlPrefix;
      const ranked = await searchShelf(c.get("shelf"), query, limit);
      return {
        query: query.text,
        terms: query.terms,
        generation: generation.id,
        results: ranked.map(({ skill, score }) => ({
          name: skill.name,
          description: skill.description,
          score: Math.round(score * SCORE_DECIMALS) / SCORE_DECIMALS,
          tags: skill.tags,
          trust: { level: skill.trust.level, requires_review: skill.trust.requires_review },
          url: `${prefix}${API_BASE}/skills/${skill.name}`,
        })),
      };
    },
    { links: true },
  );
}

/**
 * The find contract (reference: mcp-find-signing.md §6). `source` is where `skills add` finds
 * the skill: this shelf's origin and the caller's access prefix (the CLI sends no credentials,
 * so on a private shelf only a capability URL works), and the pinned generation when the
 * request pinned one. No `installs`: the CLI sorts by it, which would undo the ranking.
 */
async function find(c: ApiContext): Promise<Response> {
  const raw = queryOf(c, SEARCH_API.find);
  const { query, limit } = searchArguments(raw.q, raw.limit);
  const shelf = c.get("shelf");
  const generation = await shelf.generation();
  const source = `${new URL(c.req.url).origin}${c.get("shelfAccess").urlPrefix}${shelf.pinned ? `/g/${generation.id}` : ""}`;
  return computedJson(c, "find", { q: query.text, limit, source }, async () => {
    const ranked = await searchShelf(shelf, query, limit, "omit");
    return { skills: ranked.map(({ skill }) => ({ id: skill.name, name: skill.name, source })) };
  });
}

/**
 * Binds GET /v1/search and GET /api/search (described in the OpenAPI document like every route;
 * the second outside /v1, where the CLI looks for it).
 * @example searchRoutes(app)
 */
export function searchRoutes(app: ApiApp): void {
  bindRoute(app, SEARCH_API.search, search);
  // openApiRoute puts a route below /v1; re-created at FIND_PATH (the spread leaves its routing
  // path behind: it is not enumerable) so the document and the router agree.
  app.openapi(createRoute({ ...openApiRoute(SEARCH_API.find), path: FIND_PATH }), find as never);
}
