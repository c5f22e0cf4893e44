// GET /v1/catalog and GET /v1/fast-path: the core's catalog and fast path over the servable
// skills (blocked ones are absent, as everywhere at the edge). xml and markdown are the bytes
// `skillshelf catalog` prints for the same arguments on the same shelf; json lists the entries
// the xml catalog shows. Both answers are computed once per generation, advisories and argument
// set, then served from isolate memory (src/worker/read/respond.ts).
import { CATALOG_API, CATALOG_MEDIA_TYPES, type CatalogApiFormat, type CatalogJson, type FastPathJson } from "../../../core/api/catalog.ts";
import { booleanValue, splitList } from "../../../core/api/contract.ts";
import { CATALOG_KEPT_QUERIES } from "../../../core/api/listings.ts";
import { CatalogError, catalogEntryData, catalogSelection, renderCatalog, type CatalogOptions, type CatalogSkill } from "../../../core/disclosure/catalog.ts";
import { DEFAULT_FAST_PATH_MAX_TOKENS, resolveFastPath } from "../../../core/disclosure/fast-path.ts";
import { compareCodePoints } from "../../../core/python-compat/py-text.ts";
import type { ServedSkill } from "../../shelf/service.ts";
import { problem, refuseUnknownIncludes } from "./problem.ts";
import { computed, computedJson } from "../../read/respond.ts";
import { bindRoute, queryOf, type ApiApp } from "./routes.ts";

/** A catalog request with its defaults applied and its lists sorted and deduplicated, so equal requests share one cache key. */
export interface CatalogArgs {
  format: CatalogApiFormat;
  /** null: no tag filter; []: keeps none (as the CLI's `--tags ""`). */
  tags: string[] | null;
  include: string[] | null;
  exclude: string[] | null;
  max_chars: number | null;
  selection_hints: boolean;
  total: number | null;
}

/** A list parameter as a sorted set; null when the parameter is absent (which differs from empty). */
function normalizedList(value: string | undefined): string[] | null {
  return value === undefined ? null : [...new Set(splitList(value))].sort(compareCodePoints);
}

/**
 * The normalized arguments of a validated catalog query.
 * @example catalogArgs({ include: "b,a,b" }).include // => ["a", "b"]
 */
export function catalogArgs(query: {
  format?: CatalogApiFormat | undefined;
  tags?: string | undefined;
  include?: string | undefined;
  exclude?: string | undefined;
  max_chars?: string | undefined;
  selection_hints?: string | undefined;
  total?: string | undefined;
}): CatalogArgs {
  return {
    format: query.format ?? "xml",
    tags: normalizedList(query.tags),
    include: normalizedList(query.include),
    exclude: normalizedList(query.exclude),
    max_chars: query.max_chars === undefined ? null : Number(query.max_chars),
    selection_hints: booleanValue(query.selection_hints, true),
    total: query.total === undefined ? null : Number(query.total),
  };
}

/** The core's options for normalized arguments; json is fitted as the xml catalog is. */
function catalogOptions(args: CatalogArgs): CatalogOptions {
  return {
    format: args.format === "markdown" ? "markdown" : "xml",
    ...(args.tags !== null ? { tags: args.tags } : {}),
    ...(args.include !== null ? { include: args.include } : {}),
    ...(args.exclude !== null ? { exclude: args.exclude } : {}),
    ...(args.max_chars !== null ? { maxChars: args.max_chars } : {}),
    ...(args.total !== null ? { total: args.total } : {}),
    selectionHints: args.selection_hints,
  };
}

/**
 * The catalog of `served` skills for normalized arguments: the xml or markdown text, or the
 * structured form. An `include` naming a skill not served (absent, or blocked by an advisory in
 * force) is a not_found problem listing those names; a `max_chars` below even the empty catalog
 * is unprocessable.
 * @example buildCatalog(await shelf.skills(), catalogArgs({ format: "markdown", max_chars: "4000" }))
 */
export function buildCatalog(served: readonly ServedSkill[], args: CatalogArgs): string | CatalogJson {
  // A served entry is catalog input as it is (its null version is "none"): no copy of 1,000 entries.
  const skills: readonly CatalogSkill[] = served;
  refuseUnknownIncludes(served, args.include);
  const options = catalogOptions(args);
  try {
    if (args.format !== "json") return renderCatalog(skills, options);
    const selection = catalogSelection(skills, options);
    return {
      skills: selection.skills.map((s) => catalogEntryData(s, args.selection_hints)),
      shown: selection.shown,
      total: selection.total,
      truncated: selection.truncated,
    };
  } catch (error) {
    if (error instanceof CatalogError && error.kind === "max-chars") throw problem("unprocessable", error.message, { param: "max_chars" });
    throw error;
  }
}

/**
 * The fast path over `names` (the servable skills), loading at most the one candidate's body.
 * @example await fastPathOf(["solo"], (name) => shelf.body(name), { include: null, max_tokens: 300 })
 */
export async function fastPathOf(
  names: readonly string[],
  loadBody: (name: string) => Promise<string>,
  args: { include: string[] | null; max_tokens: number },
): Promise<FastPathJson> {
  const decision = await resolveFastPath(names, loadBody, { ...(args.include !== null ? { include: args.include } : {}), maxTokens: args.max_tokens });
  if (decision.fastPath === undefined) return { applies: false, reason: decision.reason };
  const { skill_id, tokens, prompt } = decision.fastPath;
  return { applies: true, skill_id, tokens, prompt };
}

/** Binds the catalog group: GET /v1/catalog and GET /v1/fast-path. */
export function catalogRoutes(app: ApiApp): void {
  bindRoute(app, CATALOG_API.catalog, async (c) => {
    const args = catalogArgs(queryOf(c, CATALOG_API.catalog));
    return computed(c, {
      route: "catalog",
      args: { ...args },
      shelfWide: true,
      keptQueries: CATALOG_KEPT_QUERIES,
      contentType: CATALOG_MEDIA_TYPES[args.format],
      build: async () => {
        const built = buildCatalog(await c.get("shelf").skills(), args);
        return typeof built === "string" ? built : JSON.stringify(built);
      },
    });
  });

  bindRoute(app, CATALOG_API.fastPath, async (c) => {
    const query = queryOf(c, CATALOG_API.fastPath);
    const args = {
      include: normalizedList(query.include),
      max_tokens: query.max_tokens === undefined ? DEFAULT_FAST_PATH_MAX_TOKENS : Number(query.max_tokens),
    };
    return computedJson(
      c,
      "fast-path",
      args,
      async () => {
        const names = (await c.get("shelf").skills()).map((s) => s.name);
        return fastPathOf(names, (name) => c.get("shelf").body(name), args);
      },
      { shelfWide: true },
    );
  });
}
