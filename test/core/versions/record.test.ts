// The version index's pure functions: moves applied in order (and only once), a version current
// again after a rollback or a re-publish, gc pruning so no entry names a collected generation.
import { describe, expect, it } from "vitest";
import {
  applyMove,
  emptyVersionIndex,
  pendingMoves,
  pruneCollected,
  skillVersions,
  VersionIndexSchema,
  type SkillVersionFacts,
} from "../../../src/core/versions/record.ts";

const gen = (n: number) => String(n).repeat(64).slice(0, 64);
const tree = (n: number) => n.toString(16).padStart(64, "0");
const skill = (name: string, version: string | null, t: number): SkillVersionFacts => ({
  name,
  version,
  tree_hash: tree(t),
  has_scripts: false,
  trust: { source: null, requires_review: false },
});
const move = (seq: number, g: number) => ({ seq, generation: gen(g), at: `2026-01-0${seq}T00:00:00.000Z` });

describe("version index", () => {
  it("applies publishes, a rollback and a re-publish of an older version", () => {
    let index = emptyVersionIndex();
    index = applyMove(index, move(1, 1), [skill("a", "1.0.0", 1), skill("b", null, 9)]);
    index = applyMove(index, move(2, 2), [skill("a", "1.1.0", 2), skill("b", null, 9)]);
    index = applyMove(index, move(3, 1), [skill("a", "1.0.0", 1), skill("b", null, 9)]); // rollback to generation 1
    expect(VersionIndexSchema.parse(index)).toEqual(index);
    expect(index.pointer_seq).toBe(3);
    const a = skillVersions(index, "a");
    expect(a.map((v) => [v.version, v.generation, v.first_generation, v.seq])).toEqual([
      ["1.0.0", gen(1), gen(1), 3],
      ["1.1.0", gen(2), gen(2), 2],
    ]);
    expect(a[0]!.first_published_at).toBe("2026-01-01T00:00:00.000Z");
    expect(a[0]!.published_at).toBe("2026-01-03T00:00:00.000Z");
    // b never changed: one entry spanning every move.
    expect(skillVersions(index, "b").map((v) => [v.first_generation, v.generation])).toEqual([[gen(1), gen(1)]]);
    // An old move again changes nothing.
    expect(applyMove(index, move(2, 2), [skill("a", "9.9.9", 99)])).toBe(index);
    expect(skillVersions(index, "nope")).toEqual([]);
  });

  it("prunes before gc: no entry names a collected generation", () => {
    let index = emptyVersionIndex();
    index = applyMove(index, move(1, 1), [skill("a", "1.0.0", 1)]);
    index = applyMove(index, move(2, 2), [skill("a", "1.0.0", 1), skill("c", "0.1.0", 3)]);
    index = applyMove(index, move(3, 3), [skill("a", "2.0.0", 2)]);
    // Generation 2 collected: a@1.0.0 falls back to its first (generation 1); c, only ever in 2, goes.
    const pruned = pruneCollected(index, new Set([gen(1), gen(3)]));
    expect(skillVersions(pruned, "a").map((v) => [v.version, v.generation])).toEqual([
      ["2.0.0", gen(3)],
      ["1.0.0", gen(1)],
    ]);
    expect(skillVersions(pruned, "c")).toEqual([]);
    expect(pruned.moves.map((m) => m.generation)).toEqual([gen(3), gen(1)]);
    // Only the current one survives: the rest is gone, moves included.
    const only = pruneCollected(index, new Set([gen(3)]));
    expect(Object.keys(only.skills)).toEqual(["a"]);
    expect(only.moves).toEqual([move(3, 3)]);
  });

  it("lists the history moves an index lacks, oldest first", () => {
    const history = [move(4, 1), move(3, 3), move(2, 2), move(1, 1)].map((m, i) => ({ ...m, action: i === 0 ? "rollback" : "publish" }));
    expect(pendingMoves({ pointer_seq: 2 }, history).map((m) => m.seq)).toEqual([3, 4]);
    expect(pendingMoves({ pointer_seq: 4 }, history)).toEqual([]);
  });
});
