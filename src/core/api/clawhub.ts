// The ClawHub v1 read API as a shelf speaks it (the `clawhub` CLI 0.23.3, docs/clients.md): the
// names its versions get, finding one again, the folder fingerprint the CLI sends to /resolve,
// and the answers' schemas (the Worker's clawhub view builds them; the OpenAPI document lists them).
import semver from "semver";
import { z } from "zod";
import { deprecationNote, type LifecycleStatus } from "../changes/lifecycle.ts";
import { sha256Hex } from "../skill/hash.ts";
import { RAW_RESOURCE_MEDIA_TYPES } from "./skills.ts";

/** Where the ClawHub routes live below a shelf URL (and its /c/<token> and /g/<generation> forms). */
export const CLAWHUB_API_BASE = "/api/v1";
/** The discovery document `clawhub --site <url>` fetches, always at the host root. */
export const CLAWHUB_DISCOVERY_PATH = "/.well-known/clawhub.json";
/** The CLI asks for 25 and clamps what a user asks for to 200 (`explore --limit`); a page is never longer. */
export const CLAWHUB_MAX_LIMIT = 200;
export const CLAWHUB_DEFAULT_LIMIT = 25;
/** At most this many versions are fingerprinted for one /resolve (newest first): each costs a record read. */
export const CLAWHUB_RESOLVE_MAX_VERSIONS = 20;

/** What naming a version needs: its declared version, tree hash, and the pointer seq it was last current at. */
export interface NameableVersion {
  version: string | null;
  tree_hash: string;
  seq: number;
}

// The derived name of a version that is not semver: `0.0.0-<seq>.t<first 12 hex of the tree hash>`.
const DERIVED = /^0\.0\.0-(\d+)\.t([0-9a-f]{12})$/;

/**
 * The version string ClawHub clients see. The CLI compares versions with semver (`update` runs
 * `semver.gte`), so a version that is not semver (or none) gets a derived prerelease of 0.0.0:
 * the seq orders it after older trees, the tree hash finds it again when the seq has moved on.
 * @example clawhubVersion({ version: "1.2.0", tree_hash, seq: 4 }) // => "1.2.0"
 * @example clawhubVersion({ version: null, tree_hash: "ab12…", seq: 4 }) // => "0.0.0-4.tab12cd34ef56"
 */
export function clawhubVersion(v: NameableVersion): string {
  if (v.version !== null && semver.valid(v.version) !== null) return v.version;
  return `0.0.0-${v.seq}.t${v.tree_hash.slice(0, 12)}`;
}

/**
 * The versions a client's version string names, newest (most recently current) first: a derived
 * name by its tree hash prefix (whatever seq it carries now), anything else by semver equality.
 * @example versionsNamed(versions, "1.0.0")[0]?.tree_hash
 */
export function versionsNamed<T extends NameableVersion>(versions: readonly T[], requested: string): T[] {
  const derived = DERIVED.exec(requested);
  const found = derived
    ? versions.filter((v) => clawhubVersion(v) !== v.version && v.tree_hash.startsWith(derived[2]!))
    : semver.valid(requested) === null
      ? []
      : versions.filter((v) => v.version !== null && semver.valid(v.version) !== null && (v.version === requested || semver.eq(v.version, requested)));
  return found.sort((a, b) => b.seq - a.seq);
}

/** True for a path the CLI leaves out of its fingerprint: a segment starting with a dot, or under node_modules. */
function fingerprintSkips(path: string): boolean {
  const segments = path.split("/");
  return segments.some((s) => s.startsWith(".")) || segments.includes("node_modules");
}

/**
 * The CLI's folder fingerprint over a version's files: SHA-256 of `<path>:<sha256>` lines sorted
 * with String.prototype.localeCompare (not byte order: `references/…` sorts before `SKILL.md`),
 * files under a dot segment or node_modules left out as the CLI leaves them out. The CLI also
 * honours a skill's .gitignore and .clawhubignore, which this does not read: such a skill's
 * installed folder may not match here, and the CLI then falls back to its origin.json.
 * @example await clawhubFingerprint([{ path: "SKILL.md", sha256 }])
 */
export function clawhubFingerprint(files: readonly { path: string; sha256: string }[]): Promise<string> {
  const lines = files
    .filter((f) => !fingerprintSkips(f.path))
    .map((f) => ({ path: f.path, sha256: f.sha256 }))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `${f.path}:${f.sha256}`);
  return sha256Hex(lines.join("\n"));
}

// --- the answers, as the CLI validates them (unknown keys are ignored by it) --------------------

/**
 * How ClawHub clients see a skill lifecycle.yaml deprecates. The clawhub CLI 0.23.3 reads no
 * deprecation field, so it is said where the CLI prints text: the display name (`search` and
 * `inspect` print it) gets " (deprecated)" and the summary (`explore` and `inspect`) starts with the
 * deprecation and its replacement. `deprecation` carries the same for other clients.
 * @example clawhubLifecycle("old-review", "Reviews code.", { deprecated: "superseded", replaced_by: "code-review" }).displayName // "old-review (deprecated)"
 */
export function clawhubLifecycle(
  name: string,
  description: string,
  status: LifecycleStatus,
): { displayName: string; summary: string; deprecation?: { reason: string; replacedBy: string | null } } {
  const note = deprecationNote(status);
  if (note === null) return { displayName: name, summary: description };
  return {
    displayName: `${name} (deprecated)`,
    summary: `${note} ${description}`,
    deprecation: { reason: status.deprecated!, replacedBy: status.replaced_by },
  };
}

const DeprecationSchema = z
  .object({
    reason: z.string().describe("Why the shelf deprecated the skill (lifecycle.yaml)"),
    replacedBy: z.string().nullable().describe("The skill that replaces it, if any"),
  })
  .optional()
  .describe("Present only when the shelf's lifecycle.yaml deprecates the skill (a skillshelf field; the clawhub CLI shows the summary and display name)");

const VersionRefSchema = z.object({ version: z.string() });

/** A version as the skill and list answers name it. */
export const ClawhubVersionSchema = z
  .object({
    version: z.string().describe("Semver, or 0.0.0-<seq>.t<tree hash prefix> for a version that is not semver"),
    createdAt: z.number().describe("When it was first current, in milliseconds since the epoch"),
    changelog: z.string().describe("Always empty: a shelf keeps no changelogs"),
  })
  .meta({ id: "ClawhubVersion" });

/** ClawHub's moderation fields: a skill that requires review is suspicious (install needs a prompt or --force). */
export const ClawhubModerationSchema = z
  .object({
    isSuspicious: z.boolean(),
    isMalwareBlocked: z.literal(false).describe("Blocked skills are never served, so never true"),
    verdict: z.enum(["clean", "suspicious"]),
    reasonCodes: z.array(z.string()),
    summary: z.string().nullable(),
  })
  .meta({ id: "ClawhubModeration" });

const OwnerSchema = z.object({ handle: z.null(), displayName: z.string(), image: z.null() });

const SkillSchema = z.object({
  slug: z.string(),
  displayName: z.string().describe('The skill\'s name, with " (deprecated)" when the shelf deprecates it'),
  summary: z.string().describe("The skill's description, after the deprecation when the shelf deprecates it"),
  deprecation: DeprecationSchema,
  tags: z.record(z.string(), z.string()).describe("`latest`: the highest release (as /v1 resolves latest)"),
  stats: z.object({}),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const ClawhubDiscoverySchema = z
  .object({ apiBase: z.string(), registry: z.string() })
  .meta({ id: "ClawhubDiscovery", description: "Where `clawhub --site <shelf>` finds the API (the shelf's own origin)" });

export const ClawhubSearchAnswerSchema = z
  .object({
    results: z.array(
      z.object({
        slug: z.string(),
        displayName: z.string(),
        summary: z.string(),
        deprecation: DeprecationSchema,
        version: z.string().nullable(),
        score: z.number(),
        updatedAt: z.number().optional(),
        owner: OwnerSchema,
      }),
    ),
  })
  .meta({ id: "ClawhubSearchAnswer" });

export const ClawhubSkillListSchema = z
  .object({ items: z.array(SkillSchema.extend({ latestVersion: ClawhubVersionSchema })), nextCursor: z.string().nullable() })
  .meta({ id: "ClawhubSkillList" });

export const ClawhubSkillAnswerSchema = z
  .object({ skill: SkillSchema, latestVersion: ClawhubVersionSchema, owner: OwnerSchema, moderation: ClawhubModerationSchema })
  .meta({ id: "ClawhubSkill", description: "No `metadata`: clawhub 0.23.3 refuses a metadata object without `setup`" });

export const ClawhubVersionListSchema = z
  .object({ items: z.array(ClawhubVersionSchema), nextCursor: z.string().nullable() })
  .meta({ id: "ClawhubVersionList" });

export const ClawhubVersionAnswerSchema = z
  .object({
    version: ClawhubVersionSchema.extend({
      files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string(), contentType: z.string() })),
    }),
    skill: z.object({ slug: z.string(), displayName: z.string() }),
  })
  .meta({ id: "ClawhubVersionDetail" });

export const ClawhubResolveAnswerSchema = z
  .object({
    slug: z.string(),
    match: VersionRefSchema.nullable().describe("The version whose files have this fingerprint; null when none has"),
    latestVersion: VersionRefSchema,
  })
  .meta({ id: "ClawhubResolve" });

export const ClawhubWhoamiSchema = z
  .object({ user: z.object({ handle: z.string(), displayName: z.string(), image: z.null(), role: z.null() }) })
  .meta({ id: "ClawhubWhoami" });

/** One ClawHub route, for the OpenAPI document. */
export interface ClawhubRoute {
  readonly path: string;
  readonly summary: string;
  readonly query?: z.ZodObject;
  /** The success answer's media types (a file's are the static layout's); JSON ones have `schema`. */
  readonly mediaTypes: readonly string[];
  readonly schema?: z.ZodType;
}

const SlugParam = z.string().describe("The skill's name");
const VersionParam = z.string().describe("An exact version as this API names it (see ClawhubVersion), or none for the latest");

/** Every ClawHub read route, OpenAPI style, for the document (the Worker binds them in src/worker/views/clawhub). */
export const CLAWHUB_ROUTES: readonly ClawhubRoute[] = [
  {
    path: CLAWHUB_DISCOVERY_PATH,
    summary: "ClawHub discovery (`clawhub --site`): the API base, at the host root only",
    mediaTypes: ["application/json"],
    schema: ClawhubDiscoverySchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/search`,
    summary: "ClawHub search (`clawhub search`), through the shelf's search index",
    query: z.object({ q: z.string(), limit: z.string().optional(), mode: z.enum(["exact"]).optional() }),
    mediaTypes: ["application/json"],
    schema: ClawhubSearchAnswerSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/skills`,
    summary: "ClawHub skill list (`clawhub explore`, `search --prefix`), by name",
    query: z.object({ prefix: z.string().optional(), limit: z.string().optional(), cursor: z.string().optional() }),
    mediaTypes: ["application/json"],
    schema: ClawhubSkillListSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/skills/{slug}`,
    summary: "ClawHub skill detail (`install`, `update`, `inspect`)",
    mediaTypes: ["application/json"],
    schema: ClawhubSkillAnswerSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/skills/{slug}/versions`,
    summary: "ClawHub versions, newest first, from the version index",
    query: z.object({ limit: z.string().optional(), cursor: z.string().optional() }),
    mediaTypes: ["application/json"],
    schema: ClawhubVersionListSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/skills/{slug}/versions/{version}`,
    summary: "One ClawHub version with its files (path, size, sha256)",
    mediaTypes: ["application/json"],
    schema: ClawhubVersionAnswerSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/skills/{slug}/file`,
    summary: "One file of a version, raw (`inspect --file`)",
    query: z.object({ path: z.string(), version: VersionParam.optional(), tag: z.string().optional() }),
    mediaTypes: RAW_RESOURCE_MEDIA_TYPES,
  },
  {
    path: `${CLAWHUB_API_BASE}/download`,
    summary: "A version as the generation's deterministic zip (files at the root)",
    query: z.object({ slug: SlugParam, version: VersionParam.optional(), tag: z.string().optional(), ownerHandle: z.string().optional() }),
    mediaTypes: ["application/zip"],
  },
  {
    path: `${CLAWHUB_API_BASE}/resolve`,
    summary: "The version whose files have a folder fingerprint (`clawhub update`)",
    query: z.object({ slug: SlugParam, hash: z.string(), ownerHandle: z.string().optional() }),
    mediaTypes: ["application/json"],
    schema: ClawhubResolveAnswerSchema,
  },
  {
    path: `${CLAWHUB_API_BASE}/whoami`,
    summary: "The read token's identity (`clawhub login --token`), private shelves only",
    mediaTypes: ["application/json"],
    schema: ClawhubWhoamiSchema,
  },
];
