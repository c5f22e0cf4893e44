// Keeping the version index (src/core/versions/record.ts) in step with the pointer: after every
// pointer move the moves it has not applied are replayed from the pointer's history (normally just
// the one move, reading only the shards that changed), a rebuild replays the whole history into an
// empty index, and gc prunes it before deleting generations. Every write is a compare-and-swap on
// the R2 etag, then a KV announcement, exactly like the advisories.
import { z } from "zod";
import { GenerationManifestSchema, shardOf, type GenerationManifest, type Pointer } from "../../core/generation/manifest.ts";
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import {
  applyMove,
  emptyVersionIndex,
  pendingMoves,
  pruneCollected,
  VersionIndexSchema,
  type SkillVersionFacts,
  type VersionIndex,
  type VersionMove,
} from "../../core/versions/record.ts";
import type { Clock } from "../storage/index.ts";
import { KV_VERSIONS_KEY, r2Key, R2_VERSIONS_KEY } from "../storage/keys.ts";
import { adminError } from "./errors.ts";
import { readPointer } from "./pointer.ts";
import { NOTHING_CHANGED, type AdminStorage } from "./storage.ts";

/**
 * Most R2 document reads one catch-up makes (manifests and changed shards). A move normally
 * reads one or two manifests and the shards that changed; replaying a long history of a large
 * shelf stops here, stores what it applied, and the next publish or rebuild call continues.
 */
export const VERSIONS_MAX_READS = 400;

/** What the index keeps of a shard entry, read loosely so shards of every schema version replay. */
const ShardFactsSchema = z.looseObject({
  skills: z.array(
    z.looseObject({
      name: z.string(),
      version: z.string().nullable(),
      tree_hash: z.string(),
      has_scripts: z.boolean(),
      trust: z.looseObject({ source: z.string().nullable(), requires_review: z.boolean() }),
    }),
  ),
});

/** The stored index and its etag (null etag: none stored yet). */
export async function readVersionIndex(storage: AdminStorage): Promise<{ index: VersionIndex; etag: string | null }> {
  const stored = await storage.getJson(R2_VERSIONS_KEY);
  if (!stored) return { index: emptyVersionIndex(), etag: null };
  const parsed = VersionIndexSchema.safeParse(stored.json);
  // A damaged record is replaced by a rebuild, never trusted.
  if (!parsed.success) return { index: { ...emptyVersionIndex(), seq: seqOf(stored.json) }, etag: stored.etag };
  return { index: parsed.data, etag: stored.etag };
}

function seqOf(json: unknown): number {
  const seq = (json as { seq?: unknown } | null)?.seq;
  return typeof seq === "number" && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/** Stores `index` if the stored one still has `etag`, then announces it in KV; false when someone else wrote first. */
async function writeVersionIndex(
  storage: AdminStorage,
  clock: Clock,
  index: VersionIndex,
  previous: { seq: number; etag: string | null },
): Promise<VersionIndex | null> {
  const next: VersionIndex = { ...index, seq: previous.seq + 1, updated_at: new Date(clock()).toISOString() };
  const written = await storage.put(
    R2_VERSIONS_KEY,
    JSON.stringify(next),
    { onlyIf: previous.etag ? { etagMatches: previous.etag } : { etagDoesNotMatch: "*" }, httpMetadata: { contentType: "application/json" } },
    "R2 did not store the version index; retry shortly",
  );
  if (!written) return null;
  await storage.kvPut(KV_VERSIONS_KEY, JSON.stringify({ seq: next.seq, pointer_seq: next.pointer_seq }));
  return next;
}

/** Reads a generation's skills for the index, counting reads; null when gc collected the generation. */
class GenerationReader {
  reads = 0;
  readonly #storage: AdminStorage;
  readonly #manifests = new Map<string, GenerationManifest | null>();

  constructor(storage: AdminStorage) {
    this.#storage = storage;
  }

  async manifest(id: string): Promise<GenerationManifest | null> {
    if (this.#manifests.has(id)) return this.#manifests.get(id)!;
    this.reads++;
    const stored = await this.#storage.getJson(r2Key("generation", id), { failure: NOTHING_CHANGED });
    const manifest = stored ? GenerationManifestSchema.parse(stored.json) : null;
    this.#manifests.set(id, manifest);
    return manifest;
  }

  /**
   * The skills of `generation`. With the previous move's generation and an index that reflects
   * it, shards both manifests share are not read: their skills are the ones the index has
   * current at that move.
   */
  async skills(generation: string, previous: { move: VersionMove; index: VersionIndex } | null): Promise<SkillVersionFacts[] | null> {
    const manifest = await this.manifest(generation);
    if (!manifest) return null;
    const before = previous ? await this.manifest(previous.move.generation) : null;
    const shared = new Set(before && before.shard_count === manifest.shard_count ? before.shards.map((s) => s.sha256) : []);
    const facts: SkillVersionFacts[] = [];
    const sharedIndexes = new Set<number>();
    for (const ref of manifest.shards) {
      if (shared.has(ref.sha256)) {
        sharedIndexes.add(ref.index);
        continue;
      }
      this.reads++;
      const stored = await this.#storage.getJson(r2Key("shard", ref.sha256), { failure: NOTHING_CHANGED });
      if (!stored) throw adminError("inconsistent", `${r2Key("shard", ref.sha256)} is referenced by generation ${generation} but missing`);
      facts.push(...ShardFactsSchema.parse(stored.json).skills);
    }
    if (previous && sharedIndexes.size) {
      for (const [name, entries] of Object.entries(previous.index.skills)) {
        if (!sharedIndexes.has(shardOf(name, manifest.shard_count))) continue;
        const current = entries.find((e) => e.last === previous.move.seq);
        if (current) facts.push({ name, version: current.version, tree_hash: current.tree_hash, has_scripts: current.has_scripts, trust: current });
      }
    }
    return facts;
  }
}

/** What a catch-up did. */
export interface VersionCatchUp {
  /** The pointer move the stored index reflects now. */
  pointer_seq: number;
  /** The pointer's seq: equal to pointer_seq once the index is complete. */
  current_seq: number;
  applied: number;
  /** Moves whose generation gc had collected (nothing to add for them). */
  collected: number;
  complete: boolean;
  seq: number;
}

/**
 * Applies every move of the pointer's history the stored index lacks, oldest first, within
 * VERSIONS_MAX_READS reads, and stores the result (compare-and-swap, three attempts). With
 * `fresh`, starts from an empty index (a rebuild), keeping the seq increasing.
 * @example await catchUpVersionIndex(storage, clock, pointer)
 */
export async function catchUpVersionIndex(storage: AdminStorage, clock: Clock, pointer: Pointer, fresh = false): Promise<VersionCatchUp> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await readVersionIndex(storage);
    let index = fresh ? { ...emptyVersionIndex(), seq: stored.index.seq } : stored.index;
    const reader = new GenerationReader(storage);
    let applied = 0;
    let collected = 0;
    let previous: VersionMove | null = index.moves.find((m) => m.seq === index.pointer_seq) ?? null;
    for (const move of pendingMoves(index, pointer.history)) {
      if (reader.reads >= VERSIONS_MAX_READS) break;
      const skills = await reader.skills(move.generation, previous && previous.seq === index.pointer_seq ? { move: previous, index } : null);
      if (skills === null) collected++;
      index = applyMove(index, move, skills ?? []);
      applied++;
      previous = skills === null ? null : move;
    }
    const result = (seq: number): VersionCatchUp => ({
      pointer_seq: index.pointer_seq,
      current_seq: pointer.seq,
      applied,
      collected,
      complete: index.pointer_seq >= pointer.seq,
      seq,
    });
    if (applied === 0 && !fresh) return result(stored.index.seq);
    const written = await writeVersionIndex(storage, clock, index, { seq: stored.index.seq, etag: stored.etag });
    if (written) return result(written.seq);
  }
  throw adminError("conflict", "the version index changed under three attempts in a row; retry");
}

/**
 * After a pointer move: brings the index up to the pointer. The move has happened whatever this
 * does, so a failure is logged, not answered: readers overlay the current generation on an index
 * that is behind, and the next publish (or `skillshelf reindex`) catches up.
 */
export async function versionIndexAfterMove(storage: AdminStorage, clock: Clock, pointer: Pointer): Promise<void> {
  try {
    await catchUpVersionIndex(storage, clock, pointer);
  } catch (err) {
    console.warn("the version index did not follow the pointer move; readers repair it until the next publish or reindex", err);
  }
}

/**
 * Rebuilds the index from the pointer's history (the generations gc has not collected), for the
 * admin route behind `skillshelf reindex`. Stops within VERSIONS_MAX_READS; call again (without
 * `fresh`) while `complete` is false.
 */
export async function rebuildVersionIndex(storage: AdminStorage, clock: Clock, fresh: boolean): Promise<VersionCatchUp> {
  const current = await readPointer(storage);
  if (!current) throw adminError("conflict", "nothing has been published yet; there is no history to index");
  return catchUpVersionIndex(storage, clock, current.pointer, fresh);
}

/**
 * Before gc deletes generations: rewrites the index so no entry points at one that will not
 * survive (compare-and-swap, three attempts). Throws (so gc deletes nothing) when it cannot.
 */
export async function pruneVersionIndex(storage: AdminStorage, clock: Clock, surviving: { has(generation: string): boolean }): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await readVersionIndex(storage);
    if (stored.etag === null) return;
    const pruned = pruneCollected(stored.index, surviving);
    if (sameJson(pruned, stored.index)) return;
    if (await writeVersionIndex(storage, clock, pruned, { seq: stored.index.seq, etag: stored.etag })) return;
  }
  throw adminError("conflict", "the version index changed under three attempts in a row while gc pruned it; nothing was deleted. Rerun gc");
}

function sameJson(a: unknown, b: unknown): boolean {
  const x = canonicalJson(a);
  const y = canonicalJson(b);
  return x.length === y.length && x.every((byte, i) => byte === y[i]);
}
