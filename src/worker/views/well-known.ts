// Well-known discovery: the RFC's v0.2.0 index, archives and files (/.well-known/agent-skills/…)
// and the legacy v0.1 index with its file lists (/.well-known/skills/…). Thin views over the
// shelf service; SHELF_DISCOVERY can switch either family off.
import { Hono } from "hono";
import { sha256Hex } from "../../core/skill/hash.ts";
import { etagFor } from "../http/conditional.ts";
import { GZIP_TYPE, MARKDOWN_TYPE, ZIP_TYPE } from "../http/content-type.ts";
import { ShelfError } from "../errors.ts";
import { notFound } from "../http/errors.ts";
import { keysDocument, SigningConfigError } from "../shelf/signing.ts";
import { generated, storedFile, type ReadEnv } from "../read/context.ts";
import { discoveryIndexV1, discoveryIndexV2 } from "../read/indexes.ts";
import { getCached } from "../read/policy.ts";

/** The two well-known families a shelf can serve. */
export type DiscoveryFamily = "v0.1" | "v0.2";

/**
 * True when SHELF_DISCOVERY serves `family`: unset or "all" serves both; otherwise a comma
 * list of the families to serve ("v0.2", "v0.1").
 */
export function discoveryEnabled(setting: string | undefined, family: DiscoveryFamily): boolean {
  if (setting === undefined || setting.trim() === "" || setting.trim() === "all") return true;
  return setting
    .split(",")
    .map((s) => s.trim())
    .includes(family);
}

/**
 * The well-known routes of both families. Mount inside the read surface, behind read access and
 * openShelf (the surface also answers 404 for a family SHELF_DISCOVERY turns off).
 * @example surface.route("/", wellKnownRoutes())
 */
export function wellKnownRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();

  // --- v0.2.0 ------------------------------------------------------------------------------
  getCached(routes, "/.well-known/agent-skills/index.json", "generated", async (c) => {
    const shelf = c.get("shelf");
    const generation = await shelf.generation();
    // The ETag names the signatures by their document's digest, read from the small generation
    // signature; the body reads the signature shards its skills span.
    const signing = await shelf.signing();
    const etag = etagFor(`v2-${generation.id}-${generation.advisoriesSeq}-${signing?.sha256 ?? "unsigned"}`);
    // Its URLs carry the caller's access prefix, so each prefix has its own copy of the bytes.
    const prefix = c.get("shelfAccess").urlPrefix;
    return generated(
      c,
      etag,
      async () => {
        const skills = await shelf.skills();
        const signatures = await shelf.skillSignatures(
          signing,
          skills.map((s) => s.name),
        );
        return discoveryIndexV2(skills, generation.id, prefix, (name) => signatures.get(name) ?? null, await shelf.lifecycle());
      },
      { variant: prefix, shelfWide: true },
    );
  });

  getCached(routes, "/.well-known/agent-skills/:leaf", "stored", async (c) => {
    const leaf = c.req.param("leaf");
    if (leaf.endsWith(".tar.gz")) return storedFile(c, await c.get("shelf").archive(leaf.slice(0, -".tar.gz".length), "tar.gz"), GZIP_TYPE);
    if (leaf.endsWith(".zip")) return storedFile(c, await c.get("shelf").archive(leaf.slice(0, -".zip".length), "zip"), ZIP_TYPE);
    throw notFound();
  });

  getCached(routes, "/.well-known/agent-skills/:name/:path{.+}", "stored", async (c) => {
    const path = c.req.param("path");
    return storedFile(c, await c.get("shelf").file(c.req.param("name"), path), path === "SKILL.md" ? MARKDOWN_TYPE : undefined);
  });

  // --- the shelf's signing keys (docs/signing.md) -------------------------------------------
  // Configuration, not generation data: the same under every prefix, behind the same read access.
  getCached(routes, "/.well-known/skillshelf/keys.json", "generated", async (c) => {
    let keys: ReturnType<typeof keysDocument>;
    try {
      keys = keysDocument(c.env);
    } catch (error) {
      if (!(error instanceof SigningConfigError)) throw error;
      console.error("signing configuration invalid", error);
      throw new ShelfError(
        "signing_misconfigured",
        500,
        "The shelf's signing configuration is invalid; its operator has to fix the SHELF_SIGNING_* variables.",
      );
    }
    if (!keys) throw notFound();
    const digest = (await sha256Hex(JSON.stringify(keys))).slice(0, 32);
    return generated(c, etagFor(`keys-${digest}`), async () => keys);
  });

  // --- v0.1 (legacy) -----------------------------------------------------------------------
  getCached(routes, "/.well-known/skills/index.json", "generated", async (c) => {
    const generation = await c.get("shelf").generation();
    // Every skill's file list rides in its shard entry, so this reads shards only (like the
    // other indexes); it holds no URL, so one copy serves every prefix.
    return generated(c, etagFor(`v1-${generation.id}-${generation.advisoriesSeq}`), async () => discoveryIndexV1(await c.get("shelf").skills()), {
      shelfWide: true,
    });
  });

  getCached(routes, "/.well-known/skills/:name/:path{.+}", "stored", async (c) =>
    storedFile(c, await c.get("shelf").file(c.req.param("name"), c.req.param("path"))),
  );

  return routes;
}
