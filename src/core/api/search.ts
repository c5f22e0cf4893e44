// The search group of the read API: skills ranked for a task description (GET /v1/search), and
// the same ranking in the `skills` CLI's find contract (GET /api/search, outside /v1 because the
// CLI asks `${SKILLS_API_URL}/api/search`). Plain zod: the Worker binds these routes
// (src/worker/views/api/search.ts) and the OpenAPI document is generated from the same schemas.
import { z } from "zod";
import { TRUST_LEVELS } from "../trust/records.ts";
import { Sha256Schema } from "../generation/manifest.ts";
import { API_LIMITS, integerParam, type ApiRoute } from "./contract.ts";

/** Where the find contract is mounted (not under API_BASE; also under /g/<generation> and /c/<token>). */
export const FIND_PATH = "/api/search";

/** `q` and `limit`, shared by both routes. */
export const SearchQuerySchema = z.object({
  q: z
    .string()
    .max(API_LIMITS.maxQueryChars)
    .refine((q) => q.trim() !== "", { message: "a query is required" })
    .describe(
      `The task, in words (at most ${API_LIMITS.maxQueryChars} characters). Matched case-insensitively after dropping common words and folding plurals and -ing/-ed endings.`,
    ),
  limit: integerParam(1, API_LIMITS.maxSearchResults)
    .optional()
    .describe(`Most results (default ${API_LIMITS.defaultSearchResults}, at most ${API_LIMITS.maxSearchResults}).`),
});

/** The `skills` CLI's find request: `owner` (sent with `--owner`) names a GitHub owner, which a shelf has none of; it is accepted and ignored. */
export const FindQuerySchema = SearchQuerySchema.extend({
  owner: z.string().max(100).optional().describe("Sent by `skills find --owner`; a shelf has no GitHub owners, so it is ignored."),
});

/** One ranked skill. */
export const SearchResultSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    score: z.number().describe("BM25F relevance, rounded to 4 decimals; comparable within one answer only"),
    tags: z.array(z.string()),
    trust: z.object({
      level: z.enum(TRUST_LEVELS).describe("The build's level"),
      requires_review: z.boolean().describe("The build's flag, or an advisory in force now that matches without blocking"),
    }),
    url: z.string().describe("GET /v1/skills/{name}, under the caller's access prefix"),
  })
  .meta({ id: "SearchResult" });

/** GET /v1/search's answer. */
export const SearchAnswerSchema = z
  .object({
    query: z.string().describe("The query as matched: caseless, whitespace collapsed"),
    terms: z.array(z.string()).describe("The terms it was ranked by; empty when it holds only common words (then there are no results)"),
    generation: Sha256Schema,
    results: z.array(SearchResultSchema).describe("Best first, ties by name; skills matching no term and blocked skills are left out"),
  })
  .meta({ id: "SearchAnswer" });

/** GET /api/search's answer: what `skills find` reads (no `installs`: the CLI would re-sort by it). */
export const FindAnswerSchema = z
  .object({
    skills: z.array(
      z.object({
        id: z.string().describe("The skill name"),
        name: z.string().describe("The skill name"),
        source: z.string().describe("The shelf's base URL (origin and access prefix), for `skills add <source> --skill <name>`"),
      }),
    ),
  })
  .meta({ id: "FindAnswer" });

/** The search group's routes. */
export const SEARCH_API = {
  search: {
    method: "get",
    path: "/search",
    summary: "Skills ranked for a task description (BM25F over names, tags, descriptions, when_to_use and section titles)",
    query: SearchQuerySchema,
    responses: [{ mediaType: "application/json", schema: SearchAnswerSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
  /** Bound at FIND_PATH, not below API_BASE: its `path` here is only the route's name in the contract. */
  find: {
    method: "get",
    path: FIND_PATH,
    summary: "The same ranking in the `skills` CLI's find contract (SKILLS_API_URL=<shelf> npx skills find <words>)",
    query: FindQuerySchema,
    responses: [{ mediaType: "application/json", schema: FindAnswerSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
} as const satisfies Record<string, ApiRoute>;
