// What `skillshelf outdated` says of one installed skill, from what it has (a tree hash, maybe a
// version; or, for a `skills` CLI install, the well-known index digest it recorded) and what the
// shelf answers for its name now. Pure: the CLI fetches, this decides.

/** The states an installed skill can be in, worst last. */
export type InstalledState = "current" | "newer" | "deprecated" | "blocked" | "gone";

/** What the shelf answered for a name (GET /v1/skills/{name}, redirects not followed). */
export type ShelfAnswer =
  | {
      kind: "skill";
      tree_hash: string;
      version: string | null;
      deprecated: string | null;
      replaced_by: string | null;
      /** The v0.2 index entry's `digest` now, when asked for (a skills-lock.json entry is compared by it). */
      digest?: string | null;
    }
  | { kind: "renamed"; replaced_by: string }
  | { kind: "blocked"; advisory_id: string | null; reason: string }
  | { kind: "gone" };

/** One row of the report. */
export interface OutdatedRow {
  name: string;
  state: InstalledState;
  /**
   * What is installed: a tree hash (skillshelf-lock.json, a folder), or the `wellKnownDigest` a
   * skills-lock.json entry recorded (the `skills` CLI's `computedHash` is its own folder hash, not ours).
   */
  installed: { tree_hash: string | null; version: string | null; well_known_digest?: string };
  /** The shelf's tree and version now (and its index digest, for a skills-lock.json entry), when it serves the skill. */
  available: { tree_hash: string; version: string | null; well_known_digest?: string | null } | null;
  deprecated: string | null;
  replaced_by: string | null;
  advisory: string | null;
}

/**
 * The row for one installed skill. Deprecation outranks "newer" (the team wants you off it),
 * a block outranks both; a renamed skill is deprecated in favour of its replacement.
 * @example classifyInstalled("x", { tree_hash: "a…", version: null }, { kind: "gone" }).state // "gone"
 */
export function classifyInstalled(name: string, installed: OutdatedRow["installed"], answer: ShelfAnswer): OutdatedRow {
  const row: OutdatedRow = { name, state: "current", installed, available: null, deprecated: null, replaced_by: null, advisory: null };
  switch (answer.kind) {
    case "gone":
      return { ...row, state: "gone" };
    case "blocked":
      return { ...row, state: "blocked", advisory: answer.advisory_id ?? answer.reason };
    case "renamed":
      return { ...row, state: "deprecated", deprecated: `renamed to ${answer.replaced_by}`, replaced_by: answer.replaced_by };
    case "skill": {
      const byDigest = installed.well_known_digest !== undefined;
      const available = { tree_hash: answer.tree_hash, version: answer.version, ...(byDigest ? { well_known_digest: answer.digest ?? null } : {}) };
      const same = byDigest ? installed.well_known_digest === answer.digest : installed.tree_hash === answer.tree_hash;
      const state: InstalledState = answer.deprecated !== null ? "deprecated" : same ? "current" : "newer";
      return { ...row, state, available, deprecated: answer.deprecated, replaced_by: answer.replaced_by };
    }
  }
}

/** 1 when anything is blocked or gone (CI gates on it), else 0. */
export function outdatedExitCode(rows: readonly OutdatedRow[]): number {
  return rows.some((r) => r.state === "blocked" || r.state === "gone") ? 1 : 0;
}
