// The read surface of a shelf: the agentskills-http static layout (/skills/…), well-known
// discovery v0.2.0 (/.well-known/agent-skills/…) and v0.1 (/.well-known/skills/…), and /v1/shelf,
// each readable at the current generation and, immutably, at /g/<generation>/…; all behind
// readAccess, and all mountable under a capability prefix. Handlers are thin: lookups go through
// the manifest (request paths never become storage keys), bytes through serveFile.
import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { SkillEntry } from "../../core/generation/manifest.ts";
import { readAccess, shelfVisibility, type ReadAccessEnv, type ReadAccessVariables } from "../auth/read-access.ts";
import { etagFor, ifNoneMatchMatches } from "../http/conditional.ts";
import { GZIP_TYPE, MARKDOWN_TYPE, ZIP_TYPE } from "../http/content-type.ts";
import { httpError, notFound, storageUnavailable } from "../http/errors.ts";
import { serveFile, serveJson, type ServedFile } from "../http/file-response.ts";
import { preflightResponse, type CacheKind } from "../http/headers.ts";
import { isPlausibleFilePath, isPlausibleSkillName, isSha256Hex } from "../http/paths.ts";
import { discoveryIndexV1, discoveryIndexV2, staticRootIndex, staticSkillIndex } from "./indexes.ts";
import type { OpenShelfView, ShelfView } from "./shelf-view.ts";
import type { EdgeTrust } from "./edge-trust.ts";

/**
 * True when SHELF_DISCOVERY serves `family`: unset or "all" serves both; otherwise a comma
 * list of the families to serve ("v0.2", "v0.1").
 */
export function discoveryEnabled(setting: string | undefined, family: "v0.1" | "v0.2"): boolean {
  if (setting === undefined || setting.trim() === "" || setting.trim() === "all") return true;
  return setting.split(",").map((s) => s.trim()).includes(family);
}

/** Hono environment of the read routes. */
/** The bindings the read routes consult besides storage. */
export interface ServingBindings extends ReadAccessEnv {
  /** "all" (default), or a comma list of the well-known families to serve: "v0.2", "v0.1". */
  SHELF_DISCOVERY?: string;
}

export type ServingEnv<B extends ServingBindings> = { Bindings: B; Variables: ReadAccessVariables & { shelfView?: ShelfView } };

/** What the read routes are built from. */
export interface ServingOptions<B extends ServingBindings> {
  openView: OpenShelfView<B>;
  trust: EdgeTrust;
}

// Raw (still-encoded) path fragments that are never part of a published URL: encoded
// separators and NULs. Checked on the raw URL because Hono decodes parameters.
const FORBIDDEN_RAW = /%2f|%5c|%00|\\/i;

/**
 * Builds the read router. Mount it at "/" and under "/c/:token" (capability URLs); it mounts
 * its own "/g/:generation" copy for immutable URLs.
 * @example app.route("/", servingRoutes({ openView, trust }))
 */
export function servingRoutes<B extends ServingBindings>(options: ServingOptions<B>): Hono<ServingEnv<B>> {
  const reads = new Hono<ServingEnv<B>>();
  const access = readAccess();
  /** Built v0.1 index bodies by ETag (generation + advisories seq). */
  const legacyIndexCache = new Map<string, string>();

  // SHELF_DISCOVERY turns a well-known family off (404), e.g. "v0.1" to serve legacy clients only.
  for (const [pattern, family] of [["/.well-known/agent-skills/*", "v0.2"], ["/.well-known/skills/*", "v0.1"]] as const) {
    reads.use(pattern, async function discoveryFamilyEnabled(c, next) {
      if (!discoveryEnabled(c.env.SHELF_DISCOVERY, family)) throw notFound();
      return next();
    });
  }

  for (const pattern of ["/skills/*", "/.well-known/agent-skills/*", "/.well-known/skills/*", "/v1/shelf"]) {
    reads.use(pattern, async function rejectEncodedSeparators(c, next) {
      if (FORBIDDEN_RAW.test(new URL(c.req.url).pathname)) throw notFound();
      return next();
    });
    reads.options(pattern, (c) => preflightResponse(shelfVisibility(c.env)));
    reads.use(pattern, access);
  }

  /** The generation this request reads (pinned or current), opened once. */
  async function view(c: Context<ServingEnv<B>>): Promise<ShelfView> {
    const cached = c.get("shelfView");
    if (cached) return cached;
    const pinned = c.req.param("generation" as never) as string | undefined;
    if (pinned !== undefined && !isSha256Hex(pinned)) throw notFound();
    let opened: ShelfView | null;
    try {
      opened = await options.openView(c.env, pinned);
    } catch (err) {
      console.error("opening the shelf failed", err);
      throw storageUnavailable();
    }
    if (!opened) throw notFound(pinned ? `Generation ${pinned}` : "This shelf has nothing published yet, so this path");
    c.set("shelfView", opened);
    return opened;
  }

  function cacheKind(c: Context<ServingEnv<B>>): CacheKind {
    return c.req.param("generation" as never) === undefined ? "path" : "immutable";
  }

  /** Storage calls after the view is open: failures become 503, HTTP errors pass through. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof HTTPException) throw err;
      console.error("shelf read failed", err);
      throw storageUnavailable();
    }
  }

  /** The entry of a servable skill: 404 when absent, 410 naming the advisory when blocked. */
  async function servableEntry(c: Context<ServingEnv<B>>, name: string): Promise<SkillEntry> {
    if (!isPlausibleSkillName(name)) throw notFound(`Skill '${name.slice(0, 80)}'`);
    const v = await view(c);
    const entry = await guarded(() => v.entry(name));
    if (!entry) throw notFound(`Skill '${name}'`);
    const { blocked } = options.trust(v.advisories, entry);
    if (blocked) {
      throw httpError(410, "blocked", `Skill '${name}' is blocked by advisory ${blocked.advisory_id ?? "(unnamed)"} (${blocked.severity}): ${blocked.hidden_issue}. Do not use it.`, {}, { advisory: blocked });
    }
    return entry;
  }

  /**
   * Every servable skill of the generation: blocked ones are absent, and `trust.requires_review`
   * is the edge verdict (the build's, or an advisory in force now).
   */
  async function servableEntries(c: Context<ServingEnv<B>>): Promise<SkillEntry[]> {
    const v = await view(c);
    const entries = await guarded(() => v.entries());
    return entries.flatMap((e) => {
      const verdict = options.trust(v.advisories, e);
      return verdict.blocked ? [] : [{ ...e, trust: { ...e.trust, requires_review: verdict.requiresReview } }];
    });
  }

  /** ETag of a generated index: the generation and the advisories in force decide its bytes. */
  function indexEtag(v: ShelfView, variant: string): string {
    return etagFor(`${variant}-${v.generation}-${v.advisories.seq}`);
  }

  /**
   * Generated bodies depend on the advisories in force, even under /g/<generation>/, so they
   * always get the short, revalidating path policy.
   */
  function json(c: Context<ServingEnv<B>>, body: unknown, etag: string): Response {
    return serveJson(c.req.raw, JSON.stringify(body), etag, { cache: "path", visibility: c.get("shelfAccess").visibility });
  }

  /**
   * A generated body whose ETag is known before it is built: a matching If-None-Match answers
   * 304 before `build` reads any shard or record.
   */
  async function generated(c: Context<ServingEnv<B>>, etag: string, build: () => Promise<unknown>): Promise<Response> {
    if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) return json(c, null, etag);
    return json(c, await build(), etag);
  }

  /** Serves one file of a servable skill, looked up by exact path in its record. */
  async function serveSkillFile(c: Context<ServingEnv<B>>, name: string, path: string, contentType?: string): Promise<Response> {
    if (!isPlausibleFilePath(path)) throw notFound(`File '${path.slice(0, 120)}'`);
    const entry = await servableEntry(c, name);
    const v = await view(c);
    let file: ServedFile;
    if (path === "SKILL.md") {
      // The entry carries SKILL.md's blob, so the hottest file costs no record read.
      file = { path, sha256: entry.skill_md.sha256, size: entry.skill_md.size, mediaType: "text/markdown" };
    } else {
      const record = await guarded(() => v.record(entry));
      const found = record.files.find((f) => f.path === path);
      if (!found) throw notFound(`File '${path}' of skill '${name}'`);
      file = { path, sha256: found.sha256, size: found.size, mediaType: found.media_type };
    }
    return serveFile(c.req.raw, file, (range) => v.openBlob(file.sha256, range), {
      cache: cacheKind(c),
      visibility: c.get("shelfAccess").visibility,
      ...(contentType ? { contentType } : {}),
    });
  }

  /** Serves a skill's archive (`<name>.tar.gz` or `<name>.zip`). */
  async function serveArchive(c: Context<ServingEnv<B>>, name: string, format: "tar.gz" | "zip"): Promise<Response> {
    const entry = await servableEntry(c, name);
    const v = await view(c);
    const ref = format === "tar.gz" ? entry.archives.tar_gz : entry.archives.zip;
    const file: ServedFile = { path: `${name}.${format}`, sha256: ref.sha256, size: ref.size };
    return serveFile(c.req.raw, file, (range) => v.openBlob(ref.sha256, range), {
      cache: cacheKind(c),
      visibility: c.get("shelfAccess").visibility,
      contentType: format === "tar.gz" ? GZIP_TYPE : ZIP_TYPE,
    });
  }

  // --- agentskills-http static layout -------------------------------------------------------
  reads.get("/skills/index.json", async (c) => {
    const v = await view(c);
    return generated(c, indexEtag(v, "static"), async () => staticRootIndex(await servableEntries(c)));
  });
  reads.get("/skills/:name/index.json", async (c) => {
    const entry = await servableEntry(c, c.req.param("name"));
    const v = await view(c);
    // agentskills-http ignores unknown keys, so the review mark rides along. The body depends
    // only on the record (named by the entry) and the review mark, so a 304 needs no record read.
    const review = options.trust(v.advisories, entry).requiresReview;
    return generated(c, etagFor(`skill-${entry.record.sha256}-${review ? "review" : "ok"}`), async () => {
      const record = await guarded(() => v.record(entry));
      return { ...staticSkillIndex(record), ...(review ? { requires_review: true } : {}) };
    });
  });
  reads.get("/skills/:name/:path{.+}", (c) => serveSkillFile(c, c.req.param("name"), c.req.param("path")));

  // --- well-known discovery v0.2.0 -----------------------------------------------------------
  reads.get("/.well-known/agent-skills/index.json", async (c) => {
    const v = await view(c);
    return generated(c, indexEtag(v, "v2"), async () => discoveryIndexV2(await servableEntries(c), v.generation, c.get("shelfAccess").urlPrefix));
  });
  reads.get("/.well-known/agent-skills/:leaf", (c) => {
    const leaf = c.req.param("leaf");
    if (leaf.endsWith(".tar.gz")) return serveArchive(c, leaf.slice(0, -".tar.gz".length), "tar.gz");
    if (leaf.endsWith(".zip")) return serveArchive(c, leaf.slice(0, -".zip".length), "zip");
    throw notFound();
  });
  reads.get("/.well-known/agent-skills/:name/:path{.+}", (c) => {
    const path = c.req.param("path");
    return serveSkillFile(c, c.req.param("name"), path, path === "SKILL.md" ? MARKDOWN_TYPE : undefined);
  });

  // --- well-known discovery v0.1 (legacy) ----------------------------------------------------
  reads.get("/.well-known/skills/index.json", async (c) => {
    const v = await view(c);
    const etag = indexEtag(v, "v1");
    if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) return json(c, null, etag);
    // Every skill's file list rides in its shard entry, so this reads shards only (like the
    // other indexes); the body is kept per isolate by ETag (it does not depend on the prefix).
    let body = legacyIndexCache.get(etag);
    if (body === undefined) {
      body = JSON.stringify(discoveryIndexV1(await servableEntries(c)));
      if (legacyIndexCache.size >= 8) legacyIndexCache.delete(legacyIndexCache.keys().next().value!);
      legacyIndexCache.set(etag, body);
    }
    return serveJson(c.req.raw, body, etag, { cache: "path", visibility: c.get("shelfAccess").visibility });
  });
  reads.get("/.well-known/skills/:name/:path{.+}", (c) => serveSkillFile(c, c.req.param("name"), c.req.param("path")));

  // --- shelf status --------------------------------------------------------------------------
  reads.get("/v1/shelf", async (c) => {
    const v = await view(c);
    // The body also carries published_at (a rollback to the same generation changes it) and the
    // visibility, so the pointer move and both of those are in the ETag too.
    const etag = etagFor(`shelf-${v.generation}-${v.advisories.seq}-${v.pointerSeq ?? "pinned"}-${v.publishedAt ?? "none"}-${c.get("shelfAccess").visibility}`);
    return generated(c, etag, () => shelfStatus(c, v));
  });

  /** The /v1/shelf body: generation, counts, review and blocked lists, advisories in force. */
  async function shelfStatus(c: Context<ServingEnv<B>>, v: ShelfView): Promise<unknown> {
    const entries = await guarded(() => v.entries());
    const verdicts = entries.map((e) => options.trust(v.advisories, e));
    const blocked = entries.flatMap((e, i) => (verdicts[i]!.blocked ? [{ name: e.name, advisory: verdicts[i]!.blocked }] : []));
    const served = entries.flatMap((e, i) => (verdicts[i]!.blocked ? [] : [{ ...e, trust: { ...e.trust, requires_review: verdicts[i]!.requiresReview } }]));
    const body = {
      generation: v.generation,
      published_at: v.publishedAt,
      counts: {
        skills: v.manifest.skill_count,
        served_skills: served.length,
        blocked_skills: blocked.length,
        requires_review: served.filter((e) => e.trust.requires_review).length,
        files: v.manifest.file_count,
        total_bytes: v.manifest.total_bytes,
      },
      requires_review: served.filter((e) => e.trust.requires_review).map((e) => e.name),
      blocked,
      advisories: { seq: v.advisories.seq, in_force: v.advisories.advisories },
      visibility: c.get("shelfAccess").visibility,
    };
    return body;
  }

  const app = new Hono<ServingEnv<B>>();
  app.route("/", reads);
  app.route("/g/:generation", reads);
  return app;
}
