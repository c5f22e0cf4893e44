// The shelf as a Claude Code plugin marketplace: /.claude-plugin/marketplace.json lists one plugin
// per servable skill (blocked skills absent, a review hold and a deprecation said in the
// description), each an `archive` source pinned to the generation (/g/<id>/…) and addressed by its
// sha256. The build makes each plugin zip (the record's `archives.claude_plugin`, its digest in the
// shard entry), so the listing reads the shards only and the archive route serves that blob. A
// generation built before the build made them (no `claude_plugin`) still works: its plugin zips
// are derived from the skills' published zips (core/generation/claude-plugin.ts), which a cold
// listing pays for with one zip read per skill. A thin view over the shelf service, mounted in the
// read surface (read access, /c/<token>/ and /g/<generation>/ included). docs/clients.md.
import { Hono } from "hono";
import { lifecycleOf } from "../../../core/changes/lifecycle.ts";
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
import { storedFile, type ReadContext, type ReadEnv } from "../../read/context.ts";
import { cachedGenerated, keepGenerated } from "../../read/generated.ts";
import { getCached } from "../../read/policy.ts";
import { computed, computedJson } from "../../read/respond.ts";
import type { ServedSkill } from "../../shelf/service.ts";

/** Skill zips read at once while an older generation's marketplace is built (each is one blob read). */
const READ_CONCURRENCY = 8;

/** The plugin zip of a served skill whose record has none, derived from its published zip. */
async function derivedPluginBytes(c: ReadContext, skill: ServedSkill): Promise<Uint8Array> {
  const zip = await (await c.get("shelf").archive(skill.name, "zip")).readChecked();
  return pluginZip(zip, pluginManifest(skill));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The sha256 of a skill's plugin zip: the build's, from the shard entry (no read), or for a
 * generation built before the build made plugin zips, derived and kept in the isolate's
 * generated-document cache under what decides it (the skill zip's digest and plugin.json), so the
 * next generation's marketplace reads only the zips of the skills that changed.
 */
async function pluginDigest(c: ReadContext, skill: ServedSkill): Promise<string> {
  const built = skill.archives.claude_plugin;
  if (built) return built.sha256;
  const key = `claude-plugin-digest ${skill.archives.zip.sha256} ${JSON.stringify(pluginManifest(skill))}`;
  const hit = cachedGenerated(key);
  if (hit) return decoder.decode(hit.body);
  const digest = await sha256Hex(await derivedPluginBytes(c, skill));
  keepGenerated(key, { etag: "", contentType: "text/plain", body: encoder.encode(digest) });
  return digest;
}

/** The 404 for an archive name that is not this generation's plugin zip of the skill. */
function notThisPlugin(name: string): ShelfError {
  return new ShelfError(
    "not_found",
    404,
    `This plugin archive of ${name} is not in this generation: run \`claude plugin marketplace update\` and install again.`,
  );
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
        const [skills, lifecycle] = await Promise.all([shelf.skills(), shelf.lifecycle()]);
        const market = marketplaceName(url.hostname);
        const plugins = await mapLimit(skills, READ_CONCURRENCY, async (skill) => {
          const sha256 = await pluginDigest(c, skill);
          return {
            name: skill.name,
            description: pluginDescription(skill.description, skill.trust.requires_review, lifecycleOf(lifecycle, skill.name), market),
            version: pluginManifest(skill).version,
            source: { source: "archive" as const, url: `${base}/${skill.name}/${sha256}.zip`, sha256 },
          };
        });
        return {
          name: market,
          owner: { name: url.host },
          description: `The skills of the shelf at ${url.host}, one plugin per skill.`,
          plugins,
        };
      },
      { links: true, shelfWide: true },
    );
  });

  // "stored": the name is the bytes' digest, so under /g/<generation>/ the answer never changes.
  getCached(routes, `${PLUGIN_ARCHIVE_BASE}/:name/:file`, "stored", async (c) => {
    const name = c.req.param("name");
    const file = c.req.param("file");
    const digest = /^([0-9a-f]{64})\.zip$/.exec(file)?.[1];
    if (digest === undefined) throw new ShelfError("not_found", 404, "A plugin archive is named by its sha256: <64 hex>.zip, as the marketplace lists it.");
    const shelf = c.get("shelf");
    const built = await shelf.pluginArchive(name);
    let response: Response;
    if (built) {
      if (built.sha256 !== digest) throw notThisPlugin(name);
      response = await storedFile(c, built, ZIP_TYPE);
    } else {
      const skill = await shelf.skill(name);
      response = await computed(c, {
        route: "claude-plugin",
        args: { name, digest },
        contentType: ZIP_TYPE,
        build: async () => {
          const bytes = await derivedPluginBytes(c, skill);
          if ((await sha256Hex(bytes)) !== digest) throw notThisPlugin(name);
          return bytes;
        },
      });
    }
    if (response.status === 200 || response.status === 206)
      response.headers.set("Content-Disposition", `attachment; filename="${name}-${digest.slice(0, 12)}.zip"`);
    return response;
  });
  return routes;
}
