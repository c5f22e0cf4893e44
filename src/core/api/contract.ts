// The read API (/v1) contract, defined once: the limits every argument is held to, the error
// codes with their one HTTP status, the problem document (RFC 9457) every refusal is, and the
// route type each view's routes are declared with (skills.ts, catalog.ts, trust.ts, search.ts
// beside this file). Plain zod, free of hono: the Worker binds the routes (src/worker/views/api) and
// the OpenAPI document is generated from the same schemas.
import { z } from "zod";
import { MAX_NAME_CHARS, SKILL_NAME_RE } from "../skill/skill.ts";

/** Where the read API is mounted (also under /g/<generation> and /c/<token>). */
export const API_BASE = "/v1";

/**
 * Caps on every argument, so no request can exceed a Worker's CPU or memory: a request that
 * passes them costs at most a bounded amount of work over a bounded shelf.
 */
export const API_LIMITS = {
  /** Most skill names in one `include`/`exclude` list, or one selection. */
  maxNames: 100,
  /** Most tags in one `tags` filter. */
  maxTags: 50,
  /** Longest tag in a filter, in characters. */
  maxTagChars: 100,
  /** Largest `max_chars` a catalog accepts (a system prompt is never near it). */
  maxCatalogChars: 1_000_000,
  /** Largest `total` a catalog accepts. */
  maxTotal: 1_000_000,
  /** Largest `max_tokens` the fast path accepts. */
  maxFastPathTokens: 100_000,
  /** Page size of /v1/skills: default and ceiling. */
  defaultPageSize: 50,
  maxPageSize: 200,
  /** Longest cursor accepted (a cursor names one skill). */
  maxCursorChars: 128,
  /** Longest search query, in characters. */
  maxQueryChars: 256,
  /** Results of one search: default and ceiling. */
  defaultSearchResults: 10,
  maxSearchResults: 50,
  /** Largest JSON body of POST /v1/select. */
  maxSelectBodyBytes: 64 * 1024,
  /** Most tool names in one selection's grant. */
  maxGrantTools: 200,
  /** Longest section key or resource path accepted. */
  maxKeyChars: 512,
} as const;

/**
 * Every error code the read API answers, with its one HTTP status. The body is always a
 * problem document ({@link ProblemSchema}); clients decide on `code`, never on the wording.
 */
export const API_ERRORS = {
  /** A query or path parameter that is malformed or out of bounds; `param` names it. */
  invalid_parameter: 400,
  /** A POST body that is not JSON. */
  malformed_json: 400,
  /** Read access refused (private shelf without a valid token). */
  unauthorized: 401,
  /** No such skill, section, resource, generation or path; `skills`/`keys` list what exists where useful. */
  not_found: 404,
  /** An advisory in force blocks the skill; `advisory` names it. */
  blocked: 410,
  /** A POST body over its cap. */
  too_large: 413,
  /** A well-formed request the shelf cannot satisfy (a `max_chars` even the empty catalog exceeds, a body that breaks its schema). */
  unprocessable: 422,
  /** Storage did not answer; retry after `Retry-After` seconds. */
  storage_unavailable: 503,
  /** A bug on our side, logged. */
  internal: 500,
} as const;
export type ApiErrorCode = keyof typeof API_ERRORS;

/**
 * An RFC 9457 problem document, as every /v1 refusal is sent (`application/problem+json`).
 * `type` is "about:blank", so `title` is the status's reason phrase; `code` is the machine
 * answer, `param` names the parameter at fault.
 */
export const ProblemSchema = z
  .looseObject({
    type: z.literal("about:blank"),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]]),
    param: z.string().optional(),
  })
  .meta({ id: "Problem" });
export type Problem = z.infer<typeof ProblemSchema>;

/** The media type of a problem document. */
export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** A skill name as a path or list item: what SKILL_NAME_RE accepts, at most MAX_NAME_CHARS. */
export const SkillNameSchema = z.string().min(1).max(MAX_NAME_CHARS).regex(SKILL_NAME_RE, "a skill name: lowercase letters, digits and single hyphens");

/** The path parameters of every route about one skill (`/skills/{name}`, `/trust/{name}`, …). */
export const SkillParamsSchema = z.object({ name: SkillNameSchema.describe("a skill name") });

/**
 * A comma-separated list parameter (`include=a,b`), checked as written: at most `max` items,
 * each matching `item`. Blank items (`a,,b`, a trailing comma) are dropped, as the CLI does.
 * @example nameListParam("include").parse("a,b") // => "a,b"
 */
export function listParam(param: string, item: z.ZodString, max: number) {
  return z
    .string()
    .max(max * 200)
    .refine((value) => splitList(value).length <= max, { message: `${param} takes at most ${max} items` })
    .refine((value) => splitList(value).every((v) => item.safeParse(v).success), { message: `every ${param} item must be ${item.description ?? "valid"}` });
}

/** One item of a `tags` list parameter. */
export const TagParamSchema = z.string().min(1).max(API_LIMITS.maxTagChars).describe(`a tag of at most ${API_LIMITS.maxTagChars} characters`);
/** One item of a list of skill names (`include`, `exclude`). */
export const NameParamSchema = SkillNameSchema.describe("a skill name");

/**
 * The `tags`, `include` and `exclude` parameters /v1/catalog and /v1/skills share (one list, so
 * the two select alike); `tagMatch` says how tags match, in the route's own words.
 */
export function skillFilterParams(tagMatch: string) {
  return {
    tags: listParam("tags", TagParamSchema, API_LIMITS.maxTags)
      .optional()
      .describe(`Comma-separated: keep skills carrying any of these tags (${tagMatch}). Present but empty keeps none.`),
    include: listParam("include", NameParamSchema, API_LIMITS.maxNames)
      .optional()
      .describe("Comma-separated skill names to keep; a name not served here is a 404 naming it."),
    exclude: listParam("exclude", NameParamSchema, API_LIMITS.maxNames).optional().describe("Comma-separated skill names to drop (unknown ones ignored)."),
  };
}

/** The items of a comma-separated list parameter, trimmed, blanks dropped. */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** A whole number between `min` and `max` written in a query string. */
export function integerParam(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,10}$/, "a whole number")
    .refine((v) => Number(v) >= min && Number(v) <= max, { message: `between ${min} and ${max}` });
}

/** A boolean query parameter: true/false (also 1/0). */
export const BooleanParam = z.enum(["true", "false", "1", "0"]);
export function booleanValue(value: string | undefined, fallback: boolean): boolean {
  return value === undefined ? fallback : value === "true" || value === "1";
}

/** What a route answers with on success: its media type and the schema of its body (JSON), if any. */
export interface ApiContent {
  readonly mediaType: string;
  /** The JSON body's schema; text and byte answers have none. */
  readonly schema?: z.ZodType;
}

/** One /v1 route: data the Worker binds and the OpenAPI document describes. */
export interface ApiRoute {
  readonly method: "get" | "post";
  /** Below API_BASE, OpenAPI style (`/skills/{name}`). */
  readonly path: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: { readonly json: z.ZodType; readonly maxBytes: number };
  /** Success answers by media type (a route may answer JSON or text by `format`). */
  readonly responses: readonly ApiContent[];
  /** The error codes this route can answer besides unauthorized, storage_unavailable and internal. */
  readonly errors: readonly ApiErrorCode[];
}
