// The shelf group of the read API: GET /v1/shelf, the shelf's state for operators and dashboards
// (generation, publish time, counts, skills needing review, blocked skills, advisories in force,
// and the generation signature with the payload it signs). Plain zod, bound by src/worker/views/api/shelf.ts.
import { z } from "zod";
import { AdvisoryEntryObjectSchema } from "../trust/records.ts";
import type { ApiRoute } from "./contract.ts";
import { BlockedSkillSchema } from "./trust.ts";

/** The generation signature of a signed shelf, with the origin and the payload it signs. */
export const GenerationSigningSchema = z
  .object({
    key_id: z.string(),
    signature: z.string(),
    origin: z.string(),
    payload: z.unknown().describe("The agentskills-snapshot-v1 generation payload the signature is over"),
  })
  .meta({ id: "GenerationSigning" });

/** GET /v1/shelf's answer. */
export const ShelfStatusSchema = z
  .object({
    generation: z.string(),
    published_at: z.string().nullable().describe("When this generation became current; null under /g/<generation>"),
    counts: z.object({
      skills: z.number().int().min(0),
      served_skills: z.number().int().min(0),
      blocked_skills: z.number().int().min(0),
      requires_review: z.number().int().min(0),
      files: z.number().int().min(0),
      total_bytes: z.number().int().min(0),
    }),
    requires_review: z.array(z.string()).describe("Served skills a human must enable first"),
    blocked: z.array(BlockedSkillSchema),
    advisories: z.object({ seq: z.number().int().min(0), in_force: z.array(AdvisoryEntryObjectSchema) }),
    visibility: z.enum(["public", "private"]),
    signature: GenerationSigningSchema.nullable().describe("null when the generation was published unsigned"),
  })
  .meta({ id: "ShelfStatus" });

/** The shelf group's routes. */
export const SHELF_API = {
  status: {
    method: "get",
    path: "/shelf",
    summary: "The shelf's state: generation, publish time, counts, skills needing review, blocked skills, advisories in force, signature",
    responses: [{ mediaType: "application/json", schema: ShelfStatusSchema }],
    errors: ["not_found"],
  },
} as const satisfies Record<string, ApiRoute>;
