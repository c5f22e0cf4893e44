// The SEP-2640 SkillSource over the request's shelf service: skills/list, skills/get,
// resources/read and resources/directory/read answered from the build's records (digests and
// sizes recorded at build time, never re-hashed per request) and the stored bytes. Not the SDK's
// folder loader, which walks and hashes every file when it starts.
import { lifecycleOf, type Lifecycle } from "../../../core/changes/lifecycle.ts";
import { hasFindings } from "../../../core/audit/published.ts";
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { DIRECTORY_MIME_TYPE, type Skill, type SkillReadResult, type SkillSource } from "@modelcontextprotocol/server/ext/skills";
import type { SkillRecord } from "../../../core/generation/manifest.ts";
import { NotOnShelfError, SkillBlockedError } from "../../shelf/errors.ts";
import type { ServedSkill, ShelfService } from "../../shelf/service.ts";
import { losslessText } from "./read.ts";
import { requestStateOf } from "./request-state.ts";
import { inScope, type McpScope } from "./scope.ts";
import { sdkFrontmatter } from "./skill-md.ts";
import { decodeCursor, encodeCursor, pageAfter, parseSkillUri, skillUri } from "./uris.ts";

/** Entries per skills/list page and children per directory page (an entry built before `listing` costs a record read when cold). */
export const MCP_PAGE_SIZE = 100;

/** Our `_meta` key on each entry: the edge's trust verdict (the io.modelcontextprotocol prefixes are reserved). */
export const TRUST_META_KEY = "dev.skillshelf/trust";
/** Where an imported skill came from (the record's provenance), beside the trust verdict. */
export const PROVENANCE_META_KEY = "dev.skillshelf/provenance";

/** The audit's summary of the skill (the shard entry's): present only when the audit found something. */
export const AUDIT_META_KEY = "dev.skillshelf/audit";

/** Our `_meta` key for what the shelf says of a skill's name (lifecycle.yaml): present only when deprecated. */
export const LIFECYCLE_META_KEY = "dev.skillshelf/lifecycle";

/** One directory child, as resources/directory/read lists it. */
interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** A recorded media type as an MCP mimeType: its essence, so reads and directory listings agree ("text/markdown"). */
function mimeTypeOf(mediaType: string | undefined): string {
  return (mediaType ?? "application/octet-stream").split(";")[0]!.trim();
}

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
}

/** A blocked skill is refused with the advisory that blocks it, so a host can say why it is gone. */
function blocked(uri: string, error: SkillBlockedError): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri}: ${error.message}`, {
    uri,
    blocked: { skill: error.skill, advisory: error.advisory },
  });
}

/**
 * A served skill in scope, or undefined when the shelf has none by that name (or it is out of
 * scope); a blocked one is refused with its advisory.
 */
async function servedSkill(shelf: ShelfService, scope: McpScope, name: string, uri: string): Promise<ServedSkill | undefined> {
  if (!inScope(scope, name)) return undefined;
  try {
    return await shelf.skill(name);
  } catch (error) {
    if (error instanceof NotOnShelfError) return undefined;
    if (error instanceof SkillBlockedError) throw blocked(uri, error);
    throw error;
  }
}

/**
 * The SEP-2640 entry of a served skill: every file with the digest and size the build recorded,
 * the frontmatter as the SDK reads SKILL.md, our trust verdict under TRUST_META_KEY, a
 * deprecation (with its replacement) under LIFECYCLE_META_KEY, and the audit's summary under
 * AUDIT_META_KEY. From the shard entry alone when it carries `listing` with the SKILL.md head;
 * else (older builds, or a SKILL.md the SDK refuses, whose entry carries the build's
 * frontmatter) the record too.
 */
export async function skillEntryOf(shelf: ShelfService, skill: ServedSkill): Promise<Skill> {
  const lifecycle = await shelf.lifecycle();
  const kept = builtEntries.get(skill);
  if (kept !== undefined && kept.lifecycle === lifecycle) return kept.entry;
  const frontmatter = await sdkFrontmatter(shelf, skill);
  const listing = skill.listing;
  let entry: Skill;
  if (frontmatter !== undefined && listing !== undefined) {
    const files = skill.paths.map((path, i) => ({ path, sha256: listing.file_sha256[i]!, size: listing.file_sizes[i]! }));
    entry = mcpEntry(skill, files, frontmatter, lifecycle);
  } else {
    const { record } = await shelf.record(skill.name);
    entry = mcpEntry(skill, record.files, frontmatter ?? record.frontmatter, lifecycle);
  }
  builtEntries.set(skill, { lifecycle, entry });
  return entry;
}

/**
 * Entries already built in this isolate, by the served skill they were built from (a shard
 * entry the isolate keeps parsed, so the same object on every warm request; when an advisory
 * changes its verdict, the one copy the shelf service keeps for that) and for the lifecycle document they
 * reflect. An entry is all the skill's own facts, so the same object is handed out again.
 */
const builtEntries = new WeakMap<ServedSkill, { lifecycle: Lifecycle | null; entry: Skill }>();

function mcpEntry(
  skill: ServedSkill,
  files: readonly { path: string; sha256: string; size: number }[],
  frontmatter: Record<string, unknown>,
  lifecycle: Lifecycle | null,
): Skill {
  const { deprecated, replaced_by: replacedBy } = lifecycleOf(lifecycle, skill.name);
  const resources = files.map((f) => ({ uri: skillUri(skill.name, f.path), digest: `sha256:${f.sha256}`, size: f.size })).sort(byUri);
  return {
    uri: skillUri(skill.name, "SKILL.md"),
    frontmatter: frontmatter as Skill["frontmatter"],
    resources,
    _meta: {
      [TRUST_META_KEY]: { level: skill.trust.level, requires_review: skill.trust.requires_review },
      ...(deprecated !== null ? { [LIFECYCLE_META_KEY]: { deprecated, replaced_by: replacedBy } } : {}),
      ...(skill.provenance ? { [PROVENANCE_META_KEY]: skill.provenance } : {}),
      ...(hasFindings(skill.audit) ? { [AUDIT_META_KEY]: skill.audit } : {}),
    },
  };
}

/**
 * The direct children of a folder of the skill (`path` "" is its root), sorted by URI; undefined
 * when no file lies below `path` (it is a file, or nothing).
 * @example directoryChildren(record, "references") // => [{uri: "skill://x/references/a.md", name: "a.md", mimeType: "text/markdown", size: 12}]
 */
export function directoryChildren(record: Pick<SkillRecord, "name" | "files">, path: string): DirectoryChild[] | undefined {
  const prefix = path === "" ? "" : `${path}/`;
  const children = new Map<string, DirectoryChild>();
  for (const file of record.files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      children.set(rest, { uri: skillUri(record.name, file.path), name: rest, mimeType: mimeTypeOf(file.media_type), size: file.size });
    } else {
      const folder = rest.slice(0, slash);
      children.set(`${folder}/`, { uri: skillUri(record.name, prefix + folder), name: folder, mimeType: DIRECTORY_MIME_TYPE });
    }
  }
  return children.size === 0 ? undefined : [...children.values()].sort(byUri);
}

/**
 * The skills extension's source, one per isolate: each call serves what its own request's shelf
 * service serves (blocked skills absent) within that request's scope, found from the call's
 * context (request-state.ts), so registrations built once never carry one request's state into
 * another's.
 * @example new SkillsExtension({ source: shelfSkillSource }).attach(server)
 */
export const shelfSkillSource: SkillSource = {
  async list({ cursor }, ctx) {
    const { shelf, scope } = requestStateOf(ctx);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && after === undefined) throw invalidCursor();
    // Shelf order (shard by shard), not name order: a page reads only the shards it spans.
    const page = await shelf.skillsInShelfOrder(after, MCP_PAGE_SIZE, scope.include);
    const entries = await Promise.all(page.skills.map((s) => skillEntryOf(shelf, s)));
    const last = page.skills.at(-1);
    return page.more && last !== undefined ? { skills: entries, nextCursor: encodeCursor(last.name) } : { skills: entries };
  },

  async get(uri, ctx) {
    const { shelf, scope } = requestStateOf(ctx);
    const at = parseSkillUri(uri);
    if (at === undefined || at.path !== "SKILL.md") return undefined;
    const skill = await servedSkill(shelf, scope, at.name, uri);
    return skill === undefined ? undefined : skillEntryOf(shelf, skill);
  },

  async read(uri, ctx): Promise<SkillReadResult | undefined> {
    const { shelf, scope } = requestStateOf(ctx);
    const at = parseSkillUri(uri);
    if (at === undefined) return undefined;
    const skill = await servedSkill(shelf, scope, at.name, uri);
    if (skill === undefined) return undefined;
    if (at.path === "") throw new ResourceNotFoundError(uri, `${uri} is a directory; use resources/directory/read`);
    let file: Awaited<ReturnType<ShelfService["file"]>>;
    try {
      file = await shelf.file(at.name, at.path);
    } catch (error) {
      if (!(error instanceof NotOnShelfError)) throw error;
      const { record } = await shelf.record(at.name);
      if (directoryChildren(record, at.path) !== undefined) throw new ResourceNotFoundError(uri, `${uri} is a directory; use resources/directory/read`);
      return undefined;
    }
    const bytes = await file.readChecked();
    const text = losslessText(bytes);
    const mimeType = mimeTypeOf(file.mediaType);
    return text === undefined ? { bytes, mimeType } : { text, mimeType };
  },

  async readDirectory(uri, { cursor }, ctx) {
    const { shelf, scope } = requestStateOf(ctx);
    const at = parseSkillUri(uri);
    if (at === undefined) return undefined;
    const skill = await servedSkill(shelf, scope, at.name, uri);
    if (skill === undefined) return undefined;
    const { record } = await shelf.record(at.name);
    const children = directoryChildren(record, at.path);
    if (children === undefined) return undefined;
    try {
      const page = pageAfter(children, cursor, MCP_PAGE_SIZE, (c) => c.uri);
      return page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor };
    } catch {
      throw invalidCursor();
    }
  },
};
