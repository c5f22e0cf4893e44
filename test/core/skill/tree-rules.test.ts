// The one table of tree rules (src/core/skill/tree-rules.ts): each rule with its words, the twins
// file systems fold together (case and Unicode normalization), the limits, a whole skill folder
// validated against it, and the checks the Worker applies to a stored record with the same rules.
import { describe, expect, it } from "vitest";
import {
  describedSkillProblems,
  MAX_BYTES_PER_SKILL,
  MAX_FILES_PER_SKILL,
  skillListProblems,
  treeProblems,
  type DescribedSkill,
} from "../../../src/core/skill/tree-rules.ts";
import { validateSkillFolder } from "../../../src/core/skill/validate.ts";
import { mediaTypeFor } from "../../../src/core/skill/inventory.ts";

const tree = (...paths: string[]) => treeProblems(paths.map((path) => ({ path, size: 1 })));
const enc = new TextEncoder();
const skillMd = (name: string) => enc.encode(`---\nname: ${name}\ndescription: Does ${name} things for the tree-rule tests.\n---\n# ${name}\n\nSteps.\n`);

describe("path rules", () => {
  it("flags absolute, dot-dot, empty segments and NUL, and accepts ordinary nested paths", () => {
    expect(tree("/etc/passwd")[0]).toMatch(/absolute/);
    expect(tree("a/../b")[0]).toMatch(/\.\./);
    expect(tree("a//b")[0]).toMatch(/empty/);
    expect(tree("a/./b")[0]).toMatch(/"\." segment/);
    expect(tree("a\u0000b")[0]).toMatch(/NUL/);
    expect(tree("a\\b")[0]).toMatch(/backslash/);
    expect(tree("")[0]).toMatch(/empty path/);
    expect(tree("SKILL.md", "references/deep/nested/a.md", "assets/logo.png", "assets/index.json")).toEqual([]);
  });

  it("refuses root names that collide with the archives or the static layout", () => {
    expect(tree("SKILL.md", "index.json")[0]).toMatch(/"index.json" at the skill root collides with the static-host layout/);
    expect(tree("SKILL.md", "__proto__")[0]).toMatch(/"__proto__" at the skill root cannot be stored in the .zip/);
    expect(tree("SKILL.md", "7")[0]).toMatch(/file name "7" is a bare number at the skill root/);
    expect(tree("SKILL.md", "references/__proto__", "constructor", "references/7", "07")).toEqual([]);
  });

  it("refuses a lone surrogate in a path", () => {
    expect(tree("SKILL.md", "a\ud800.md")[0]).toMatch(/lone surrogate/);
    expect(tree("SKILL.md", "emoji-\u{1F600}.md")).toEqual([]);
  });

  it("refuses a path a tar header cannot hold, exactly where the archive would", () => {
    expect(tree(`${"d".repeat(155)}/${"n".repeat(100)}`)).toEqual([]);
    expect(tree(`${"d".repeat(156)}/${"n".repeat(100)}`)[0]).toMatch(/too long for a tar archive/);
    expect(tree("n".repeat(101))[0]).toMatch(/too long for a tar archive/);
    // Bytes, not characters: 34 three-byte characters are 102 bytes.
    expect(tree("€".repeat(34))[0]).toMatch(/too long for a tar archive/);
  });
});

describe("twins and duplicates", () => {
  it("refuses case-only twins, of files and of folders", () => {
    expect(tree("references/Guide.md", "references/guide.md")).toEqual([
      `paths "references/Guide.md" and "references/guide.md" differ only by case; they collide on case-insensitive file systems. Rename one`,
    ]);
    expect(tree("Refs/a.md", "refs/b.md")[0]).toMatch(/paths "Refs" and "refs" differ only by case/);
  });

  it("refuses Unicode normalization twins (NFC and NFD spellings of one name)", () => {
    const nfc = "caf\u00e9.md";
    const nfd = "cafe\u0301.md";
    expect(nfc).not.toBe(nfd);
    const problems = tree("SKILL.md", nfc, nfd);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/paths "cafe\\u0301.md" and "caf\\u00e9.md" differ only in Unicode normalization/);
    expect(tree(`r\u00e9f/a.md`, `re\u0301f/b.md`)[0]).toMatch(/differ only in Unicode normalization/);
    expect(tree("CAF\u00c9.md", nfd)[0]).toMatch(/differ only by case and Unicode normalization/);
  });

  it("refuses the same path twice and a path that is a file and a folder (what only a document can say)", () => {
    expect(tree("SKILL.md", "a.md", "a.md")).toEqual([`path "a.md" is listed 2 times; a skill holds each file once`]);
    expect(tree("SKILL.md", "a", "a/b.md")).toEqual([`path "a" is a file and also the folder of "a/b.md"; rename one`]);
  });
});

describe("limits", () => {
  it("refuses more files than the MCP skills extension allows", () => {
    const files = Array.from({ length: MAX_FILES_PER_SKILL + 1 }, (_, i) => ({ path: `f${i}.md`, size: 1 }));
    expect(treeProblems(files)).toEqual([`513 files; a skill may hold at most 512 (the MCP skills extension's limit). Split it or remove files`]);
    expect(treeProblems(files.slice(1))).toEqual([]);
  });

  it("refuses 100,000 files quickly, in one problem", () => {
    const files = Array.from({ length: 100_000 }, (_, i) => ({ path: `references/f${i}.md`, size: 1 }));
    const started = Date.now();
    expect(treeProblems(files)).toEqual([`100000 files; a skill may hold at most 512 (the MCP skills extension's limit). Split it or remove files`]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses more bytes than the MCP skills extension allows", () => {
    expect(treeProblems([{ path: "big.bin", size: MAX_BYTES_PER_SKILL }])).toEqual([]);
    expect(treeProblems([{ path: "big.bin", size: 17 * 1024 * 1024 }])[0]).toMatch(
      /^17825792 bytes; a skill may hold at most 16777216 bytes \(16 MiB, the MCP skills extension's limit\)/,
    );
  });
});

describe("a whole skill folder", () => {
  it("reports SKILL.md's problems and the tree's together, as field 'files'", () => {
    const v = validateSkillFolder("demo", [
      { path: "SKILL.md", bytes: skillMd("demo") },
      { path: "index.json", bytes: enc.encode("{}") },
    ]);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([
      expect.objectContaining({ skill: "demo", field: "files", severity: "error", message: expect.stringMatching(/"index.json" at the skill root/) }),
    ]);
    expect(v.metadata?.name).toBe("demo");
  });

  it("names a missing SKILL.md, and accepts a clean folder", () => {
    expect(validateSkillFolder("demo", [{ path: "README.md", bytes: enc.encode("x") }], "/shelf/skills/demo").problems[0]?.message).toBe(
      "no SKILL.md in /shelf/skills/demo; a skill folder needs one at its root",
    );
    expect(validateSkillFolder("demo", [{ path: "SKILL.md", bytes: skillMd("demo") }]).ok).toBe(true);
  });
});

describe("a skill as a record describes it (what the Worker checks)", () => {
  const described = (overrides: Partial<DescribedSkill> = {}): DescribedSkill => {
    const files = (overrides.files ?? [
      { path: "SKILL.md", size: 10, media_type: mediaTypeFor("SKILL.md") },
      { path: "references/a.md", size: 5, media_type: mediaTypeFor("a.md") },
    ]) as DescribedSkill["files"];
    return { name: "demo", files, total_bytes: files.reduce((s, f) => s + f.size, 0), has_scripts: false, ...overrides };
  };

  it("accepts what the build writes", () => {
    expect(describedSkillProblems(described())).toEqual([]);
  });

  it("refuses a name that is not a skill name, paths outside the skill, duplicates and totals that lie", () => {
    expect(describedSkillProblems(described({ name: "../../evil" }))).toEqual([
      `skill name "../../evil" is not a skill name: lowercase letters, digits and single hyphens, at most 64 characters`,
    ]);
    const outside = described({
      files: [
        { path: "../../../../outside.txt", size: 1, media_type: "text/plain; charset=utf-8" },
        { path: "SKILL.md", size: 1, media_type: "text/markdown; charset=utf-8" },
      ],
    });
    expect(describedSkillProblems(outside)).toEqual([`path "../../../../outside.txt" contains "..": rename it`]);
    const twice = described({
      files: [
        { path: "SKILL.md", size: 1, media_type: "text/markdown; charset=utf-8" },
        { path: "SKILL.md", size: 1, media_type: "text/markdown; charset=utf-8" },
      ],
    });
    expect(describedSkillProblems(twice)).toEqual([`path "SKILL.md" is listed 2 times; a skill holds each file once`]);
    expect(describedSkillProblems(described({ total_bytes: 1 }))).toEqual(["total_bytes is 1, but the files add up to 15"]);
    expect(describedSkillProblems(described({ has_scripts: true }))).toEqual(["has_scripts is true, but the file list says false"]);
  });

  it("refuses a file list without SKILL.md, out of order, or with another media type", () => {
    expect(describedSkillProblems(described({ files: [{ path: "a.md", size: 1, media_type: mediaTypeFor("a.md") }] }))).toEqual([
      `the file list has no "SKILL.md" at the skill root`,
    ]);
    const reversed = described().files.slice().reverse();
    expect(describedSkillProblems(described({ files: reversed }))).toEqual(["the file list is not sorted bytewise by path"]);
    const html = described({ files: [{ path: "SKILL.md", size: 10, media_type: "text/html; charset=utf-8" }] });
    expect(describedSkillProblems(html)).toEqual([
      `file "SKILL.md" has media_type "text/html; charset=utf-8"; its extension gives "text/markdown; charset=utf-8"`,
    ]);
  });

  it("refuses a skill listed twice, a bad name, or names out of order in one listing", () => {
    expect(skillListProblems(["alpha", "beta"])).toEqual([]);
    expect(skillListProblems(["alpha", "alpha"])).toEqual([`skill "alpha" is listed twice; a shelf holds each skill once`]);
    expect(skillListProblems(["beta", "alpha"])).toEqual(["the skills are not sorted by name"]);
    expect(skillListProblems(["Evil"])[0]).toMatch(/is not a skill name/);
  });
});
