// The admin route that rebuilds the version index from the pointer's history (`skillshelf
// reindex`), declared like the admin contract's routes (src/core/publish/contract.ts) so the
// Worker binds it and AdminClient.request calls it.
import { z } from "zod";
import { MAX_JSON_BODY_BYTES, type AdminRoute } from "../publish/contract.ts";

/** `POST /versions/rebuild`: `fresh` starts from an empty index; without it, continues one that is behind. */
export const ReindexRequestSchema = z.object({ fresh: z.boolean().optional() });

/** What a rebuild (or a catch-up after a pointer move) did. */
export const ReindexReportSchema = z.object({
  pointer_seq: z.int().nonnegative().describe("The pointer move the stored index reflects now"),
  current_seq: z.int().nonnegative().describe("The pointer's seq"),
  applied: z.int().nonnegative().describe("History moves applied by this call"),
  collected: z.int().nonnegative().describe("Of those, moves to a generation gc had collected"),
  complete: z.boolean().describe("False: the read budget ran out first; call again without fresh to continue"),
  seq: z.int().nonnegative().describe("The index record's own seq"),
});
export type ReindexReport = z.infer<typeof ReindexReportSchema>;

/** The versions admin routes. */
export const VERSIONS_ADMIN_API = {
  reindex: {
    method: "post",
    path: "/versions/rebuild",
    summary: "Rebuild the version index from the pointer's history (the generations gc has not collected)",
    body: { type: "json", json: ReindexRequestSchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: ReindexReportSchema,
  },
} as const satisfies Record<string, AdminRoute>;
