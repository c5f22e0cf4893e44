// The version index: one small mutable record per shelf, beside the pointer and the advisories,
// that remembers every distinct (version, tree hash) of every skill that was current in a
// retained generation, with the first and last pointer move it was current in. Pure functions
// here (no storage): the Worker's admin API applies pointer moves and gc's pruning through them
// and stores the result by compare-and-swap; the read API overlays the current generation on a
// record that is behind. docs/storage.md ("Version index") describes the record.
import { z } from "zod";
import { Sha256Schema, type SkillEntry } from "../generation/manifest.ts";

export const VERSIONS_SCHEMA = "skillshelf.versions/1";

/** A pointer move the record refers to: the generation it made current and when. */
export const VersionMoveSchema = z.strictObject({
  seq: z.number().int().positive(),
  generation: Sha256Schema,
  at: z.string(),
});
export type VersionMove = z.infer<typeof VersionMoveSchema>;

/**
 * One distinct (version, tree hash) of a skill. `first` and `last` are pointer seqs (keys into
 * `moves`): the first and the last move, among retained generations, that made it current.
 * The trust fields are the build's, so a reader can judge the version against the advisories in
 * force without opening its generation.
 */
export const VersionEntrySchema = z.strictObject({
  version: z.string().nullable(),
  tree_hash: Sha256Schema,
  source: z.string().nullable(),
  has_scripts: z.boolean(),
  requires_review: z.boolean(),
  first: z.number().int().positive(),
  last: z.number().int().positive(),
});
export type VersionEntry = z.infer<typeof VersionEntrySchema>;

/** The record: `seq` bumps on every write; `pointer_seq` is the pointer move it reflects (0: none). */
export const VersionIndexSchema = z.strictObject({
  schema: z.literal(VERSIONS_SCHEMA),
  seq: z.number().int().nonnegative(),
  pointer_seq: z.number().int().nonnegative(),
  updated_at: z.string(),
  /** Every move an entry refers to, newest first. */
  moves: z.array(VersionMoveSchema),
  /** By skill name; each skill's entries, most recently current first. */
  skills: z.record(z.string(), z.array(VersionEntrySchema)),
});
export type VersionIndex = z.infer<typeof VersionIndexSchema>;

/** What the index keeps of one skill of a generation (a shard entry has all of it). */
export type SkillVersionFacts = Pick<SkillEntry, "name" | "version" | "tree_hash" | "has_scripts"> & {
  trust: Pick<SkillEntry["trust"], "source" | "requires_review">;
};

/**
 * A record that reflects nothing yet.
 * @example emptyVersionIndex().pointer_seq // => 0
 */
export function emptyVersionIndex(at = new Date(0).toISOString()): VersionIndex {
  return { schema: VERSIONS_SCHEMA, seq: 0, pointer_seq: 0, updated_at: at, moves: [], skills: {} };
}

/**
 * The record after a pointer move that made `generation` current with these skills: a skill's
 * (version, tree hash) already known is current again (its `last` moves up), a new one is added.
 * A move the record already reflects (seq at or below `pointer_seq`) changes nothing. `seq` and
 * `updated_at` are the writer's to set.
 * @example applyMove(emptyVersionIndex(), { seq: 1, generation, at }, entries).pointer_seq // => 1
 */
export function applyMove(index: VersionIndex, move: VersionMove, skills: readonly SkillVersionFacts[]): VersionIndex {
  if (move.seq <= index.pointer_seq) return index;
  const next: Record<string, VersionEntry[]> = {};
  for (const [name, entries] of Object.entries(index.skills)) next[name] = entries.map((e) => ({ ...e }));
  for (const skill of skills) {
    next[skill.name] ??= [];
    const entries = next[skill.name]!;
    const known = entries.find((e) => e.tree_hash === skill.tree_hash && e.version === skill.version);
    if (known) {
      known.last = Math.max(known.last, move.seq);
      continue;
    }
    entries.push({
      version: skill.version,
      tree_hash: skill.tree_hash,
      source: skill.trust.source,
      has_scripts: skill.has_scripts,
      requires_review: skill.trust.requires_review,
      first: move.seq,
      last: move.seq,
    });
  }
  const moves = [move, ...index.moves.filter((m) => m.seq !== move.seq)];
  return tidy({ ...index, pointer_seq: move.seq, moves, skills: next });
}

/**
 * The record gc stores before it deletes generations: every entry points only at generations
 * that survive. An entry whose last generation is collected falls back to its first (when that
 * survives); one whose first and last are both collected is dropped (a rebuild from the history
 * finds it again if a generation between them survives).
 * @example pruneCollected(index, new Set([current])).moves.every((m) => m.generation === current)
 */
export function pruneCollected(index: VersionIndex, surviving: { has(generation: string): boolean }): VersionIndex {
  const moveBySeq = new Map(index.moves.map((m) => [m.seq, m]));
  const survives = (seq: number) => {
    const move = moveBySeq.get(seq);
    return move !== undefined && surviving.has(move.generation);
  };
  const skills: Record<string, VersionEntry[]> = {};
  for (const [name, entries] of Object.entries(index.skills)) {
    const kept: VersionEntry[] = [];
    for (const entry of entries) {
      const first = survives(entry.first);
      const last = survives(entry.last);
      if (!first && !last) continue;
      kept.push({ ...entry, first: first ? entry.first : entry.last, last: last ? entry.last : entry.first });
    }
    if (kept.length) skills[name] = kept;
  }
  return tidy({ ...index, skills });
}

/** Sorted entries (most recently current first), skills by name, and only the moves still referred to. */
function tidy(index: VersionIndex): VersionIndex {
  const skills: Record<string, VersionEntry[]> = {};
  const used = new Set<number>();
  for (const name of Object.keys(index.skills).sort()) {
    const entries = index.skills[name]!;
    if (!entries.length) continue;
    skills[name] = [...entries].sort((a, b) => b.last - a.last || b.first - a.first);
    for (const e of entries) used.add(e.first).add(e.last);
  }
  const moves = index.moves.filter((m) => used.has(m.seq)).sort((a, b) => b.seq - a.seq);
  return { ...index, moves, skills };
}

/** One version of a skill as readers see it: the entry with its generations and times. */
export interface SkillVersion {
  name: string;
  version: string | null;
  tree_hash: string;
  /** The last retained generation it was current in (its pinned URLs point there). */
  generation: string;
  published_at: string;
  first_generation: string;
  first_published_at: string;
  /** The pointer seq of that last move (newer moves have higher seqs). */
  seq: number;
  source: string | null;
  has_scripts: boolean;
  requires_review: boolean;
}

/**
 * A skill's versions, most recently current first; [] when the record has none.
 * @example skillVersions(index, "code-review")[0]?.generation
 */
export function skillVersions(index: VersionIndex, name: string): SkillVersion[] {
  const entries = Object.hasOwn(index.skills, name) ? index.skills[name]! : [];
  const moveBySeq = new Map(index.moves.map((m) => [m.seq, m]));
  return entries.flatMap((e) => {
    const first = moveBySeq.get(e.first);
    const last = moveBySeq.get(e.last);
    if (!first || !last) return [];
    return [
      {
        name,
        version: e.version,
        tree_hash: e.tree_hash,
        generation: last.generation,
        published_at: last.at,
        first_generation: first.generation,
        first_published_at: first.at,
        seq: last.seq,
        source: e.source,
        has_scripts: e.has_scripts,
        requires_review: e.requires_review,
      },
    ];
  });
}

/**
 * The pointer moves a record has not applied yet, oldest first (from the pointer's history,
 * which holds the last HISTORY_LIMIT moves: older ones are beyond repair and a rebuild skips them).
 * @example pendingMoves(index, pointer.history).map((m) => m.seq)
 */
export function pendingMoves(index: Pick<VersionIndex, "pointer_seq">, history: readonly { seq: number; generation: string; at: string }[]): VersionMove[] {
  return history
    .filter((h) => h.seq > index.pointer_seq)
    .map((h) => ({ seq: h.seq, generation: h.generation, at: h.at }))
    .sort((a, b) => a.seq - b.seq);
}
