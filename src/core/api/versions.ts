// The versions group of the read API (issue 17): a skill's versions from the shelf's version
// index, one version resolved by a semver range (answered as that version's record, with URLs
// pinned to its generation), and many resolved at once for a lockfile. Plain zod: the Worker
// binds these routes (src/worker/views/api/versions.ts); the OpenAPI document comes from the same schemas.
import { z } from "zod";
import { MAX_RANGE_CHARS } from "../versions/resolve.ts";
import { API_LIMITS, SkillNameSchema, SkillParamsSchema, type ApiRoute } from "./contract.ts";
import { SkillDetailSchema } from "./skills.ts";

/** Largest JSON body of POST /v1/resolve (100 names with ranges fit many times over). */
export const MAX_RESOLVE_BODY_BYTES = 64 * 1024;

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a SHA-256 in lowercase hex");

/** A range as a client writes it: `^1.2`, `~1.2.3`, `>=1 <2`, `1.2.3`, `latest`, `sha256:<tree hash>`. */
export const RangeSchema = z
  .string()
  .min(1)
  .max(MAX_RANGE_CHARS)
  .describe("A semver range (^1.2, ~1.2.3, >=1 <2), an exact version, latest (the highest release), or sha256:<tree hash>");

/** `{name}` and a `{range}`. */
export const VersionParamsSchema = z.object({ name: SkillNameSchema.describe("a skill name"), range: RangeSchema });

/** A version's trust verdict under the advisories in force now. */
export const VersionTrustSchema = z
  .object({
    status: z.enum(["ok", "requires_review", "blocked"]).describe("blocked: an advisory in force blocks this tree hash, name or source"),
    advisory: z
      .object({
        advisory_id: z.string().nullable(),
        name: z.string(),
        source: z.string(),
        severity: z.string(),
        hidden_issue: z.string(),
        reference: z.string().nullable(),
        tree_hash: z.string().nullable(),
      })
      .nullable()
      .describe("The blocking advisory, when blocked"),
  })
  .meta({ id: "VersionTrust" });

/** One version in GET /v1/skills/{name}/versions. */
export const VersionSummarySchema = z
  .object({
    version: z.string().nullable().describe("The frontmatter version; null: reachable by tree hash only"),
    tree_hash: Sha256Hex,
    generation: Sha256Hex.describe("The last retained generation it was current in (its pinned URLs point there)"),
    published_at: z.string().describe("When that generation was made current with it"),
    first_generation: Sha256Hex,
    first_published_at: z.string(),
    current: z.boolean().describe("It is the version in the current generation"),
    trust: VersionTrustSchema,
    links: z.object({
      self: z.string().describe("This version's record: /v1/skills/{name}/versions/sha256:<tree hash>"),
      skill_md: z.string().describe("SKILL.md, pinned to the generation"),
      archives: z.object({ tar_gz: z.string(), zip: z.string() }).describe("The archives, pinned (served while discovery v0.2 is on)"),
    }),
  })
  .meta({ id: "VersionSummary" });

/** GET /v1/skills/{name}/versions. */
export const VersionListSchema = z
  .object({
    skill: z.string(),
    generation: Sha256Hex.describe("The generation this request read"),
    index: z.object({
      seq: z.number().int().min(0),
      pointer_seq: z.number().int().min(0).describe("The pointer move the stored index reflects"),
      repaired: z.boolean().describe("The stored index was behind the pointer; the current generation was added to it for this answer"),
    }),
    versions: z.array(VersionSummarySchema).describe("Newest first: highest semver precedence, then the most recently current"),
  })
  .meta({ id: "VersionList" });

/** POST /v1/resolve's body. */
export const ResolveBodySchema = z
  .strictObject({
    skills: z
      .record(SkillNameSchema, RangeSchema)
      .refine((skills) => Object.keys(skills).length >= 1, { message: "name at least one skill" })
      .refine((skills) => Object.keys(skills).length <= API_LIMITS.maxNames, { message: `at most ${API_LIMITS.maxNames} skills` })
      .describe("Skill name → range"),
  })
  .meta({ id: "ResolveRequest" });
export type ResolveBody = z.infer<typeof ResolveBodySchema>;

/** One file of a resolved version: its digest and its URL pinned to the version's generation. */
export const LockedFileSchema = z.object({ path: z.string(), size: z.number().int().min(0), sha256: Sha256Hex, url: z.string() }).meta({ id: "LockedFile" });

/** One resolved skill: exactly what a lockfile records. */
export const ResolvedSkillSchema = z
  .object({
    range: z.string(),
    version: z.string().nullable(),
    tree_hash: Sha256Hex,
    generation: Sha256Hex,
    published_at: z.string(),
    requires_review: z.boolean(),
    skill_md: z.string().describe("Pinned URL of SKILL.md"),
    archives: z.object({
      tar_gz: z.object({ url: z.string(), sha256: Sha256Hex, size: z.number().int().min(0) }),
      zip: z.object({ url: z.string(), sha256: Sha256Hex, size: z.number().int().min(0) }),
    }),
    files: z.array(LockedFileSchema),
  })
  .meta({ id: "ResolvedSkill" });

/** POST /v1/resolve's answer. */
export const ResolveAnswerSchema = z
  .object({
    generation: Sha256Hex.describe("The current generation when resolved"),
    skills: z.record(z.string(), ResolvedSkillSchema),
  })
  .meta({ id: "ResolveAnswer" });

/** The versions group's routes. */
export const VERSIONS_API = {
  versions: {
    method: "get",
    path: "/skills/{name}/versions",
    summary: "Every version of a skill in a retained generation, newest first, with pinned URLs and the verdict now",
    params: SkillParamsSchema,
    responses: [{ mediaType: "application/json", schema: VersionListSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
  version: {
    method: "get",
    path: "/skills/{name}/versions/{range}",
    summary: "The newest version matching a range that no advisory blocks, as its record with URLs pinned to its generation",
    params: VersionParamsSchema,
    responses: [{ mediaType: "application/json", schema: SkillDetailSchema }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  resolve: {
    method: "post",
    path: "/resolve",
    summary: "Resolve ranges for many skills at once: version, tree hash and pinned URLs and digests of every file (what a lockfile records)",
    body: { json: ResolveBodySchema, maxBytes: MAX_RESOLVE_BODY_BYTES },
    responses: [{ mediaType: "application/json", schema: ResolveAnswerSchema }],
    errors: ["malformed_json", "too_large", "unprocessable", "not_found"],
  },
} as const satisfies Record<string, ApiRoute>;
