// The change document of one history entry (a publish, a rollback, an advisory change): skills
// added, removed, changed (trees, versions, files), renamed, deprecated and blocked. It lives
// outside the generation id (seq, time and the previous generation exist only when the pointer
// moves), is stored content-addressed and named by its history entry. Pure: the Worker gives it
// both sides; file lists come from the one tree diff engine (generation/diff.ts).
import { z } from "zod";
import { diffTrees, type TreeSnapshot } from "../generation/diff.ts";
import { evaluateTrust } from "../trust/evaluate.ts";
import type { AdvisoryEntry } from "../trust/records.ts";
import { lifecycleOf, type Lifecycle } from "./lifecycle.ts";

/** The schema of a stored change document. */
export const CHANGES_SCHEMA = "skillshelf.changes/1";
/**
 * Most changed skills a change document lists files for: each costs two record reads at publish,
 * inside one request's subrequest budget. Beyond it a changed skill's `files` is null.
 */
export const MAX_FILE_DETAIL_SKILLS = 50;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const FilesSchema = z.strictObject({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) });

/** One history entry's change document, as stored and served. */
export const ChangeDocumentSchema = z
  .strictObject({
    schema: z.literal(CHANGES_SCHEMA),
    seq: z.number().int().positive(),
    action: z.enum(["publish", "rollback", "advisory"]),
    at: z.string(),
    generation: sha256,
    previous: sha256.nullable().describe("The generation current before this entry; null for the first publish"),
    added: z.array(z.strictObject({ name: z.string(), version: z.string().nullable(), tree_hash: sha256 })),
    removed: z.array(z.strictObject({ name: z.string(), version: z.string().nullable(), tree_hash: sha256 })),
    changed: z.array(
      z.strictObject({
        name: z.string(),
        from_version: z.string().nullable(),
        to_version: z.string().nullable(),
        from_tree: sha256,
        to_tree: sha256,
        files: FilesSchema.nullable().describe(`null beyond the first ${MAX_FILE_DETAIL_SKILLS} changed skills`),
      }),
    ),
    renamed: z.array(z.strictObject({ from: z.string(), to: z.string(), tree_hash: sha256 })),
    deprecated: z.array(z.strictObject({ name: z.string(), reason: z.string().nullable(), replaced_by: z.string().nullable() })),
    undeprecated: z.array(z.strictObject({ name: z.string() })),
    blocked: z.array(z.strictObject({ name: z.string(), advisory_id: z.string().nullable(), severity: z.string() })),
    unblocked: z.array(z.strictObject({ name: z.string() })),
  })
  .meta({ id: "ChangeDocument" });
export type ChangeDocument = z.infer<typeof ChangeDocumentSchema>;

/** A skill as the change document compares it (what a shard entry says). */
export interface ChangeSkill {
  name: string;
  version: string | null;
  tree_hash: string;
  has_scripts: boolean;
  trust: { source: string | null };
}

/** One side of a history entry: a generation's skills and lifecycle, judged under the advisories in force. */
export interface ChangeSide {
  generation: string;
  skills: ReadonlyMap<string, ChangeSkill>;
  lifecycle: Lifecycle | null;
  advisories: readonly AdvisoryEntry[];
}

/** What the Worker knows about the entry itself. */
export interface ChangeEntry {
  seq: number;
  action: ChangeDocument["action"];
  at: string;
}

/**
 * The advisory that blocks a skill under `advisories`, or null (the edge verdict's rule: core's
 * evaluateTrust over the tree hash, name and provenance source).
 */
export function blockingAdvisory(advisories: readonly AdvisoryEntry[], skill: ChangeSkill): AdvisoryEntry | null {
  if (!advisories.length) return null;
  const verdict = evaluateTrust(
    { validations: [], advisories },
    { tree_hash: skill.tree_hash, name: skill.name, source: skill.trust.source, has_scripts: skill.has_scripts },
  );
  if (!verdict.blocked) return null;
  return (
    verdict.advisories.find((a) => a.severity === "critical" || a.severity === "high" || (a.tree_hash !== null && a.tree_hash === skill.tree_hash)) ??
    verdict.advisories[0] ??
    null
  );
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Which changed skills the document lists files for (the first MAX_FILE_DETAIL_SKILLS by name):
 * the Worker reads both records of exactly these.
 * @example changedNames(before, after) // ["code-review"]
 */
export function changedNames(before: ChangeSide | null, after: ChangeSide): string[] {
  const names: string[] = [];
  for (const [name, now] of after.skills) {
    const old = before?.skills.get(name);
    if (old && old.tree_hash !== now.tree_hash) names.push(name);
  }
  return names.sort().slice(0, MAX_FILE_DETAIL_SKILLS);
}

/**
 * The change document of one history entry, from the side before it (null: the first publish)
 * and the side after it. `trees` holds both trees of the changed skills whose files are listed.
 * @example buildChangeDocument({ seq: 4, action: "publish", at }, before, after, trees).changed[0].files.added
 */
export function buildChangeDocument(
  entry: ChangeEntry,
  before: ChangeSide | null,
  after: ChangeSide,
  trees: ReadonlyMap<string, { before: TreeSnapshot; after: TreeSnapshot }> = new Map(),
): ChangeDocument {
  const oldSkills = before?.skills ?? new Map<string, ChangeSkill>();
  const doc: ChangeDocument = {
    schema: CHANGES_SCHEMA,
    seq: entry.seq,
    action: entry.action,
    at: entry.at,
    generation: after.generation,
    previous: before?.generation ?? null,
    added: [],
    removed: [],
    changed: [],
    renamed: [],
    deprecated: [],
    undeprecated: [],
    blocked: [],
    unblocked: [],
  };
  // A removed name whose tombstone names a skill now on the shelf was renamed; its replacement
  // is then not listed as added on its own.
  const renameTargets = new Set<string>();
  for (const [name, old] of oldSkills) {
    if (after.skills.has(name)) continue;
    const to = lifecycleOf(after.lifecycle, name).replaced_by;
    if (to && after.skills.has(to)) {
      doc.renamed.push({ from: name, to, tree_hash: after.skills.get(to)!.tree_hash });
      if (!oldSkills.has(to)) renameTargets.add(to);
    } else doc.removed.push({ name, version: old.version, tree_hash: old.tree_hash });
  }
  for (const [name, now] of after.skills) {
    const old = oldSkills.get(name);
    if (!old) {
      if (!renameTargets.has(name)) doc.added.push({ name, version: now.version, tree_hash: now.tree_hash });
    } else if (old.tree_hash !== now.tree_hash) {
      const pair = trees.get(name);
      const diff = pair ? diffTrees(pair.before, pair.after) : null;
      doc.changed.push({
        name,
        from_version: old.version,
        to_version: now.version,
        from_tree: old.tree_hash,
        to_tree: now.tree_hash,
        files: diff ? { added: diff.files_added, removed: diff.files_removed, changed: diff.files_changed } : null,
      });
    }
    const was = lifecycleOf(before?.lifecycle, name);
    const is = lifecycleOf(after.lifecycle, name);
    const wasDeprecated = old !== undefined && was.deprecated !== null;
    if (is.deprecated !== null && (!wasDeprecated || was.deprecated !== is.deprecated || was.replaced_by !== is.replaced_by)) {
      doc.deprecated.push({ name, reason: is.deprecated, replaced_by: is.replaced_by });
    } else if (is.deprecated === null && wasDeprecated) doc.undeprecated.push({ name });

    const blockedNow = blockingAdvisory(after.advisories, now);
    const blockedBefore = old ? blockingAdvisory(before!.advisories, old) : null;
    if (blockedNow && !blockedBefore) doc.blocked.push({ name, advisory_id: blockedNow.advisory_id, severity: blockedNow.severity });
    else if (!blockedNow && blockedBefore) doc.unblocked.push({ name });
  }
  for (const list of [doc.added, doc.removed, doc.changed, doc.deprecated, doc.undeprecated, doc.blocked, doc.unblocked]) list.sort(byName);
  doc.renamed.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  return doc;
}

/** True when the entry changed nothing a reader would notice (a republish of the same shelf). */
export function isEmptyChange(doc: ChangeDocument): boolean {
  return [doc.added, doc.removed, doc.changed, doc.renamed, doc.deprecated, doc.undeprecated, doc.blocked, doc.unblocked].every((l) => l.length === 0);
}
