// /v1/shelf: the shelf's state for operators and dashboards (generation, publish time, counts,
// skills needing review, blocked skills, advisories in force, and the generation signature with the
// payload it signs), a thin view over the shelf service.
import { Hono } from "hono";
import { etagFor } from "../http/conditional.ts";
import { generationSignatures, generationSigning } from "../shelf/signing.ts";
import { generated, type ReadEnv } from "./context.ts";
import { getCached } from "./policy.ts";

/**
 * The /v1/shelf route. Mount inside the read surface, behind read access and openShelf.
 * @example surface.route("/", shelfStatusRoutes())
 */
export function shelfStatusRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();
  getCached(routes, "/v1/shelf", "generated", async (c) => {
    const generation = await c.get("shelf").generation();
    const visibility = c.get("shelfAccess").visibility;
    const signed = await generationSignatures(c.env, generation.id);
    // The body also carries published_at (a rollback to the same generation changes it), the
    // visibility and the signatures (a re-signing changes them), so all of those are in the ETag too.
    const etag = etagFor(
      `shelf-${generation.id}-${generation.advisoriesSeq}-${generation.seq ?? "pinned"}-${generation.publishedAt ?? "none"}-${visibility}-${signed?.sha256 ?? "unsigned"}`,
    );
    return generated(c, etag, async () => ({ ...(await c.get("shelf").status()), visibility, signature: generationSigning(signed) }));
  });
  return routes;
}
