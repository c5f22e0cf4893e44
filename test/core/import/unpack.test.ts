// Reading served artifacts: the archives skillshelf builds come back file for file, and hostile
// archives (escaping paths, links, duplicates, no SKILL.md) are refused.
import { gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { tarArchive, tarGzArchive, zipArchive } from "../../../src/core/generation/archive.ts";
import { readTar, unpackSkill, UnpackError } from "../../../src/core/import/unpack.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const FILES = [
  { path: "SKILL.md", bytes: enc("---\nname: x\n---\n") },
  { path: "references/a-very-long-folder-name-that-goes-on/and-on-and-on-and-on-and-on-and-on-and-on-and-on/guide.md", bytes: enc("# G\n") },
];

/** A tar with one member of the given name and type flag. */
function tarWith(name: string, type: string): Uint8Array {
  const tar = tarArchive([{ path: "placeholder", bytes: enc("x") }]);
  const header = tar.subarray(0, 512);
  header.fill(0, 0, 100);
  header.set(enc(name), 0);
  header[156] = type.charCodeAt(0);
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of header) sum += b;
  header.set(enc(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return tar;
}

describe("unpackSkill", () => {
  it("reads back what the build archives, in both formats", () => {
    for (const [bytes, kind] of [
      [tarGzArchive(FILES), "tar.gz"],
      [zipArchive(FILES), "zip"],
    ] as const) {
      const files = unpackSkill(bytes, kind);
      expect(files.map((f) => f.path).sort()).toEqual(FILES.map((f) => f.path).sort());
      expect(new TextDecoder().decode(files.find((f) => f.path === "SKILL.md")!.bytes)).toBe("---\nname: x\n---\n");
    }
    expect(unpackSkill(enc("# md"), "skill-md")).toEqual([{ path: "SKILL.md", bytes: enc("# md") }]);
  });

  it("refuses escaping paths, links and archives without SKILL.md", () => {
    expect(() => readTar(tarWith("../../etc/passwd", "0"))).toThrow(/not a plain relative path/);
    expect(() => readTar(tarWith("/abs", "0"))).toThrow(UnpackError);
    expect(() => readTar(tarWith("link", "2"))).toThrow(/not a regular file/);
    expect(() => readTar(tarWith("hard", "1"))).toThrow(/not a regular file/);
    expect(() => unpackSkill(zipSync({ "../x": enc("x"), "SKILL.md": enc("s") }), "zip")).toThrow(/not a plain relative path/);
    expect(() => unpackSkill(zipSync({ "a.md": enc("x") }), "zip")).toThrow(/no SKILL.md/);
    expect(() => unpackSkill(gzipSync(enc("not a tar at all, just text")), "tar.gz")).toThrow(UnpackError);
    expect(() => unpackSkill(enc("garbage"), "zip")).toThrow(/not a zip/);
  });
});
