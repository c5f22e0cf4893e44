// The change document as a pure function of two sides: each kind of change on its own, file lists
// from the one tree diff engine, and the detail cap.
import { describe, expect, it } from "vitest";
import {
  buildChangeDocument,
  changedNames,
  isEmptyChange,
  MAX_FILE_DETAIL_SKILLS,
  type ChangeSide,
  type ChangeSkill,
} from "../../../src/core/changes/document.ts";
import { LIFECYCLE_SCHEMA, type Lifecycle } from "../../../src/core/changes/lifecycle.ts";
import type { AdvisoryEntry } from "../../../src/core/trust/records.ts";

const hex = (c: string) => c.repeat(64);
const skill = (name: string, tree: string, version: string | null = null): ChangeSkill => ({
  name,
  version,
  tree_hash: hex(tree),
  has_scripts: false,
  trust: { source: null },
});
function side(generation: string, skills: ChangeSkill[], lifecycle: Lifecycle["skills"] | null = null, advisories: AdvisoryEntry[] = []): ChangeSide {
  return {
    generation: hex(generation),
    skills: new Map(skills.map((s) => [s.name, s])),
    lifecycle: lifecycle ? { schema: LIFECYCLE_SCHEMA, skills: lifecycle } : null,
    advisories,
  };
}
const entry = { seq: 2, action: "publish" as const, at: "2026-12-02T09:00:00.000Z" };

describe("buildChangeDocument", () => {
  it("lists added, removed and changed skills with versions and, when given, their files", () => {
    const before = side("1", [skill("a", "a", "1.0.0"), skill("b", "b")]);
    const after = side("2", [skill("a", "c", "1.1.0"), skill("c", "d")]);
    const trees = new Map([
      [
        "a",
        {
          before: {
            name: "a",
            tree_hash: hex("a"),
            files: [
              { path: "SKILL.md", sha256: hex("1") },
              { path: "old.md", sha256: hex("2") },
            ],
          },
          after: {
            name: "a",
            tree_hash: hex("c"),
            files: [
              { path: "SKILL.md", sha256: hex("3") },
              { path: "new.md", sha256: hex("4") },
            ],
          },
        },
      ],
    ]);
    const doc = buildChangeDocument(entry, before, after, trees);
    expect(doc).toMatchObject({ schema: "skillshelf.changes/1", seq: 2, generation: hex("2"), previous: hex("1") });
    expect(doc.added).toEqual([{ name: "c", version: null, tree_hash: hex("d") }]);
    expect(doc.removed).toEqual([{ name: "b", version: null, tree_hash: hex("b") }]);
    expect(doc.changed).toEqual([
      {
        name: "a",
        from_version: "1.0.0",
        to_version: "1.1.0",
        from_tree: hex("a"),
        to_tree: hex("c"),
        files: { added: ["new.md"], removed: ["old.md"], changed: ["SKILL.md"] },
      },
    ]);
    // Without trees the files are unknown, never "none changed".
    expect(buildChangeDocument(entry, before, after).changed[0]!.files).toBeNull();
  });

  it("a removed skill whose tombstone names a skill now on the shelf was renamed", () => {
    const doc = buildChangeDocument(entry, side("1", [skill("old", "a")]), side("2", [skill("new", "b")], { old: { deprecated: null, replaced_by: "new" } }));
    expect(doc.renamed).toEqual([{ from: "old", to: "new", tree_hash: hex("b") }]);
    expect([doc.added, doc.removed]).toEqual([[], []]);
  });

  it("deprecation, a changed reason, and undeprecation", () => {
    const s = [skill("a", "a")];
    const deprecated = buildChangeDocument(entry, side("1", s), side("1", s, { a: { deprecated: "old", replaced_by: null } }));
    expect(deprecated.deprecated).toEqual([{ name: "a", reason: "old", replaced_by: null }]);
    const again = buildChangeDocument(
      entry,
      side("1", s, { a: { deprecated: "old", replaced_by: null } }),
      side("1", s, { a: { deprecated: "old", replaced_by: null } }),
    );
    expect(isEmptyChange(again)).toBe(true);
    const reason = buildChangeDocument(
      entry,
      side("1", s, { a: { deprecated: "old", replaced_by: null } }),
      side("1", s, { a: { deprecated: "older", replaced_by: null } }),
    );
    expect(reason.deprecated).toEqual([{ name: "a", reason: "older", replaced_by: null }]);
    const back = buildChangeDocument(entry, side("1", s, { a: { deprecated: "old", replaced_by: null } }), side("1", s));
    expect(back.undeprecated).toEqual([{ name: "a" }]);
  });

  it("blocked and unblocked by advisories in force (by tree hash or name and source)", () => {
    const advisory = {
      name: "a",
      source: "x",
      official_intent: "i",
      hidden_issue: "h",
      severity: "critical",
      reference: "r",
      tree_hash: hex("a"),
      advisory_id: "ASA-1",
      status: "active",
    } as unknown as AdvisoryEntry;
    const s = [skill("a", "a"), skill("b", "b")];
    const blocked = buildChangeDocument({ ...entry, action: "advisory" }, side("1", s), side("1", s, null, [advisory]));
    expect(blocked.blocked).toEqual([{ name: "a", advisory_id: "ASA-1", severity: "critical" }]);
    const unblocked = buildChangeDocument(
      { ...entry, action: "advisory" },
      side("1", s, null, [advisory]),
      side("1", s, null, [{ ...advisory, status: "withdrawn" } as AdvisoryEntry]),
    );
    expect(unblocked.unblocked).toEqual([{ name: "a" }]);
  });

  it("lists files for at most MAX_FILE_DETAIL_SKILLS changed skills", () => {
    const names = Array.from({ length: MAX_FILE_DETAIL_SKILLS + 5 }, (_, i) => `s${String(i).padStart(3, "0")}`);
    const picked = changedNames(
      side(
        "1",
        names.map((n) => skill(n, "a")),
      ),
      side(
        "2",
        names.map((n) => skill(n, "b")),
      ),
    );
    expect(picked).toEqual(names.slice(0, MAX_FILE_DETAIL_SKILLS));
  });
});
