// The skills group of the read API: the servable skills as a paged list, one skill's record,
// and its progressive disclosure (body, outline, one section, resources), as agentskills-core
// serves them to an agent. Plain zod: the Worker binds these routes (src/worker/views/api/skills.ts)
// and the OpenAPI document is generated from the same schemas.
import { SkillSignatureSchema } from "../signing/signatures.ts";
import { z } from "zod";
import { BuildVerdictSchema, Sha256Schema, SKILL_METADATA_FIELDS } from "../generation/manifest.ts";
import { PublishedProvenanceSchema } from "../import/provenance.ts";
import { TRUST_LEVELS } from "../trust/records.ts";
import { MAX_RANGE_CHARS } from "../versions/resolve.ts";
import { SkillAuditSchema, TrustVerdictSchema } from "./trust.ts";
import { API_LIMITS, integerParam, NameParamSchema, skillFilterParams, SkillParamsSchema, type ApiRoute } from "./contract.ts";

/** The folders whose files are a skill's resources (agentskills-core's RESOURCE_KINDS); SKILL.md is the body, not a resource. */
export const RESOURCE_KINDS = ["references", "scripts", "assets"] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Largest resource `?as=text` encodes (the raw bytes have no cap): a bigger file is unprocessable there. */
export const RESOURCE_TEXT_MAX_BYTES = 1024 * 1024;

/** Media types of the text answers. */
export const SKILL_TEXT_MEDIA_TYPES = {
  markdown: "text/markdown; charset=utf-8",
  text: "text/plain; charset=utf-8",
} as const;

/**
 * Every media type a raw resource can be served with: the static layout's policy
 * (src/worker/http/content-type.ts), by extension; active content is inert text, unknown
 * binaries an attachment. Listed so the document names each one.
 */
export const RAW_RESOURCE_MEDIA_TYPES = [
  "text/markdown",
  "text/plain",
  "text/csv",
  "text/tab-separated-values",
  "application/json",
  "application/yaml",
  "application/pdf",
  "application/gzip",
  "application/zip",
  "application/octet-stream",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
] as const;

const NameSchema = NameParamSchema;

/** `{name}` in a path. */

/** `{name}` and a section `{key}`. */
export const SectionParamsSchema = z.object({
  name: NameSchema,
  key: z.string().min(1).max(API_LIMITS.maxKeyChars).describe("a section key from the outline"),
});

/** `{name}` and a skill-relative resource `{path}` (may contain slashes). */
export const ResourceParamsSchema = z.object({
  name: NameSchema,
  path: z.string().min(1).max(API_LIMITS.maxKeyChars).describe("the skill-relative path, e.g. references/guide.md"),
});

/** The arguments of GET /v1/skills. */
export const SkillListQuerySchema = z.object({
  ...skillFilterParams("case-insensitive, as the catalog matches them"),
  limit: integerParam(1, API_LIMITS.maxPageSize)
    .optional()
    .describe(`Skills per page (default ${API_LIMITS.defaultPageSize}, at most ${API_LIMITS.maxPageSize}).`),
  cursor: z
    .string()
    .min(1)
    .max(API_LIMITS.maxCursorChars)
    .regex(/^[A-Za-z0-9_-]+$/, "a cursor from next_cursor")
    .optional()
    .describe("The previous page's next_cursor; the page starts after the skill it names."),
});

/** The arguments of GET /v1/skills/{name}: a version range to resolve instead of the current version (src/core/api/versions.ts). */
export const SkillVersionQuerySchema = z.object({
  version: z
    .string()
    .min(1)
    .max(MAX_RANGE_CHARS)
    .optional()
    .describe(
      "A semver range, exact version, latest or sha256:<tree hash>: answers that version's record, pinned to its generation (as /v1/skills/{name}/versions/{range})",
    ),
});

/** The arguments of GET /v1/skills/{name}/outline. */
export const OutlineQuerySchema = z.object({
  format: z.enum(["json", "text"]).optional().describe("json (default): the outline as the build stored it; text: exactly what `skillshelf outline` prints."),
});

/** The arguments of GET /v1/skills/{name}/resources/{path}. */
export const ResourceQuerySchema = z.object({
  as: z
    .enum(["bytes", "text"])
    .optional()
    .describe(
      `bytes (default): the stored bytes, as the static layout serves them; text: JSON with agentskills-core's encode_resource_content text and classify_resource's media type (files up to ${RESOURCE_TEXT_MAX_BYTES} bytes).`,
    ),
});

/** A stored artifact's URLs: under the caller's prefix (follows the current generation) and pinned to this generation. */
export const ArtifactLinkSchema = z
  .object({
    url: z.string(),
    pinned_url: z.string().describe("/g/<generation>/…: immutable, for as long as the generation is kept"),
    sha256: Sha256Schema,
    size: z.number().int().min(0),
  })
  .meta({ id: "ArtifactLink" });

const ArchiveLinksSchema = z.object({ tar_gz: ArtifactLinkSchema, zip: ArtifactLinkSchema });

/** Where a listed skill's files are. */
export const SkillLinksSchema = z
  .object({
    self: z.string().describe("GET /v1/skills/{name}"),
    skill_md: ArtifactLinkSchema.describe("SKILL.md in the static layout"),
    archives: ArchiveLinksSchema.describe("The deterministic archives (served under /.well-known/agent-skills/, so only while discovery v0.2 is on)"),
  })
  .meta({ id: "SkillLinks" });

/** One servable skill in GET /v1/skills. */
export const SkillSummarySchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string().nullable(),
    tags: z.array(z.string()),
    when_to_use: z.array(z.string()),
    when_not_to_use: z.array(z.string()),
    file_count: z.number().int().min(1),
    total_bytes: z.number().int().min(0),
    has_scripts: z.boolean(),
    tree_hash: Sha256Schema,
    deprecated: z.string().nullable().describe("Why the shelf deprecated this skill (lifecycle.yaml); null when it is not deprecated"),
    replaced_by: z.string().nullable().describe("The skill that replaces this one (lifecycle.yaml); null when none"),
    trust: z.object({
      level: z.enum(TRUST_LEVELS).describe("The build's level"),
      requires_review: z.boolean().describe("The build's flag, or an advisory in force now that matches without blocking"),
    }),
    links: SkillLinksSchema,
  })
  .meta({ id: "SkillSummary" });

/** A page of GET /v1/skills. */
export const SkillListSchema = z
  .object({
    generation: Sha256Schema,
    skills: z.array(SkillSummarySchema),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
  })
  .meta({ id: "SkillList" });

/** One file of a skill, as the build recorded it. */
export const SkillFileSchema = z
  .object({ path: z.string(), size: z.number().int().min(0), sha256: Sha256Schema, media_type: z.string() })
  .meta({ id: "SkillFile" });

/** A skill's trust verdict under the advisories in force now (as GET /v1/trust/{name} gives it), with the build's. */
export const SkillTrustNowSchema = TrustVerdictSchema.extend({
  source: z.string().nullable().describe("The provenance label advisories are matched against"),
  build: BuildVerdictSchema.describe("The verdict the build stored"),
}).meta({ id: "SkillTrustNow" });

/** GET /v1/skills/{name}. */
export const SkillDetailSchema = z
  .object({
    generation: Sha256Schema,
    name: z.string(),
    ...SKILL_METADATA_FIELDS,
    frontmatter: z.record(z.string(), z.unknown()).describe("SKILL.md's frontmatter, verbatim, as JSON"),
    content_hash: Sha256Schema.describe("SHA-256 of SKILL.md"),
    tree_hash: Sha256Schema.describe("hash_skill_tree of the folder; trust records bind to it"),
    file_count: z.number().int().min(1),
    total_bytes: z.number().int().min(0),
    has_scripts: z.boolean(),
    files: z.array(SkillFileSchema),
    requires: z.object({ requires_tools: z.array(z.string()), requires_mcp: z.array(z.string()) }),
    deprecated: z.string().nullable().describe("Why the shelf deprecated this skill (lifecycle.yaml); null when it is not deprecated"),
    replaced_by: z.string().nullable().describe("The skill that replaces this one (lifecycle.yaml); null when none"),
    trust: SkillTrustNowSchema,
    signature: SkillSignatureSchema.nullable().describe(
      "The publisher's detached Ed25519 signature over the agentskills-snapshot-v1 payload (docs/signing.md); null when the generation is unsigned",
    ),
    provenance: PublishedProvenanceSchema.optional().describe(
      "Where an imported skill came from (the shelf's provenance.yaml, written by skillshelf import): source, ref, commit or digest, version, when, the tree imported, and whether the team modified it since. Absent for the team's own skills",
    ),
    audit: SkillAuditSchema.optional().describe(
      "The static audit of this tree (docs/trust.md): every finding with file, line and an excerpt, and which are acknowledged. Absent when the generation was built before the audit was published",
    ),
    links: SkillLinksSchema.extend({ body: z.string(), outline: z.string(), resources: z.string() }),
  })
  .meta({ id: "SkillDetail" });

/** One outline section as the build stored it (src/core/disclosure/outline.ts). */
export const OutlineSectionJsonSchema = z.looseObject({
  key: z.string(),
  title: z.string(),
  level: z.number().int().min(0),
  tokens: z.number().int().min(0),
  start: z.number().int().min(0).optional().describe("UTF-16 offset in the body of the section's first line"),
  end: z.number().int().min(0).optional(),
});

/** GET /v1/skills/{name}/outline (json): the record's outline, verbatim. */
export const OutlineJsonSchema = z
  .looseObject({
    skill_id: z.string().optional(),
    total_tokens: z.number().int().min(0),
    sections: z.array(OutlineSectionJsonSchema),
  })
  .meta({ id: "Outline" });

/** One resource of a skill. */
export const ResourceEntrySchema = z
  .object({
    name: z.string().describe("Relative to its kind's folder: what get_skill_reference / get_skill_script / get_skill_asset take"),
    path: z.string().describe("Relative to the skill root"),
    size: z.number().int().min(0),
    sha256: Sha256Schema,
    media_type: z.string().describe("As the build recorded it (by name)"),
    listed: z.boolean().describe("Whether list_skill_resources reports it (a file directly in the folder with a name agentskills-http accepts)"),
    url: z.string(),
    pinned_url: z.string(),
  })
  .meta({ id: "ResourceEntry" });

/** GET /v1/skills/{name}/resources. */
export const ResourceListSchema = z
  .object({
    generation: Sha256Schema,
    skill: z.string(),
    references: z.array(ResourceEntrySchema),
    scripts: z.array(ResourceEntrySchema),
    assets: z.array(ResourceEntrySchema),
  })
  .meta({ id: "ResourceList" });

/** GET /v1/skills/{name}/resources/{path}?as=text. */
export const ResourceTextSchema = z
  .object({
    path: z.string(),
    name: z.string().describe("Relative to its kind's folder (the name in the envelope)"),
    media_type: z.string().describe("classify_resource: magic bytes first, then the name"),
    renderable: z.boolean().describe("A PNG, JPEG, GIF or WebP a vision model can be shown natively"),
    is_text: z.boolean(),
    size: z.number().int().min(0),
    sha256: Sha256Schema,
    content: z.string().describe("encode_resource_content: UTF-8 text verbatim, else the JSON envelope (base64, or a note above 64 KiB)"),
  })
  .meta({ id: "ResourceText" });

/** The skills group's routes. */
export const SKILLS_API = {
  list: {
    method: "get",
    path: "/skills",
    summary: "The servable skills (blocked ones absent), filtered and paged by name",
    query: SkillListQuerySchema,
    responses: [{ mediaType: "application/json", schema: SkillListSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
  skill: {
    method: "get",
    path: "/skills/{name}",
    summary: "One skill: frontmatter, files, hashes, trust verdict under the advisories in force, requirements and URLs",
    params: SkillParamsSchema,
    query: SkillVersionQuerySchema,
    responses: [{ mediaType: "application/json", schema: SkillDetailSchema }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  signature: {
    method: "get",
    path: "/skills/{name}/signature",
    summary: "The skill's detached signature (agentskills-core DetachedSignature plus the origin, revision and version it signs); 404 when unsigned",
    params: SkillParamsSchema,
    responses: [{ mediaType: "application/json", schema: SkillSignatureSchema }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  body: {
    method: "get",
    path: "/skills/{name}/body",
    summary: "The SKILL.md body exactly as agentskills-core's get_body returns it",
    params: SkillParamsSchema,
    responses: [{ mediaType: "text/markdown" }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  outline: {
    method: "get",
    path: "/skills/{name}/outline",
    summary: "The body's outline: as stored (json) or exactly as `skillshelf outline` renders it (text)",
    params: SkillParamsSchema,
    query: OutlineQuerySchema,
    responses: [{ mediaType: "application/json", schema: OutlineJsonSchema }, { mediaType: "text/plain" }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  section: {
    method: "get",
    path: "/skills/{name}/sections/{key}",
    summary: "One section of the body, exactly as `skillshelf section` prints it (an unknown key is a 404 listing the keys)",
    params: SectionParamsSchema,
    responses: [{ mediaType: "text/markdown" }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  resources: {
    method: "get",
    path: "/skills/{name}/resources",
    summary: "The skill's references/, scripts/ and assets/ files, grouped, with sizes, digests and URLs",
    params: SkillParamsSchema,
    responses: [{ mediaType: "application/json", schema: ResourceListSchema }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  resource: {
    method: "get",
    path: "/skills/{name}/resources/{path}",
    summary: "One resource: its bytes as the static layout serves them (ranges, ETag), or with as=text the text an agent is given",
    params: ResourceParamsSchema,
    query: ResourceQuerySchema,
    responses: RAW_RESOURCE_MEDIA_TYPES.map((mediaType) =>
      mediaType === "application/json"
        ? { mediaType, schema: z.union([ResourceTextSchema, z.unknown().describe("a raw .json resource, as stored")]) }
        : { mediaType },
    ),
    errors: ["invalid_parameter", "not_found", "blocked", "unprocessable"],
  },
} as const satisfies Record<string, ApiRoute>;
