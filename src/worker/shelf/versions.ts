// A skill's versions as a request sees them: the stored version index (storage/versions.ts)
// with the current generation overlaid when the index is behind the pointer (a publish whose
// index write failed, or a shelf published before the index existed), each version judged
// against the advisories in force now, and a range resolved to the newest version that no
// advisory blocks, opened in its own generation through a ShelfService pinned to it.
import type { SkillEntry } from "../../core/generation/manifest.ts";
import { applyMove, skillVersions, type SkillVersion, type VersionIndex } from "../../core/versions/record.ts";
import { matching, type VersionSelector } from "../../core/versions/resolve.ts";
import type { Clock, Generation, StorageBindings } from "../storage/index.ts";
import { loadVersionIndex } from "../storage/versions.ts";
import { NotOnShelfError, SkillBlockedError } from "./errors.ts";
import { edgeVerdict, type BlockingAdvisory } from "./verdict.ts";

/** A version with its verdict under the advisories in force now. */
export interface JudgedVersion extends SkillVersion {
  /** It is the skill's version in the current generation. */
  current: boolean;
  blocked: BlockingAdvisory | null;
  requiresReview: boolean;
}

/** The versions of some skills, and what the index was. */
export interface VersionsView {
  /** The current generation's id. */
  generation: string;
  index: { seq: number; pointer_seq: number; repaired: boolean };
  /** By name; a name the index and the current generation both lack has none. */
  versions: Map<string, JudgedVersion[]>;
}

/**
 * The versions of `names`, most recently current first. `current` opens the current generation
 * (ShelfService.versions passes a service on it, new when the request is pinned): the index is
 * shelf-wide, whatever generation the request pinned.
 * @example (await new ShelfService(env).versions(["code-review"])).versions.get("code-review")
 */
export async function skillVersionsNow(
  env: StorageBindings,
  current: { generation(): Promise<Generation> },
  names: readonly string[],
  clock: Clock = Date.now,
): Promise<VersionsView> {
  const [generation, stored] = await Promise.all([current.generation(), loadVersionIndex(env, clock, names)]);
  const entries = new Map<string, SkillEntry>();
  for (const name of names) {
    const entry = await generation.findSkill(name);
    if (entry) entries.set(name, entry);
  }
  let index: VersionIndex = stored;
  const behind = generation.seq !== null && stored.pointer_seq < generation.seq;
  if (behind) {
    // Only the skills asked about: the overlay is this answer's, never stored.
    index = applyMove(stored, { seq: generation.seq!, generation: generation.id, at: generation.publishedAt ?? new Date(0).toISOString() }, [
      ...entries.values(),
    ]);
  }
  const versions = new Map<string, JudgedVersion[]>();
  for (const name of names) {
    const currentTree = entries.get(name)?.tree_hash;
    versions.set(
      name,
      skillVersions(index, name).map((v) => {
        const verdict = edgeVerdict(generation.advisories, asEntry(v));
        return { ...v, current: v.tree_hash === currentTree, blocked: verdict.blocked, requiresReview: verdict.requiresReview };
      }),
    );
  }
  return { generation: generation.id, index: { seq: stored.seq, pointer_seq: stored.pointer_seq, repaired: behind }, versions };
}

/** What the edge verdict reads of a skill, from an index entry (the build's trust fields). */
function asEntry(v: SkillVersion): SkillEntry {
  return { name: v.name, tree_hash: v.tree_hash, has_scripts: v.has_scripts, trust: { source: v.source, requires_review: v.requires_review } } as SkillEntry;
}

/** No version matches: the 404's facts (the versions that exist, newest first). */
export class NoMatchingVersionError extends Error {
  readonly skill: string;
  readonly available: JudgedVersion[];
  constructor(skill: string, range: string, available: JudgedVersion[]) {
    const names = available.map(describeVersion);
    super(
      available.length
        ? `No version of '${skill}' matches '${range}'. Versions: ${names.join(", ")}.`
        : `'${skill}' has no version in a retained generation matching '${range}'.`,
    );
    this.name = "NoMatchingVersionError";
    this.skill = skill;
    this.available = available;
  }
}

/** A version as a 404 names it: its version, or its tree hash when it has none. */
export function describeVersion(v: Pick<SkillVersion, "version" | "tree_hash">): string {
  return v.version ?? `sha256:${v.tree_hash}`;
}

/** What resolving needs of a shelf pinned to a version's generation (ShelfService has it). */
export interface VersionShelf {
  record(name: string): Promise<unknown>;
}

/** A resolved version: its index facts, and its entry and record opened in its generation. */
export interface ResolvedVersion<S extends VersionShelf> {
  version: JudgedVersion;
  shelf: S;
  found: Awaited<ReturnType<S["record"]>>;
}

/**
 * The newest version of `name` that `selector` matches and no advisory blocks, opened in its
 * generation. A generation gc collected since the index was read is skipped for the next match.
 * @throws NotOnShelfError when the shelf has never had the skill in a retained generation
 * @throws NoMatchingVersionError when nothing matches
 * @throws SkillBlockedError when every match is blocked (naming the newest one's advisory)
 */
export async function resolveVersion<S extends VersionShelf>(
  openAt: (generation: string) => S,
  versions: readonly JudgedVersion[],
  name: string,
  range: string,
  selector: VersionSelector,
): Promise<ResolvedVersion<S>> {
  if (versions.length === 0) throw NotOnShelfError.skill(name);
  const matched = matching(versions, selector);
  if (matched.length === 0)
    throw new NoMatchingVersionError(
      name,
      range,
      [...versions].sort((a, b) => b.seq - a.seq),
    );
  const servable = matched.filter((v) => v.blocked === null);
  if (servable.length === 0) {
    const newest = matched[0]!;
    throw new SkillBlockedError(name, newest.blocked!);
  }
  for (const version of servable) {
    const shelf = openAt(version.generation);
    try {
      return { version, shelf, found: (await shelf.record(name)) as Awaited<ReturnType<S["record"]>> };
    } catch (error) {
      // Collected since the index was read (gc prunes the index first, so this is a race).
      if (error instanceof NotOnShelfError) continue;
      throw error;
    }
  }
  throw new NoMatchingVersionError(name, range, []);
}
