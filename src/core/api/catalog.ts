// The catalog group of the read API: the system-prompt catalog (GET /v1/catalog) fitted to a
// budget in agentskills-core's XML and Markdown or as structured JSON, and the single-skill fast
// path (GET /v1/fast-path). Plain zod: the Worker binds these routes (src/worker/views/api/catalog.ts)
// and the OpenAPI document is generated from the same schemas.
import { z } from "zod";
import { DEFAULT_FAST_PATH_MAX_TOKENS } from "../disclosure/fast-path.ts";
import { API_LIMITS, BooleanParam, integerParam, listParam, NameParamSchema, skillFilterParams, type ApiRoute } from "./contract.ts";

/** The catalog's text formats and the structured one. */
export const CATALOG_FORMATS = ["xml", "markdown", "json"] as const;
export type CatalogApiFormat = (typeof CATALOG_FORMATS)[number];

/** Media types of the catalog's answers, by format. */
export const CATALOG_MEDIA_TYPES = {
  xml: "application/xml; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  json: "application/json",
} as const satisfies Record<CatalogApiFormat, string>;

/** The arguments of GET /v1/catalog, as the query string writes them (the CLI's flags, snake_case). */
export const CatalogQuerySchema = z.object({
  format: z.enum(CATALOG_FORMATS).optional().describe("xml (default), markdown, or json (the entries the xml catalog shows, as data)"),
  ...skillFilterParams("case-insensitive"),
  max_chars: integerParam(0, API_LIMITS.maxCatalogChars)
    .optional()
    .describe("Ceiling on the catalog's length in code points; whole entries are dropped from the end and the truncation is stated."),
  selection_hints: BooleanParam.optional().describe("Include when_to_use / when_not_to_use (default true)."),
  total: integerParam(0, API_LIMITS.maxTotal).optional().describe("Size of the set these skills were chosen from; a shortfall is reported as truncation."),
});

/** One entry of the structured catalog: what its text entry shows. */
export const CatalogEntrySchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string().nullable(),
    when_to_use: z.array(z.string()).optional().describe("Present unless selection_hints=false."),
    when_not_to_use: z.array(z.string()).optional().describe("Present unless selection_hints=false."),
  })
  .meta({ id: "CatalogEntry" });

/** The structured catalog (format=json): the entries the xml catalog with the same arguments shows. */
export const CatalogJsonSchema = z
  .object({
    skills: z.array(CatalogEntrySchema),
    shown: z.number().int().min(0),
    total: z.number().int().min(0),
    truncated: z.boolean(),
  })
  .meta({ id: "Catalog" });
export type CatalogJson = z.infer<typeof CatalogJsonSchema>;

/** The arguments of GET /v1/fast-path. */
export const FastPathQuerySchema = z.object({
  include: listParam("include", NameParamSchema, API_LIMITS.maxNames)
    .optional()
    .describe("Comma-separated: narrow to these skills first (unknown names are ignored, as in agentskills-core)."),
  max_tokens: integerParam(0, API_LIMITS.maxFastPathTokens)
    .optional()
    .describe(`Largest body, in estimated tokens, worth inlining (default ${DEFAULT_FAST_PATH_MAX_TOKENS}).`),
});

/** The fast path's answer: the prompt that replaces the catalog, or why there is none. */
export const FastPathSchema = z
  .discriminatedUnion("applies", [
    z.object({
      applies: z.literal(true),
      skill_id: z.string(),
      tokens: z.number().int().min(0),
      prompt: z.string().describe("Goes into the system prompt instead of a catalog."),
    }),
    z.object({ applies: z.literal(false), reason: z.string() }),
  ])
  .meta({ id: "FastPath" });
export type FastPathJson = z.infer<typeof FastPathSchema>;

/** The catalog group's routes. */
export const CATALOG_API = {
  catalog: {
    method: "get",
    path: "/catalog",
    summary: "The system-prompt catalog of the servable skills, fitted to a budget (byte-identical to `skillshelf catalog` for xml and markdown)",
    query: CatalogQuerySchema,
    responses: [{ mediaType: "application/xml" }, { mediaType: "text/markdown" }, { mediaType: "application/json", schema: CatalogJsonSchema }],
    errors: ["invalid_parameter", "not_found", "unprocessable"],
  },
  fastPath: {
    method: "get",
    path: "/fast-path",
    summary: "The single-skill fast path: the inline prompt when exactly one skill is in play and its body is small, else the reason",
    query: FastPathQuerySchema,
    responses: [{ mediaType: "application/json", schema: FastPathSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
} as const satisfies Record<string, ApiRoute>;
