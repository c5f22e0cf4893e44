// The changes group of the read API: GET /v1/changes?since=, the shelf's history entries
// (publishes, rollbacks, advisory changes) after a generation, a seq or a time, each with its
// change document, oldest first and paginated. Plain zod, bound by src/worker/views/api/changes.ts.
import { z } from "zod";
import { ChangeDocumentSchema } from "../changes/document.ts";
import { integerParam, type ApiRoute } from "./contract.ts";

/** Page size of /v1/changes: default and ceiling (each entry may cost one change-document read). */
export const CHANGES_PAGE = { default: 20, max: 100 } as const;

/** `since` as a client writes it: a generation id, a history seq, or an RFC 3339 time. */
export const SinceSchema = z
  .string()
  .max(64)
  .regex(
    /^(?:[0-9a-f]{64}|\d{1,10}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))$/,
    "a generation id (64 hex), a history seq (a whole number) or an RFC 3339 time (2026-12-02T09:00:00Z)",
  );

export const ChangesQuerySchema = z.object({
  since: SinceSchema.optional().describe(
    "Entries after this: a generation id (after its newest entry), a seq, or an RFC 3339 time. Absent: from the oldest entry the history remembers.",
  ),
  limit: integerParam(1, CHANGES_PAGE.max).optional().describe(`Entries per page (default ${CHANGES_PAGE.default}, at most ${CHANGES_PAGE.max})`),
});

/** One history entry with its change document. */
export const ChangeEntrySchema = z
  .object({
    seq: z.number().int().positive(),
    action: z.enum(["publish", "rollback", "advisory"]),
    at: z.string(),
    generation: z.string(),
    changes: ChangeDocumentSchema.nullable().describe("null for an entry written before change documents (or whose document could not be written)"),
  })
  .meta({ id: "ChangeEntry" });

/** GET /v1/changes's answer. */
export const ChangesPageSchema = z
  .object({
    current: z.object({ generation: z.string(), seq: z.number().int().positive() }).nullable(),
    oldest_seq: z.number().int().positive().nullable().describe("The oldest entry the history still remembers"),
    complete: z.boolean().describe("false when `since` is older than the history remembers: some entries in between are no longer known"),
    entries: z.array(ChangeEntrySchema).describe("Oldest first"),
    next_since: z.number().int().positive().nullable().describe("Pass as `since` for the next page; null on the last page"),
  })
  .meta({ id: "ChangesPage" });
export type ChangesPage = z.infer<typeof ChangesPageSchema>;

/** The changes group's routes. */
export const CHANGES_API = {
  list: {
    method: "get",
    path: "/changes",
    summary: "What changed on the shelf: history entries (publish, rollback, advisory change) after `since`, each with its change document",
    query: ChangesQuerySchema,
    responses: [{ mediaType: "application/json", schema: ChangesPageSchema }],
    errors: ["invalid_parameter", "not_found"],
  },
} as const satisfies Record<string, ApiRoute>;
