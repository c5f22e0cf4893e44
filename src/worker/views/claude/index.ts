// The shelf as a Claude Code plugin marketplace: /.claude-plugin/marketplace.json lists one plugin
// per servable skill (blocked skills absent, a review hold said in the description), each an
// `archive` source pinned to the generation (/g/<id>/…) and addressed by its sha256; the archive
// route builds that zip from the skill's published zip (core/api/claude-marketplace.ts) and
// serves it only when it still has that digest. A thin view over the shelf service, mounted in the
// read surface (read access, /c/<token>/ and /g/<generation>/ included). docs/clients.md.
import { Hono } from "hono";
import {
  MARKETPLACE_PATH,
  marketplaceName,
  PLUGIN_ARCHIVE_BASE,
  pluginDescription,
  pluginManifest,
  pluginZip,
  type Marketplace,
} from "../../../core/api/claude-marketplace.ts";
import { mapLimit } from "../../../core/publish/map-limit.ts";
import { sha256Hex } from "../../../core/skill/hash.ts";
import { ShelfError } from "../../errors.ts";
import { ZIP_TYPE } from "../../http/content-type.ts";
import type { ReadContext, ReadEnv } from "../../read/context.ts";
import { cachedGenerated, keepGenerated } from "../../read/generated.ts";
import { getCached } from "../../read/policy.ts";
import { computed, computedJson } from "../../read/respond.ts";
import { readVerified, type ServedSkill } from "../../shelf/service.ts";

/** Skill zips read at once while the marketplace is built (each is one blob read). */
const READ_CONCURRENCY = 8;

/** The plugin zip of a served skill, built from its published zip. */
async function pluginBytes(c: ReadContext, skill: ServedSkill): Promise<Uint8Array> {
  const zip = await readVerified(await c.get("shelf").archive(skill.name, "zip"));
  return pluginZip(zip, pluginManifest(skill));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The sha256 of a skill's plugin zip, kept in the isolate's generated-document cache under what
 * decides it (the skill zip's digest and plugin.json), so the marketplace of the next generation
 * reads only the zips of the skills that changed. A cold isolate still reads every listed zip once.
 */
async function pluginDigest(c: ReadContext, skill: ServedSkill): Promise<string> {
  const key = `claude-plugin-digest ${skill.archives.zip.sha256} ${JSON.stringify(pluginManifest(skill))}`;
  const hit = cachedGenerated(key);
  if (hit) return decoder.decode(hit.body);
  const digest = await sha256Hex(await pluginBytes(c, skill));
  keepGenerated(key, { etag: "", contentType: "text/plain", body: encoder.encode(digest) });
  return digest;
}

/**
 * The marketplace routes (paths include /.claude-plugin). Mount inside the read surface, behind
 * read access and the shelf service.
 * @example surface.route("/", claudeMarketplaceRoutes())
 */
export function claudeMarketplaceRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();

  getCached(routes, MARKETPLACE_PATH, "generated", async (c) => {
    const url = new URL(c.req.url);
    const shelf = c.get("shelf");
    const generation = await shelf.generation();
    // Archive URLs are absolute (Claude Code resolves nothing), carry the caller's /c/<token>
    // prefix, and pin the generation so an archive stays fetchable after the next publish.
    const base = `${url.origin}${c.get("shelfAccess").urlPrefix}/g/${generation.id}${PLUGIN_ARCHIVE_BASE}`;
    return computedJson(
      c,
      "claude-marketplace",
      { origin: url.origin },
      async (): Promise<Marketplace> => {
        const skills = await shelf.skills();
        const plugins = await mapLimit(skills, READ_CONCURRENCY, async (skill) => {
          const sha256 = await pluginDigest(c, skill);
          return {
            name: skill.name,
            description: pluginDescription(skill.description, skill.trust.requires_review),
            version: pluginManifest(skill).version,
            source: { source: "archive" as const, url: `${base}/${skill.name}/${sha256}.zip`, sha256 },
          };
        });
        return {
          name: marketplaceName(url.hostname),
          owner: { name: url.host },
          description: `The skills of the shelf at ${url.host}, one plugin per skill.`,
          plugins,
        };
      },
      true,
    );
  });

  getCached(routes, `${PLUGIN_ARCHIVE_BASE}/:name/:file`, "generated", async (c) => {
    const name = c.req.param("name");
    const file = c.req.param("file");
    const digest = /^([0-9a-f]{64})\.zip$/.exec(file)?.[1];
    if (digest === undefined) throw new ShelfError("not_found", 404, "A plugin archive is named by its sha256: <64 hex>.zip, as the marketplace lists it.");
    const skill = await c.get("shelf").skill(name);
    const response = await computed(c, {
      route: "claude-plugin",
      args: { name, digest },
      contentType: ZIP_TYPE,
      build: async () => {
        const bytes = await pluginBytes(c, skill);
        if ((await sha256Hex(bytes)) !== digest)
          throw new ShelfError(
            "not_found",
            404,
            `This plugin archive of ${name} is not in this generation: run \`claude plugin marketplace update\` and install again.`,
          );
        return bytes;
      },
    });
    if (response.status === 200) response.headers.set("Content-Disposition", `attachment; filename="${name}-${digest.slice(0, 12)}.zip"`);
    return response;
  });
  return routes;
}
