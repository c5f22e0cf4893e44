// The trust group of the read API: every skill's verdict under the advisories in force
// (GET /v1/trust, GET /v1/trust/{name}) and the trust-gated selection of a context
// (POST /v1/select), with the same results as `skillshelf trust` and `skillshelf select`.
// Plain zod: the Worker binds these routes (src/worker/views/api/trust.ts) and the OpenAPI document
// is generated from the same schemas.
import { z } from "zod";
import { AdvisoryEntryObjectSchema, TRUST_LEVELS, ValidationRecordObjectSchema } from "../trust/records.ts";
import { AuditFindingSchema, EntryAuditSchema } from "../generation/manifest.ts";
import { API_LIMITS, SkillNameSchema, SkillParamsSchema, type ApiRoute } from "./contract.ts";

/** Longest `enabled` entry: a skill name, "@", a 64-hex tree hash, and room for surrounding blanks. */
export const MAX_ENABLED_ENTRY_CHARS = 200;
/** Longest tool name in a grant (`Bash(git:*)`-style tokens included). */
export const MAX_TOOL_NAME_CHARS = 200;

/** core's TrustVerdict, as JSON: the level, the gate, the reasons, and what it rests on. */
export const TrustVerdictSchema = z
  .object({
    level: z.enum(TRUST_LEVELS),
    blocked: z.boolean(),
    requires_review: z.boolean(),
    attachable: z.boolean().describe("= not blocked and not requires_review: the only safe single read for 'may attach'."),
    do_not_use: z.boolean(),
    reasons: z.array(z.string()),
    advisories: z.array(AdvisoryEntryObjectSchema).describe("Every advisory in force that matched (blocking or not)."),
    validation: ValidationRecordObjectSchema.nullable().describe("The validation record the level rests on."),
    warnings: z.array(z.string()),
  })
  .meta({ id: "TrustVerdict" });

/** A skill's audit in brief: the shard entry's summary (src/core/audit/published.ts). */
export const AuditSummarySchema = EntryAuditSchema.describe(
  "The static audit's findings in brief (docs/trust.md): counts per severity (absent keys are zero), the critical and high findings no validation record acknowledges, and how many are acknowledged. Present only when the audit found something.",
).meta({ id: "AuditSummary" });

/** GET /v1/skills/{name}'s `audit`: every finding, with its id and whether it is acknowledged. */
export const SkillAuditSchema = z
  .object({
    rule_set: z.string().describe("The audit rule set the findings were computed with"),
    tree_hash: z.string().describe("The tree the findings are for (always the skill's tree_hash)"),
    summary: EntryAuditSchema,
    findings: z
      .array(
        AuditFindingSchema.extend({
          id: z.string().describe("rule@file:line, what `skillshelf attest … --accept` takes"),
          acknowledged: z.boolean().describe("True when a validation record bound to this tree accepts the finding"),
        }),
      )
      .describe("Most severe first"),
    acknowledged: z.array(z.string()).describe("The acknowledged finding ids (evidence.audit_accepted of a validation record bound to this tree)"),
  })
  .meta({ id: "SkillAudit" });

/** One served skill's verdict under the advisories in force now. */
export const SkillTrustSchema = z
  .object({
    name: z.string(),
    tree_hash: z.string(),
    source: z.string().nullable().describe("The provenance label the build derived from the validation records (null when none)."),
    has_scripts: z.boolean(),
    verdict: TrustVerdictSchema,
    audit: AuditSummarySchema.optional(),
  })
  .meta({ id: "SkillVerdict" });
export type SkillTrustView = z.infer<typeof SkillTrustSchema>;

/** The advisory that blocks a skill, as /v1/shelf and a 410 show it. */
export const BlockingAdvisorySchema = z.object({
  advisory_id: z.string().nullable(),
  name: z.string(),
  source: z.string(),
  severity: z.string(),
  hidden_issue: z.string(),
  reference: z.string().nullable(),
  tree_hash: z.string().nullable(),
});

/** A skill an advisory in force blocks: never served, never selected. */
export const BlockedSkillSchema = z.object({ name: z.string(), advisory: BlockingAdvisorySchema }).meta({ id: "BlockedSkill" });

/** GET /v1/trust: every served skill's verdict, the blocked skills, and the advisories in force. */
export const ShelfTrustSchema = z
  .object({
    generation: z.string(),
    advisories: z.object({
      seq: z.number().int().min(0).describe("Bumped by every change to the advisories in force."),
      in_force: z.array(AdvisoryEntryObjectSchema),
    }),
    skills: z.array(SkillTrustSchema).describe("Every served skill, sorted by name."),
    blocked: z.array(BlockedSkillSchema).describe("Skills an advisory in force blocks (absent from every other listing)."),
  })
  .meta({ id: "ShelfTrust" });
export type ShelfTrustView = z.infer<typeof ShelfTrustSchema>;

/**
 * A well-formed enable: a skill name, optionally pinned to a tree hash. The CLI warns about a
 * malformed one and grants nothing; the API refuses it, so a typo in a pin is never silent.
 */
const ENABLED_ENTRY_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:@[0-9a-f]{64})?$/;

/** POST /v1/select's body: `skillshelf select --names … --enable …` as JSON, with an optional tool grant. */
export const SelectBodySchema = z
  .strictObject({
    names: z
      .array(SkillNameSchema)
      .min(1)
      .max(API_LIMITS.maxNames)
      .describe("The skills named for this context, in order (the answer keeps it); duplicates are ignored with a warning."),
    enabled: z
      .array(z.string().max(MAX_ENABLED_ENTRY_CHARS).regex(ENABLED_ENTRY_RE, "a skill name, or a pin name@<64 lowercase hex tree hash>"))
      .max(API_LIMITS.maxNames)
      .optional()
      .describe(
        "Operator enables for requires_review skills: a bare name, or name@<64-hex tree hash> (a pin, which holds the skill again when its bytes change). A malformed entry is refused (422 naming it); well-formed entries that grant nothing are warned, as the CLI does.",
      ),
    grant: z
      .array(z.string().min(1).max(MAX_TOOL_NAME_CHARS))
      .max(API_LIMITS.maxGrantTools)
      .optional()
      .describe("The host's tool grant; when given, the answer has each active skill's effective tools (grant ∩ its allowed-tools)."),
  })
  .meta({ id: "SelectRequest" });
export type SelectBody = z.infer<typeof SelectBodySchema>;

/** A held or blocked skill with the verdict that put it there. */
const GatedSkillSchema = z.object({ name: z.string(), verdict: TrustVerdictSchema });

/** core's EffectiveTools: the least-privilege bound while one skill's procedure runs. */
export const EffectiveToolsSchema = z
  .object({
    allowed: z.array(z.string()),
    declared_bound_active: z.boolean(),
    narrowed_by_skills: z.boolean(),
    declared_skills: z.array(z.string()),
    undeclared_skills: z.array(z.string()),
    out_of_grant_names: z.array(z.tuple([z.string(), z.string()])),
    unresolved_tokens: z.array(z.tuple([z.string(), z.string()])),
    warnings: z.array(z.string()),
  })
  .meta({ id: "EffectiveTools" });

/** POST /v1/select's answer: core's SkillSelection (less the active skills' metadata) and the effective tools. */
export const SelectionSchema = z
  .object({
    generation: z.string(),
    active_names: z.array(z.string()).describe("The skills that may be composed into a prompt, in the order named."),
    held: z.array(GatedSkillSchema).describe("requires_review skills not enabled (enable with name or name@tree_hash)."),
    blocked: z.array(GatedSkillSchema).describe("Skills an advisory blocks; never active, whatever is enabled."),
    missing: z.array(z.string()).describe("Names this shelf does not have."),
    warnings: z.array(z.string()).describe("Every note, as `skillshelf select` prints them (#FALLBACK marks a safe fallback)."),
    requires: z.record(z.string(), z.object({ mcp_servers: z.array(z.string()), tools: z.array(z.string()) })),
    resolved_tree_hashes: z.record(z.string(), z.string()).describe("The value to pin (name@hash) for every name that resolved."),
    resolved_locations: z.record(z.string(), z.string()).describe("Where each resolved copy lives on this shelf: /g/<generation>/skills/<name>."),
    activation_descriptions: z.record(z.string(), z.string()),
    activation_block: z.string().describe("The <available_skills> block for the active skills."),
    effective_tools: z.record(z.string(), EffectiveToolsSchema).optional().describe("Per active skill, when a grant was given."),
  })
  .meta({ id: "Selection" });
export type SelectionView = z.infer<typeof SelectionSchema>;

/** The trust group's routes. */
export const TRUST_API = {
  list: {
    method: "get",
    path: "/trust",
    summary: "Every served skill's trust verdict with reasons under the advisories in force now, the blocked skills, and the advisories",
    responses: [{ mediaType: "application/json", schema: ShelfTrustSchema }],
    errors: ["not_found"],
  },
  skill: {
    method: "get",
    path: "/trust/{name}",
    summary: "One skill's trust verdict with reasons under the advisories in force now",
    params: SkillParamsSchema,
    responses: [{ mediaType: "application/json", schema: SkillTrustSchema }],
    errors: ["invalid_parameter", "not_found", "blocked"],
  },
  select: {
    method: "post",
    path: "/select",
    summary: "The trust-gated selection of a context (skillshelf select): active, held, blocked, missing, the activation block, effective tools",
    body: { json: SelectBodySchema, maxBytes: API_LIMITS.maxSelectBodyBytes },
    responses: [{ mediaType: "application/json", schema: SelectionSchema }],
    errors: ["malformed_json", "not_found", "too_large", "unprocessable"],
  },
} as const satisfies Record<string, ApiRoute>;
