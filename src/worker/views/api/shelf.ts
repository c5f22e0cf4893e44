// GET /v1/shelf: the shelf's state for operators and dashboards (generation, publish time, counts,
// skills needing review, blocked skills, advisories in force, and the generation signature with the
// payload it signs), a thin view over the shelf service; its refusals are problem documents.
import { SHELF_API } from "../../../core/api/shelf.ts";
import { etagFor } from "../../http/conditional.ts";
import { generated } from "../../read/context.ts";
import { bindRoute, type ApiApp } from "./routes.ts";

/** Binds the shelf group: the shelf's state. */
export function shelfRoutes(app: ApiApp): void {
  bindRoute(app, SHELF_API.status, async (c) => {
    const generation = await c.get("shelf").generation();
    const visibility = c.get("shelfAccess").visibility;
    const signing = await c.get("shelf").signing();
    // The body also carries published_at (a rollback to the same generation changes it), the
    // visibility and the signatures (a re-signing changes them), so all of those are in the ETag too.
    const etag = etagFor(
      `shelf-${generation.id}-${generation.advisoriesSeq}-${generation.seq ?? "pinned"}-${generation.publishedAt ?? "none"}-${visibility}-${signing?.sha256 ?? "unsigned"}`,
    );
    return generated(
      c,
      etag,
      async () => ({
        ...(await c.get("shelf").status()),
        visibility,
        signature: await c.get("shelf").generationSignature(signing),
      }),
      { shelfWide: true },
    );
  });
}
