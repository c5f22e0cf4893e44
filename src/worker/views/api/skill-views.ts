// The JSON bodies of the skills group (src/core/api/skills.ts), as pure functions of the served
// entries, the records and the caller's URL prefix: the paged list, one skill's detail and its
// resources. Every URL is path-absolute behind the caller's access prefix ("" or /c/<token>),
// with a pinned twin under /g/<generation> that never changes.
import type { SkillSignature } from "../../../core/signing/signatures.ts";
import { lifecycleOf, type Lifecycle, type LifecycleStatus } from "../../../core/changes/lifecycle.ts";
import { API_BASE, splitList } from "../../../core/api/contract.ts";
import { RESOURCE_KINDS, type ResourceKind } from "../../../core/api/skills.ts";
import { catalogSelection, type CatalogSkill } from "../../../core/disclosure/catalog.ts";
import type { BlobRef, FileEntry, SkillRecord } from "../../../core/generation/manifest.ts";
import { servedAudit } from "../../../core/audit/published.ts";
import { compareCodePoints } from "../../../core/python-compat/py-text.ts";
import { SKILL_NAME_RE } from "../../../core/skill/skill.ts";
import { staticSkillIndex } from "../../read/indexes.ts";
import { immutableArchiveUrl } from "../../read/urls.ts";
import type { SkillTrustView } from "../../../core/api/trust.ts";
import { resourceOf } from "../../shelf/disclosure.ts";
import type { ServedSkill } from "../../shelf/service.ts";
import { invalidParameter, refuseUnknownIncludes } from "./problem.ts";

const NO_LIFECYCLE: LifecycleStatus = { deprecated: null, replaced_by: null };

/** A list request with defaults applied and lists sorted and deduplicated, so equal requests share one cache key. */
export interface SkillListArgs {
  /** null: no tag filter; []: keeps none (as the catalog's `tags`). */
  tags: string[] | null;
  include: string[] | null;
  exclude: string[] | null;
  limit: number;
  /** The name the page starts after (from the cursor); null for the first page. */
  after: string | null;
}

function normalizedList(value: string | undefined): string[] | null {
  return value === undefined ? null : [...new Set(splitList(value))].sort(compareCodePoints);
}

/**
 * A cursor: the last name of a page, base64url without padding, so clients treat it as opaque.
 * @example encodeCursor("solo") // => "c29sbw"
 */
export function encodeCursor(name: string): string {
  return btoa(name).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The name a cursor holds; an invalid_parameter problem when it is not one this API gave. */
export function decodeCursor(cursor: string): string {
  let name: string;
  try {
    name = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    throw invalidParameter("cursor", "not a cursor this API gave (pass next_cursor back unchanged)");
  }
  if (!SKILL_NAME_RE.test(name)) throw invalidParameter("cursor", "not a cursor this API gave (pass next_cursor back unchanged)");
  return name;
}

/**
 * The normalized arguments of a validated list query.
 * @example skillListArgs({ include: "b,a,b" }, 50).include // => ["a", "b"]
 */
export function skillListArgs(
  query: { tags?: string | undefined; include?: string | undefined; exclude?: string | undefined; limit?: string | undefined; cursor?: string | undefined },
  defaultLimit: number,
): SkillListArgs {
  return {
    tags: normalizedList(query.tags),
    include: normalizedList(query.include),
    exclude: normalizedList(query.exclude),
    limit: query.limit === undefined ? defaultLimit : Number(query.limit),
    after: query.cursor === undefined ? null : decodeCursor(query.cursor),
  };
}

/** Where a request's URLs point: its access prefix and the generation it reads. */
export interface LinkBase {
  prefix: string;
  generation: string;
}

function artifact(url: string, pinnedUrl: string, ref: BlobRef) {
  return { url, pinned_url: pinnedUrl, sha256: ref.sha256, size: ref.size };
}

/** URL path segments, each percent-encoded (file names may hold spaces, `#`, `?`, `%`). */
function encodedPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** The URL of a resource through the API, current and pinned. */
export function resourceUrls(base: LinkBase, name: string, path: string): { url: string; pinned_url: string } {
  const rest = `${API_BASE}/skills/${name}/resources/${encodedPath(path)}`;
  return { url: `${base.prefix}${rest}`, pinned_url: `${base.prefix}/g/${base.generation}${rest}` };
}

/** A skill's links: itself, SKILL.md in the static layout, its archives at the well-known paths. */
export function skillLinks(base: LinkBase, skill: Pick<ServedSkill, "name" | "skill_md" | "archives">) {
  const { prefix, generation } = base;
  const name = skill.name;
  return {
    self: `${prefix}${API_BASE}/skills/${name}`,
    skill_md: artifact(`${prefix}/skills/${name}/SKILL.md`, `${prefix}/g/${generation}/skills/${name}/SKILL.md`, skill.skill_md),
    archives: {
      tar_gz: artifact(`${prefix}/.well-known/agent-skills/${name}.tar.gz`, immutableArchiveUrl(prefix, generation, name, "tar.gz"), skill.archives.tar_gz),
      zip: artifact(`${prefix}/.well-known/agent-skills/${name}.zip`, immutableArchiveUrl(prefix, generation, name, "zip"), skill.archives.zip),
    },
  };
}

/** One served skill as the list shows it; `lifecycle` is the shelf's word on its name. */
export function skillSummary(base: LinkBase, skill: ServedSkill, lifecycle: LifecycleStatus = NO_LIFECYCLE) {
  return {
    name: skill.name,
    description: skill.description,
    version: skill.version,
    tags: skill.tags,
    when_to_use: skill.when_to_use,
    when_not_to_use: skill.when_not_to_use,
    file_count: skill.file_count,
    total_bytes: skill.total_bytes,
    has_scripts: skill.has_scripts,
    tree_hash: skill.tree_hash,
    deprecated: lifecycle.deprecated,
    replaced_by: lifecycle.replaced_by,
    trust: { level: skill.trust.level, requires_review: skill.trust.requires_review },
    links: skillLinks(base, skill),
  };
}

/**
 * One page of the servable skills: the catalog's selection (sorted by name, include, exclude,
 * tags matched as the catalog matches them), then the names after the cursor. An `include`
 * naming a skill not served is a not_found problem listing those names, as on /v1/catalog.
 * @example skillPage(await shelf.skills(), args, { prefix: "", generation }).next_cursor
 */
export function skillPage(served: readonly ServedSkill[], args: SkillListArgs, base: LinkBase, lifecycle: Lifecycle | null = null) {
  refuseUnknownIncludes(served, args.include);
  const candidates: Array<CatalogSkill & { served: ServedSkill }> = served.map((s) => ({ name: s.name, tags: s.tags, served: s }));
  const { skills: selected } = catalogSelection(candidates, {
    ...(args.tags !== null ? { tags: args.tags } : {}),
    ...(args.include !== null ? { include: args.include } : {}),
    ...(args.exclude !== null ? { exclude: args.exclude } : {}),
  });
  const after = args.after;
  const rest = after === null ? selected : selected.filter((s) => compareCodePoints(s.name, after) > 0);
  const page = rest.slice(0, args.limit);
  return {
    generation: base.generation,
    skills: page.map((s) => skillSummary(base, s.served, lifecycleOf(lifecycle, s.name))),
    next_cursor: rest.length > page.length ? encodeCursor(page.at(-1)!.name) : null,
  };
}

/** One skill in full: its record, its verdict under the advisories in force now (shelf/trust.ts, as /v1/trust/{name}), its requirements and URLs. */
export function skillDetail(
  base: LinkBase,
  skill: ServedSkill,
  record: SkillRecord,
  trust: SkillTrustView,
  signature: SkillSignature | null = null,
  lifecycle: LifecycleStatus = NO_LIFECYCLE,
) {
  const self = `${base.prefix}${API_BASE}/skills/${skill.name}`;
  return {
    generation: base.generation,
    name: record.name,
    description: record.description,
    version: record.version,
    license: record.license,
    compatibility: record.compatibility,
    allowed_tools: record.allowed_tools,
    tags: record.tags,
    when_to_use: record.when_to_use,
    when_not_to_use: record.when_not_to_use,
    frontmatter: record.frontmatter,
    content_hash: record.content_hash,
    tree_hash: record.tree_hash,
    file_count: record.files.length,
    total_bytes: record.total_bytes,
    has_scripts: record.has_scripts,
    files: record.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, media_type: f.media_type })),
    requires: { requires_tools: record.requires.tools, requires_mcp: record.requires.mcp },
    deprecated: lifecycle.deprecated,
    replaced_by: lifecycle.replaced_by,
    trust: { ...trust.verdict, source: trust.source, build: record.trust.verdict },
    signature,
    ...(record.provenance ? { provenance: record.provenance } : {}),
    ...(record.audit ? { audit: servedAudit(record.audit) } : {}),
    links: { ...skillLinks(base, skill), body: `${self}/body`, outline: `${self}/outline`, resources: `${self}/resources` },
  };
}

/** One resource as the listing shows it. */
function resourceEntry(base: LinkBase, skill: string, file: FileEntry, name: string, listed: boolean) {
  return { name, path: file.path, size: file.size, sha256: file.sha256, media_type: file.media_type, listed, ...resourceUrls(base, skill, file.path) };
}

/**
 * A skill's resources by folder, every file under references/, scripts/ and assets/ (nested
 * ones too: get_skill_reference on a local folder reaches them), each named relative to its
 * folder; `listed` marks what list_skill_resources reports (the static layout's per-skill index).
 */
export function skillResources(base: LinkBase, record: SkillRecord) {
  const index = staticSkillIndex(record);
  const groups: Record<ResourceKind, ReturnType<typeof resourceEntry>[]> = { references: [], scripts: [], assets: [] };
  for (const file of record.files) {
    const resource = resourceOf(file.path);
    if (!resource) continue;
    groups[resource.kind].push(resourceEntry(base, record.name, file, resource.name, index[resource.kind].includes(resource.name)));
  }
  for (const kind of RESOURCE_KINDS) groups[kind].sort((a, b) => compareCodePoints(a.name, b.name));
  return { generation: base.generation, skill: record.name, ...groups };
}
