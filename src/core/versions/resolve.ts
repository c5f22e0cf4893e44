// Resolving what a client asks for (`^1.2`, `~1.2.3`, `>=1 <2`, `1.2.3`, `latest`,
// `sha256:<hex>`) against a skill's versions, with the `semver` package's rules: a prerelease
// matches only a range that names a prerelease of the same major.minor.patch, build metadata
// does not order, and "newest" is the highest precedence (the most recently current among equals).
import semver from "semver";
import { isSha256Hex } from "../skill/hash.ts";

/** Longest version range accepted, in characters (npm's own ranges are far shorter). */
export const MAX_RANGE_CHARS = 256;

/** What a request asked for, parsed. */
export type VersionSelector = { kind: "latest" } | { kind: "tree"; tree_hash: string } | { kind: "exact"; version: string } | { kind: "range"; range: string };

/** A request's range is not one this resolver reads. */
export class InvalidRangeError extends Error {
  constructor(range: string) {
    super(
      `'${range.slice(0, 80)}' is not a version range: use a semver range (^1.2, ~1.2.3, >=1 <2), an exact version, latest, or sha256:<tree hash in lowercase hex>`,
    );
    this.name = "InvalidRangeError";
  }
}

/**
 * Parses a request's range. Exact versions are kept as written (build metadata included), so
 * `1.0.0+b` finds only that build; everything else goes to semver.
 * @example parseSelector("^1.2") // => { kind: "range", range: "^1.2" }
 * @throws InvalidRangeError
 */
export function parseSelector(raw: string): VersionSelector {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_RANGE_CHARS) throw new InvalidRangeError(raw);
  if (text === "latest") return { kind: "latest" };
  if (text.startsWith("sha256:")) {
    const hex = text.slice("sha256:".length);
    if (!isSha256Hex(hex)) throw new InvalidRangeError(raw);
    return { kind: "tree", tree_hash: hex };
  }
  if (semver.valid(text) !== null && /^[=v]?\d/.test(text)) return { kind: "exact", version: text.replace(/^[=v]/, "") };
  if (semver.validRange(text) === null) throw new InvalidRangeError(raw);
  return { kind: "range", range: text };
}

/** What resolution needs of a version. */
export interface Resolvable {
  version: string | null;
  tree_hash: string;
  /** The pointer seq it was last current at: breaks ties between equal precedences. */
  seq: number;
}

/**
 * Whether a version satisfies a selector. `latest` is `*`: any release (no prerelease). A
 * skill without a version is reached by its tree hash only (and by `latest` when none of its
 * versions has one).
 * @example matches({ version: "1.3.0-rc.1", tree_hash, seq: 1 }, parseSelector("^1.2")) // => false
 */
export function matches(candidate: Resolvable, selector: VersionSelector): boolean {
  switch (selector.kind) {
    case "tree":
      return candidate.tree_hash === selector.tree_hash;
    case "latest":
      return candidate.version !== null && semver.valid(candidate.version) !== null && semver.prerelease(candidate.version) === null;
    case "exact":
      return (
        candidate.version !== null &&
        (candidate.version === selector.version ||
          (semver.valid(candidate.version) !== null && !selector.version.includes("+") && semver.eq(candidate.version, selector.version)))
      );
    case "range":
      return candidate.version !== null && semver.valid(candidate.version) !== null && semver.satisfies(candidate.version, selector.range);
  }
}

/**
 * Newest first: highest semver precedence, then the most recently current; versions that are
 * not semver (or absent) after every semver one, most recently current first.
 * @example [...versions].sort(newestFirst)
 */
export function newestFirst(a: Resolvable, b: Resolvable): number {
  const va = a.version !== null && semver.valid(a.version) !== null ? a.version : null;
  const vb = b.version !== null && semver.valid(b.version) !== null ? b.version : null;
  if (va !== null && vb !== null) {
    const order = semver.rcompare(va, vb);
    if (order !== 0) return order;
  } else if (va !== null || vb !== null) {
    return va !== null ? -1 : 1;
  }
  return b.seq - a.seq;
}

/**
 * Every candidate the selector matches, newest first. `latest` over a skill with no release at
 * all falls back to its most recently current version (so an unversioned skill has a latest).
 * @example matching(versions, parseSelector("~1.2.3"))[0]?.version
 */
export function matching<T extends Resolvable>(candidates: readonly T[], selector: VersionSelector): T[] {
  const found = candidates.filter((c) => matches(c, selector));
  if (selector.kind === "latest" && found.length === 0) return [...candidates].sort((a, b) => b.seq - a.seq);
  return found.sort(newestFirst);
}
