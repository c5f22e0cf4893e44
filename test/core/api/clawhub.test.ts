// src/core/api/clawhub.ts in workerd: the Worker's localeCompare gives the fingerprint the real
// `clawhub` CLI computes in Node (the golden in clawhub-paths.ts, checked against the CLI by
// test/shelf/clawhub-fingerprint.test.ts), and version names round-trip.
import { describe, expect, it } from "vitest";
import { clawhubFingerprint, clawhubVersion, versionsNamed } from "../../../src/core/api/clawhub.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { LOCALE_ORDER_FINGERPRINT, LOCALE_ORDER_PATHS } from "./clawhub-paths.ts";

const tree = (c: string) => c.repeat(64);

describe("clawhubFingerprint", () => {
  it("sorts with localeCompare in workerd exactly as the CLI does in Node", async () => {
    const files = await Promise.all(LOCALE_ORDER_PATHS.map(async (path) => ({ path, sha256: await sha256Hex(path) })));
    expect(await clawhubFingerprint(files)).toBe(LOCALE_ORDER_FINGERPRINT);
    expect(await clawhubFingerprint([...files].reverse())).toBe(LOCALE_ORDER_FINGERPRINT);
  });
});

describe("clawhubVersion and versionsNamed", () => {
  const versions = [
    { version: "1.1.0", tree_hash: tree("a"), seq: 4 },
    { version: "1.0.0", tree_hash: tree("b"), seq: 2 },
    { version: null, tree_hash: tree("c"), seq: 3 },
    { version: "2024-draft", tree_hash: tree("d"), seq: 1 },
  ];

  it("keeps semver versions and derives a semver prerelease for the rest", () => {
    expect(versions.map(clawhubVersion)).toEqual(["1.1.0", "1.0.0", "0.0.0-3.tcccccccccccc", "0.0.0-1.tdddddddddddd"]);
  });

  it("finds a version by its name, a derived one by its tree hash whatever seq it names", () => {
    expect(versionsNamed(versions, "1.0.0").map((v) => v.tree_hash)).toEqual([tree("b")]);
    expect(versionsNamed(versions, "v1.0.0").map((v) => v.tree_hash)).toEqual([tree("b")]);
    expect(versionsNamed(versions, "0.0.0-9.tcccccccccccc").map((v) => v.tree_hash)).toEqual([tree("c")]);
    expect(versionsNamed(versions, "0.0.0-1.taaaaaaaaaaaa")).toEqual([]);
    expect(versionsNamed(versions, "^1")).toEqual([]);
    expect(versionsNamed(versions, "2024-draft")).toEqual([]);
  });
});
