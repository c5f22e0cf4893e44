// Deterministic archives and canonical JSON, in workerd (the same bytes the CLI builds on Node).
import { gunzipSync, unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ArchiveError, tarArchive, tarGzArchive, zipArchive } from "../../../src/core/generation/archive.ts";
import { canonicalDocument, canonicalJson, isCanonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { ARCHIVE_DIGESTS, ARCHIVE_FIXTURE } from "./archive-fixture.ts";

describe("deterministic archives", () => {
  it("match the committed digests", async () => {
    expect(await sha256Hex(tarArchive(ARCHIVE_FIXTURE))).toBe(ARCHIVE_DIGESTS.tar);
    expect(await sha256Hex(tarGzArchive(ARCHIVE_FIXTURE))).toBe(ARCHIVE_DIGESTS.tarGz);
    expect(await sha256Hex(zipArchive(ARCHIVE_FIXTURE))).toBe(ARCHIVE_DIGESTS.zip);
  });

  it("do not depend on the order files are given in", async () => {
    const reversed = [...ARCHIVE_FIXTURE].reverse();
    expect(await sha256Hex(tarGzArchive(reversed))).toBe(ARCHIVE_DIGESTS.tarGz);
    expect(await sha256Hex(zipArchive(reversed))).toBe(ARCHIVE_DIGESTS.zip);
  });

  it("carry no gzip timestamp or name, and round-trip every file at the archive root", () => {
    const gz = tarGzArchive(ARCHIVE_FIXTURE);
    expect([...gz.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);
    expect(gunzipSync(gz)).toEqual(tarArchive(ARCHIVE_FIXTURE));
    const unzipped = unzipSync(zipArchive(ARCHIVE_FIXTURE));
    expect(Object.keys(unzipped).sort()).toEqual(ARCHIVE_FIXTURE.map((f) => f.path).sort());
    for (const f of ARCHIVE_FIXTURE) expect(unzipped[f.path]).toEqual(f.bytes);
  });

  it("refuse paths a ustar header cannot hold and bare numeric names zip would reorder", () => {
    expect(() => tarArchive([{ path: `${"x".repeat(101)}`, bytes: new Uint8Array() }])).toThrow(ArchiveError);
    expect(() => tarArchive([{ path: `${"d".repeat(160)}/file`, bytes: new Uint8Array() }])).toThrow(/too long/);
    expect(() => zipArchive([{ path: "42", bytes: new Uint8Array() }])).toThrow(/bare number/);
  });

  it("refuse a root file named __proto__ (it would corrupt the zip) and zip Object.prototype names as plain files", () => {
    const bytes = new TextEncoder().encode("x\n");
    expect(() =>
      zipArchive([
        { path: "SKILL.md", bytes },
        { path: "__proto__", bytes },
      ]),
    ).toThrow(/__proto__/);
    const files = ["SKILL.md", "constructor", "toString", "hasOwnProperty", "references/__proto__"].map((path) => ({ path, bytes }));
    const unzipped = unzipSync(zipArchive(files));
    expect(Object.keys(unzipped).sort()).toEqual(files.map((f) => f.path).sort());
    for (const f of files) expect(unzipped[f.path]).toEqual(bytes);
  });
});

describe("canonical JSON (RFC 8785)", () => {
  it("sorts keys, writes numbers and strings canonically, and hashes the bytes", async () => {
    const text = new TextDecoder().decode(canonicalJson({ b: [1, 1e21, 0.5], a: "é\u2028", c: { z: null, y: true } }));
    expect(text).toBe('{"a":"é\u2028","b":[1,1e+21,0.5],"c":{"y":true,"z":null}}');
    const doc = await canonicalDocument({ b: 1, a: 2 });
    expect(doc.sha256).toBe(await sha256Hex('{"a":2,"b":1}'));
    expect(doc.size).toBe(13);
  });

  it("recognises canonical bytes only", () => {
    const e = new TextEncoder();
    expect(isCanonicalJson(e.encode('{"a":1,"b":[true]}'))).toBe(true);
    expect(isCanonicalJson(e.encode('{"b":[true],"a":1}'))).toBe(false);
    expect(isCanonicalJson(e.encode('{"a": 1}'))).toBe(false);
    expect(isCanonicalJson(e.encode("not json"))).toBe(false);
    expect(isCanonicalJson(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe(false);
  });
});

describe("generation assembly", () => {
  it("gives the same bytes and id whatever order skills and files arrive in", async () => {
    const { assembleGeneration } = await import("../../../src/core/generation/assemble.ts");
    const { skillInput } = await import("../../worker/admin/helpers.ts");
    const skills = [await skillInput("zeta", { "references/b.md": "b\n", "references/a.md": "a\n" }), await skillInput("alpha")];
    const shelf = { catalogVersion: "2026.1", recordDigests: { validations: null, advisories: null, guidance: null, catalog: null }, advisories: [] };
    const one = await assembleGeneration(skills, shelf);
    const reordered = skills.map((s) => ({ ...s, files: [...s.files].reverse() })).reverse();
    const two = await assembleGeneration(reordered, shelf);
    expect(two.id).toBe(one.id);
    expect(two.manifestBytes).toEqual(one.manifestBytes);
    expect(two.objects.map((o) => `${o.kind}:${o.sha256}`)).toEqual(one.objects.map((o) => `${o.kind}:${o.sha256}`));
    expect(one.id).toBe(await sha256Hex(one.manifestBytes));
    // Any change to any byte changes the id.
    const changed = await assembleGeneration(
      [await skillInput("zeta", { "references/b.md": "b\n", "references/a.md": "A\n" }), await skillInput("alpha")],
      shelf,
    );
    expect(changed.id).not.toBe(one.id);
  });
});
