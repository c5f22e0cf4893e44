// The ClawHub v1 read API (/api/v1/…), so the `clawhub` CLI and OpenClaw search, install, update
// and inspect a shelf's skills; a thin view over the shelf service, its search index and version
// index, mounted in the read surface (read access, /c/<token>/ and /g/<generation>/ included).
// Errors are plain text, which the CLI prints as they are. Publishing is `skillshelf publish`'s:
// every other method answers 405. docs/clients.md says what each route answers and why.
import { Hono } from "hono";
import {
  CLAWHUB_API_BASE,
  CLAWHUB_DEFAULT_LIMIT,
  CLAWHUB_DISCOVERY_PATH,
  CLAWHUB_MAX_LIMIT,
  CLAWHUB_RESOLVE_MAX_VERSIONS,
  clawhubFingerprint,
  clawhubLifecycle,
  clawhubVersion,
} from "../../../core/api/clawhub.ts";
import { lifecycleOf, type Lifecycle } from "../../../core/changes/lifecycle.ts";
import { parseQuery, SearchQueryTooLongError, type SearchQuery } from "../../../core/search/bm25.ts";
import { isSha256Hex } from "../../../core/skill/hash.ts";
import { matching } from "../../../core/versions/resolve.ts";
import { shelfVisibility } from "../../auth/read-access.ts";
import { classify, ShelfError } from "../../errors.ts";
import { ZIP_TYPE } from "../../http/content-type.ts";
import { applySecurityHeaders, cacheControlFor, NO_STORE } from "../../http/headers.ts";
import { storedFile, type ReadContext, type ReadEnv } from "../../read/context.ts";
import { getCached } from "../../read/policy.ts";
import { computedJson } from "../../read/respond.ts";
import { NotOnShelfError, SkillBlockedError } from "../../shelf/errors.ts";
import { searchShelf } from "../../shelf/search.ts";
import { epochMs, moderationOf, openVersion, pickVersion, skillVersions, versionJson, type SkillVersions } from "./versions.ts";

const BASE = CLAWHUB_API_BASE;

/** The handle `whoami` gives a read token: a shelf has readers, not accounts. */
export const READER_HANDLE = "shelf-reader";

/** What a client is told when it tries to publish here. */
const PUBLISH_ELSEWHERE =
  "This shelf is read-only through the ClawHub API: publish with `skillshelf publish` (docs/deploy.md), which builds, hashes and signs the whole shelf.";

/** A 400 with a plain sentence. */
function badRequest(detail: string): ShelfError {
  return new ShelfError("invalid_parameter", 400, detail);
}

/** A required query parameter. */
function required(c: ReadContext, name: string): string {
  const value = c.req.query(name);
  if (value === undefined || value.trim() === "") throw badRequest(`The ${name} query parameter is required.`);
  return value.trim();
}

/** `limit`: 1 to CLAWHUB_MAX_LIMIT, CLAWHUB_DEFAULT_LIMIT when absent. */
function limitOf(c: ReadContext): number {
  const raw = c.req.query("limit");
  if (raw === undefined || raw === "") return CLAWHUB_DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > CLAWHUB_MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${CLAWHUB_MAX_LIMIT}.`);
  return n;
}

/** Who the answers name as the skills' owner: the shelf's host (with no handle, so the CLI adds no ownerHandle). */
function ownerOf(c: ReadContext) {
  return { handle: null, displayName: new URL(c.req.url).host, image: null };
}

/** The skill part of the detail and list answers (a deprecation from the generation's lifecycle.yaml said in its names and summary). */
function skillJson(s: SkillVersions, lifecycle: Lifecycle | null) {
  const created = Math.min(...s.versions.map((v) => epochMs(v.first_published_at)));
  const updated = Math.max(...s.versions.map((v) => epochMs(v.published_at)));
  return {
    slug: s.name,
    ...clawhubLifecycle(s.name, s.skill.description, lifecycleOf(lifecycle, s.name)),
    tags: { latest: clawhubVersion(s.latest) },
    stats: {},
    createdAt: created,
    updatedAt: updated,
  };
}

/**
 * The view's onError: plain text, which the CLI shows as it is. A skill that is absent or
 * blocked is "Skill not found" alike (blocked skills are absent here; the CLI words that answer
 * as "Skill not found or unavailable to this account.").
 */
function clawhubError(err: Error): Response {
  const error = classify(err);
  const absent = error instanceof SkillBlockedError || (error instanceof NotOnShelfError && error.kind === "skill");
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": NO_STORE, ...error.headers });
  applySecurityHeaders(headers);
  return new Response(absent ? "Skill not found" : error.detail, { status: absent ? 404 : error.status, headers });
}

/** The search query, or a 400. */
function queryOf(c: ReadContext): SearchQuery {
  try {
    return parseQuery(required(c, "q"));
  } catch (err) {
    if (err instanceof SearchQueryTooLongError) throw badRequest(`q: ${err.message}`);
    throw err;
  }
}

/**
 * The discovery document, at the host root only (the CLI never looks anywhere else), answered
 * without read access even on a private shelf: it names nothing but this origin, and a CLI that
 * cannot discover the shelf falls back to its cached registry or to clawhub.ai, where
 * `clawhub login --site <shelf> --token <read token>` would send the read token.
 * @example reads.route("/", clawhubDiscoveryRoutes())
 */
export function clawhubDiscoveryRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();
  routes.get(CLAWHUB_DISCOVERY_PATH, (c) => {
    const origin = new URL(c.req.url).origin;
    const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": cacheControlFor("path", shelfVisibility(c.env)) });
    applySecurityHeaders(headers);
    return new Response(c.req.method === "HEAD" ? null : JSON.stringify({ apiBase: origin, registry: origin }), { headers });
  });
  return routes;
}

/**
 * The ClawHub read routes (paths include /api/v1). Mount inside the read surface, behind read
 * access and the shelf service.
 * @example surface.route("/", clawhubRoutes())
 */
export function clawhubRoutes(): Hono<ReadEnv> {
  const routes = new Hono<ReadEnv>();
  routes.onError(clawhubError);

  getCached(routes, `${BASE}/search`, "generated", async (c) => {
    const query = queryOf(c);
    const limit = limitOf(c);
    const exact = c.req.query("mode") === "exact";
    const shelf = c.get("shelf");
    const index = await shelf.versions([]);
    const owner = ownerOf(c);
    return computedJson(
      c,
      "clawhub-search",
      { q: query.text, limit, exact, owner: owner.displayName, index: index.index.seq, current: index.generation },
      async () => {
        const ranked = exact
          ? (await shelf.skills()).filter((s) => s.name === query.text).map((skill) => ({ skill, score: 1 }))
          : await searchShelf(shelf, query, limit);
        const [view, lifecycle] = await Promise.all([shelf.versions(ranked.map((r) => r.skill.name)), shelf.lifecycle()]);
        return {
          results: ranked.map(({ skill, score }) => {
            const latest = matching(
              (view.versions.get(skill.name) ?? []).filter((v) => v.blocked === null),
              { kind: "latest" },
            )[0];
            return {
              slug: skill.name,
              ...clawhubLifecycle(skill.name, skill.description, lifecycleOf(lifecycle, skill.name)),
              version: latest ? clawhubVersion(latest) : null,
              score: Math.round(score * 1e4) / 1e4,
              ...(latest ? { updatedAt: epochMs(latest.published_at) } : {}),
              owner,
            };
          }),
        };
      },
    );
  });

  getCached(routes, `${BASE}/skills`, "generated", async (c) => {
    const prefix = c.req.query("prefix")?.trim() ?? "";
    const cursor = c.req.query("cursor")?.trim() ?? "";
    const limit = limitOf(c);
    const shelf = c.get("shelf");
    const index = await shelf.versions([]);
    return computedJson(
      c,
      "clawhub-skills",
      { prefix, cursor, limit, index: index.index.seq, current: index.generation },
      async () => {
        const all = (await shelf.skills()).filter((s) => s.name.startsWith(prefix) && (cursor === "" || s.name > cursor));
        const page = all.slice(0, limit);
        const lifecycle = await shelf.lifecycle();
        const items = [];
        for (const skill of page) {
          const s = await skillVersions(c, skill.name);
          items.push({ ...skillJson(s, lifecycle), latestVersion: versionJson(s.latest) });
        }
        return { items, nextCursor: all.length > limit ? page.at(-1)!.name : null };
      },
      { shelfWide: true },
    );
  });

  getCached(routes, `${BASE}/skills/:slug`, "generated", async (c) => {
    const s = await skillVersions(c, c.req.param("slug"));
    const owner = ownerOf(c);
    return computedJson(c, "clawhub-skill", { name: s.name, owner: owner.displayName, ...s.key }, async () => ({
      skill: skillJson(s, await c.get("shelf").lifecycle()),
      latestVersion: versionJson(s.latest),
      owner,
      moderation: moderationOf(s.latest),
    }));
  });

  getCached(routes, `${BASE}/skills/:slug/versions`, "generated", async (c) => {
    const s = await skillVersions(c, c.req.param("slug"));
    const limit = limitOf(c);
    const cursor = c.req.query("cursor") ?? "";
    const start = cursor === "" ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0) throw badRequest("cursor must be a nextCursor this route answered.");
    return computedJson(c, "clawhub-versions", { name: s.name, limit, start, ...s.key }, async () => {
      const page = s.versions.slice(start, start + limit);
      return { items: page.map(versionJson), nextCursor: start + limit < s.versions.length ? String(start + limit) : null };
    });
  });

  getCached(routes, `${BASE}/skills/:slug/versions/:version`, "generated", async (c) => {
    const s = await skillVersions(c, c.req.param("slug"));
    const v = pickVersion(s, c.req.param("version"), undefined);
    return computedJson(c, "clawhub-version", { name: s.name, tree: v.tree_hash, ...s.key }, async () => {
      const { record } = (await openVersion(c, s, v)).found;
      return {
        version: {
          ...versionJson(v),
          files: record.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, contentType: f.media_type })),
        },
        skill: { slug: s.name, displayName: s.name },
      };
    });
  });

  getCached(routes, `${BASE}/skills/:slug/file`, "generated", async (c) => {
    const s = await skillVersions(c, c.req.param("slug"));
    const path = required(c, "path");
    const v = pickVersion(s, c.req.query("version"), c.req.query("tag"));
    const opened = await openVersion(c, s, v);
    return storedFile(c, await opened.shelf.file(s.name, path));
  });

  getCached(routes, `${BASE}/download`, "generated", async (c) => {
    const s = await skillVersions(c, required(c, "slug"));
    const v = pickVersion(s, c.req.query("version"), c.req.query("tag"));
    const opened = await openVersion(c, s, v);
    const response = await storedFile(c, await opened.shelf.archive(s.name, "zip"), ZIP_TYPE);
    response.headers.set("Content-Disposition", `attachment; filename="${s.name}-${clawhubVersion(v)}.zip"`);
    return response;
  });

  getCached(routes, `${BASE}/resolve`, "generated", async (c) => {
    const s = await skillVersions(c, required(c, "slug"));
    const hash = required(c, "hash").toLowerCase();
    if (!isSha256Hex(hash)) throw badRequest("hash must be a folder fingerprint: 64 hexadecimal characters.");
    return computedJson(c, "clawhub-resolve", { name: s.name, hash, ...s.key }, async () => {
      let match: { version: string } | null = null;
      for (const v of s.versions.slice(0, CLAWHUB_RESOLVE_MAX_VERSIONS)) {
        const { record } = (await openVersion(c, s, v)).found;
        if ((await clawhubFingerprint(record.files)) === hash) {
          match = { version: clawhubVersion(v) };
          break;
        }
      }
      return { slug: s.name, match, latestVersion: { version: clawhubVersion(s.latest) } };
    });
  });

  routes.get(`${BASE}/whoami`, (c) => {
    if (c.get("shelfAccess").visibility === "public")
      throw new ShelfError("unauthorized", 401, "This shelf is public: it needs no login. Run clawhub without `login` (and without a token).");
    const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": NO_STORE });
    const host = new URL(c.req.url).host;
    return new Response(JSON.stringify({ user: { handle: READER_HANDLE, displayName: `Read token for ${host}`, image: null, role: null } }), { headers });
  });

  routes.all(`${BASE}/*`, (c) => {
    if (c.req.method === "GET" || c.req.method === "HEAD")
      // The path is not echoed: under /c/<token>/ it holds the read token.
      throw new ShelfError("not_found", 404, "This shelf serves ClawHub's read routes only: search, skills, versions, file, download, resolve and whoami.");
    throw new ShelfError("method_not_allowed", 405, PUBLISH_ELSEWHERE, { headers: { Allow: "GET, HEAD" } });
  });
  return routes;
}
