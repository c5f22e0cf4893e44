// The versions group of /v1 (issue 17): a skill's versions from the version index, one version
// resolved by a range and answered as its record with every URL pinned to its generation, and
// many resolved at once for a lockfile. Each answer is keyed by the index's seq and the current
// generation too (the index is shelf-wide, even under a pinned /g/<id>/ prefix).
import { API_BASE, type ApiErrorCode } from "../../../core/api/contract.ts";
import { MAX_RESOLVE_BODY_BYTES, VERSIONS_API, type ResolveBody } from "../../../core/api/versions.ts";
import { InvalidRangeError, newestFirst, parseSelector, type VersionSelector } from "../../../core/versions/resolve.ts";
import { compareCodePoints } from "../../../core/python-compat/py-text.ts";
import type { MiddlewareHandler } from "hono";
import { cachePolicy } from "../../read/policy.ts";
import { immutableArchiveUrl } from "../../read/urls.ts";
import { NotOnShelfError, SkillBlockedError } from "../../shelf/errors.ts";
import type { ShelfService } from "../../shelf/service.ts";
import { recordTrustInputs, skillTrust } from "../../shelf/trust.ts";
import { describeVersion, NoMatchingVersionError, type JudgedVersion, type ResolvedVersion } from "../../shelf/versions.ts";
import { jsonBody } from "./body.ts";
import { invalidParameter, problem } from "./problem.ts";
import { computedJson } from "../../read/respond.ts";
import { bindRoute, bodyOf, paramsOf, type ApiApp, type ApiContext } from "./routes.ts";
import { skillDetail } from "./skill-views.ts";

/** A range from a path or query parameter, or the invalid_parameter problem naming it. */
function selectorOf(param: string, range: string): VersionSelector {
  try {
    return parseSelector(range);
  } catch (error) {
    if (error instanceof InvalidRangeError) throw invalidParameter(param, error.message);
    throw error;
  }
}

/** URL path segments, each percent-encoded. */
function encodedPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** The 404 of a range nothing matches: the versions that exist, newest first. */
function noMatch(error: NoMatchingVersionError, param: string) {
  return problem("not_found", error.message, { param, skill: error.skill, versions: error.available.map(describeVersion) });
}

/** One version as the list shows it: its pinned URLs and its verdict now. */
function versionSummary(prefix: string, name: string, v: JudgedVersion) {
  const pinned = `${prefix}/g/${v.generation}`;
  return {
    version: v.version,
    tree_hash: v.tree_hash,
    generation: v.generation,
    published_at: v.published_at,
    first_generation: v.first_generation,
    first_published_at: v.first_published_at,
    current: v.current,
    trust: { status: v.blocked ? "blocked" : v.requiresReview ? "requires_review" : "ok", advisory: v.blocked },
    links: {
      self: `${prefix}${API_BASE}/skills/${name}/versions/sha256:${v.tree_hash}`,
      skill_md: `${pinned}/skills/${name}/SKILL.md`,
      archives: { tar_gz: immutableArchiveUrl(prefix, v.generation, name, "tar.gz"), zip: immutableArchiveUrl(prefix, v.generation, name, "zip") },
    },
  };
}

/** The resolved version's record, as GET /v1/skills/{name} answers it, with every URL pinned to its generation. */
async function pinnedDetail(prefix: string, resolved: ResolvedVersion<ShelfService>) {
  const { skill, record } = resolved.found;
  const generation = await resolved.shelf.generation();
  // The signature that generation was published with, as /g/<id>/v1/skills/{name} serves it.
  const signature = (await resolved.shelf.skillSignature(skill.name))?.signature ?? null;
  const detail = skillDetail(
    { prefix, generation: generation.id },
    skill,
    record,
    skillTrust(generation.advisories, skill, recordTrustInputs(record)),
    signature,
  );
  const self = `${prefix}/g/${generation.id}${API_BASE}/skills/${skill.name}`;
  const pin = <T extends { url: string; pinned_url: string }>(link: T): T => ({ ...link, url: link.pinned_url });
  return {
    ...detail,
    links: {
      ...detail.links,
      self,
      skill_md: pin(detail.links.skill_md),
      archives: { tar_gz: pin(detail.links.archives.tar_gz), zip: pin(detail.links.archives.zip) },
      body: `${self}/body`,
      outline: `${self}/outline`,
      resources: `${self}/resources`,
    },
  };
}

/**
 * Answers one skill at a range: GET /v1/skills/{name}/versions/{range}, and GET
 * /v1/skills/{name}?version=<range> (skills.ts calls this), whose `param` names the parameter.
 * @example return resolvedSkillAnswer(c, name, range, "version")
 */
export async function resolvedSkillAnswer(c: ApiContext, name: string, range: string, param: "range" | "version"): Promise<Response> {
  const selector = selectorOf(param, range);
  const view = await c.get("shelf").versions([name]);
  const prefix = c.get("shelfAccess").urlPrefix;
  return computedJson(
    c,
    "skill-version",
    { name, selector, index: view.index.seq, current: view.generation },
    async () => {
      try {
        return await pinnedDetail(prefix, await c.get("shelf").resolve(view.versions.get(name) ?? [], name, range, selector));
      } catch (error) {
        if (error instanceof NoMatchingVersionError) throw noMatch(error, param);
        throw error;
      }
    },
    { links: true },
  );
}

/** Why one skill of a resolve request did not resolve. */
interface Unresolved {
  name: string;
  range: string;
  reason: "not_on_shelf" | "no_match" | "blocked" | "invalid_range";
  versions?: string[];
  advisory?: unknown;
}

/** POST /v1/resolve: every skill resolved, or one problem listing each that was not. */
async function resolveAll(c: ApiContext, body: ResolveBody) {
  const names = Object.keys(body.skills).sort(compareCodePoints);
  const prefix = c.get("shelfAccess").urlPrefix;
  const view = await c.get("shelf").versions(names);
  const skills: Record<string, unknown> = {};
  const unresolved: Unresolved[] = [];
  let code: ApiErrorCode = "not_found";
  for (const name of names) {
    const range = body.skills[name]!;
    let selector: VersionSelector;
    try {
      selector = parseSelector(range);
    } catch (error) {
      if (!(error instanceof InvalidRangeError)) throw error;
      unresolved.push({ name, range, reason: "invalid_range" });
      code = "unprocessable";
      continue;
    }
    const versions = view.versions.get(name) ?? [];
    try {
      const resolved = await c.get("shelf").resolve(versions, name, range, selector);
      const { skill, record } = resolved.found;
      const generation = resolved.version.generation;
      const pinned = `${prefix}/g/${generation}`;
      skills[name] = {
        range,
        version: record.version,
        tree_hash: record.tree_hash,
        generation,
        published_at: resolved.version.published_at,
        requires_review: skill.trust.requires_review,
        skill_md: `${pinned}/skills/${name}/SKILL.md`,
        archives: {
          tar_gz: { url: immutableArchiveUrl(prefix, generation, name, "tar.gz"), ...record.archives.tar_gz },
          zip: { url: immutableArchiveUrl(prefix, generation, name, "zip"), ...record.archives.zip },
        },
        files: record.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, url: `${pinned}/skills/${name}/${encodedPath(f.path)}` })),
      };
    } catch (error) {
      if (error instanceof NotOnShelfError) unresolved.push({ name, range, reason: "not_on_shelf" });
      else if (error instanceof NoMatchingVersionError) unresolved.push({ name, range, reason: "no_match", versions: versions.map(describeVersion) });
      else if (error instanceof SkillBlockedError) unresolved.push({ name, range, reason: "blocked", advisory: error.advisory });
      else throw error;
    }
  }
  if (unresolved.length) {
    const list = unresolved.map((u) => `${u.name}@${u.range} (${u.reason.replaceAll("_", " ")})`).join(", ");
    throw problem(code, `${unresolved.length} of ${names.length} skill(s) did not resolve: ${list}.`, {
      param: code === "unprocessable" ? `skills.${unresolved.find((u) => u.reason === "invalid_range")!.name}` : "skills",
      unresolved,
    });
  }
  return { generation: view.generation, skills };
}

/**
 * Binds the versions group.
 * @example versionRoutes(app)
 */
export function versionRoutes(app: ApiApp): void {
  bindRoute(app, VERSIONS_API.versions, async (c) => {
    const { name } = paramsOf(c, VERSIONS_API.versions);
    const view = await c.get("shelf").versions([name]);
    const versions = view.versions.get(name) ?? [];
    if (versions.length === 0) throw problem("not_found", `Skill '${name}' has no version in a retained generation of this shelf.`, { param: "name" });
    const prefix = c.get("shelfAccess").urlPrefix;
    return computedJson(
      c,
      "skill-versions",
      { name, index: view.index.seq, current: view.generation },
      async () => ({
        skill: name,
        generation: (await c.get("shelf").generation()).id,
        index: view.index,
        versions: [...versions].sort(newestFirst).map((v) => versionSummary(prefix, name, v)),
      }),
      { links: true },
    );
  });

  bindRoute(app, VERSIONS_API.version, async (c) => {
    const { name, range } = paramsOf(c, VERSIONS_API.version);
    return resolvedSkillAnswer(c, name, range, "range");
  });

  // The answer depends on the request body, which no shared cache keys on: never stored downstream.
  app.use(`${API_BASE}${VERSIONS_API.resolve.path}`, cachePolicy("never") as MiddlewareHandler);
  bindRoute(
    app,
    VERSIONS_API.resolve,
    async (c) => {
      const body = bodyOf(c, VERSIONS_API.resolve);
      const view = await c.get("shelf").versions([]);
      const skills = Object.fromEntries(Object.entries(body.skills).sort(([a], [b]) => compareCodePoints(a, b)));
      return computedJson(c, "resolve", { skills, index: view.index.seq, current: view.generation }, () => resolveAll(c, { skills }), {
        links: true,
      });
    },
    [jsonBody(MAX_RESOLVE_BODY_BYTES)],
  );
}
