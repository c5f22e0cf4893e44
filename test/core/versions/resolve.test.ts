// Range resolution (issue 17): a table of ranges against a skill's versions, prereleases
// included (a range matches one only when it names a prerelease of the same major.minor.patch,
// as the semver package does), checked by hand and against semver.maxSatisfying itself.
import semver from "semver";
import { describe, expect, it } from "vitest";
import { InvalidRangeError, matching, newestFirst, parseSelector, type Resolvable } from "../../../src/core/versions/resolve.ts";

const hash = (n: number) => n.toString(16).padStart(64, "0");
// seq: the order the versions were published in (the last one is current).
const VERSIONS: Resolvable[] = [
  { version: "1.0.0", tree_hash: hash(1), seq: 1 },
  { version: "1.2.0", tree_hash: hash(2), seq: 2 },
  { version: "1.2.3", tree_hash: hash(3), seq: 3 },
  { version: "1.3.0-beta.1", tree_hash: hash(4), seq: 4 },
  { version: "1.2.4", tree_hash: hash(5), seq: 5 },
  { version: "2.0.0-rc.1", tree_hash: hash(6), seq: 6 },
  { version: "2.0.0-rc.2", tree_hash: hash(7), seq: 7 },
  { version: "0.9.0", tree_hash: hash(8), seq: 8 },
];

function resolve(range: string, candidates = VERSIONS): string | null {
  return matching(candidates, parseSelector(range))[0]?.version ?? null;
}

describe("range resolution table", () => {
  it.each([
    ["^1.2", "1.2.4"],
    ["^1.2.0", "1.2.4"],
    ["~1.2.3", "1.2.4"],
    ["~1.2", "1.2.4"],
    [">=1 <2", "1.2.4"],
    [">=1.0.0 <1.2.0", "1.0.0"],
    ["1.2.3", "1.2.3"],
    ["=1.2.3", "1.2.3"],
    ["v1.2.3", "1.2.3"],
    ["1.x", "1.2.4"],
    ["*", "1.2.4"],
    ["latest", "1.2.4"],
    ["^0.9", "0.9.0"],
    ["<1", "0.9.0"],
    // Prereleases: only a range naming one of the same major.minor.patch reaches it.
    ["^1.3.0-beta.0", "1.3.0-beta.1"],
    // 2.0.0-rc.2 is above it, but a prerelease of another major.minor.patch: not reached.
    [">=1.3.0-beta.1", "1.3.0-beta.1"],
    ["2.0.0-rc.1", "2.0.0-rc.1"],
    [">=2.0.0-rc.1 <2.0.0-rc.2", "2.0.0-rc.1"],
    ["^2.0.0-rc.1", "2.0.0-rc.2"],
    [">=1.2.4", "1.2.4"],
    ["^2", null],
    ["^3.0.0", null],
    ["1.2.9", null],
  ])("%s → %s", (range, expected) => {
    expect(resolve(range)).toBe(expected);
  });

  it("never picks a prerelease for a range that does not name one, as semver.maxSatisfying", () => {
    const ranges = ["^1", "^1.2", "~1.3", ">=1 <3", "*", ">0.5", "1.x || 2.x", "<=2.0.0", "^1.3.0-beta.0", ">=2.0.0-rc.1", "~2.0.0-rc.1"];
    const all = VERSIONS.map((v) => v.version!);
    for (const range of ranges) expect(resolve(range), range).toBe(semver.maxSatisfying(all, range));
  });

  it("addresses a version by tree hash, whatever its version (or none)", () => {
    const unversioned: Resolvable[] = [
      { version: null, tree_hash: hash(10), seq: 1 },
      { version: null, tree_hash: hash(11), seq: 2 },
    ];
    expect(matching(unversioned, parseSelector(`sha256:${hash(10)}`)).map((v) => v.tree_hash)).toEqual([hash(10)]);
    expect(matching(VERSIONS, parseSelector(`sha256:${hash(6)}`))[0]?.version).toBe("2.0.0-rc.1");
    // No range reaches an unversioned skill; latest falls back to the most recently current.
    expect(matching(unversioned, parseSelector("*"))).toEqual([]);
    expect(matching(unversioned, parseSelector("latest"))[0]?.tree_hash).toBe(hash(11));
  });

  it("orders newest first by precedence, then by the most recent move, unversioned last", () => {
    const mixed: Resolvable[] = [
      { version: null, tree_hash: hash(20), seq: 9 },
      { version: "1.0.0+build.1", tree_hash: hash(21), seq: 1 },
      { version: "1.0.0+build.2", tree_hash: hash(22), seq: 2 },
      { version: "1.1.0", tree_hash: hash(23), seq: 3 },
    ];
    expect([...mixed].sort(newestFirst).map((v) => v.tree_hash)).toEqual([hash(23), hash(22), hash(21), hash(20)]);
    // Build metadata does not order: an exact version without it matches both builds, the newer first.
    expect(matching(mixed, parseSelector("1.0.0")).map((v) => v.tree_hash)).toEqual([hash(22), hash(21)]);
    expect(matching(mixed, parseSelector("1.0.0+build.1")).map((v) => v.tree_hash)).toEqual([hash(21)]);
  });

  it.each(["", "   ", "not a range", "sha256:abc", `sha256:${"A".repeat(64)}`, ">=>=1", "x".repeat(300)])("refuses %j", (range) => {
    expect(() => parseSelector(range)).toThrow(InvalidRangeError);
  });
});
