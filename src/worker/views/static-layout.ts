// The agentskills-http static layout: /skills/index.json, /skills/<name>/index.json and every
// file at /skills/<name>/<path>. A thin view over the shelf service.
import { Hono } from "hono";
import { etagFor } from "../http/conditional.ts";
import { generated, storedFile, type ReadEnv } from "../read/context.ts";
import { staticRootIndex, staticSkillIndex } from "../read/indexes.ts";
import { getCached } from "../read/policy.ts";

/**
 * The static-layout routes. Mount inside the read surface, behind read access and openShelf.
 * @example surface.route("/", staticLayoutRoutes())
 */
export function staticLayoutRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();

  getCached(routes, "/skills/index.json", "generated", async (c) => {
    const generation = await c.get("shelf").generation();
    const etag = etagFor(`static-${generation.id}-${generation.advisoriesSeq}`);
    return generated(c, etag, async () => staticRootIndex(await c.get("shelf").skills()), { shelfWide: true });
  });

  getCached(routes, "/skills/:name/index.json", "generated", async (c) => {
    const skill = await c.get("shelf").skill(c.req.param("name"));
    // agentskills-http ignores unknown keys, so the review mark rides along. The body depends
    // only on the record (named by the entry) and the review mark, so a 304 needs no record read.
    const review = skill.trust.requires_review;
    return generated(c, etagFor(`skill-${skill.record.sha256}-${review ? "review" : "ok"}`), async () => {
      const { record } = await c.get("shelf").record(skill.name);
      return { ...staticSkillIndex(record), ...(review ? { requires_review: true } : {}) };
    });
  });

  getCached(routes, "/skills/:name/:path{.+}", "stored", async (c) => storedFile(c, await c.get("shelf").file(c.req.param("name"), c.req.param("path"))));

  return routes;
}
