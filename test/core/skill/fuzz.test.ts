// Property-based fuzzing of core (issue 11), seeded and bounded: hostile frontmatter, record files
// and file trees never make core throw anything but its typed errors; what the build accepts
// archives, serializes and passes the Worker's checks of an upload; and the Worker refuses every
// tree the build refuses, because both read the same rule table.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tarArchive, zipArchive } from "../../../src/core/generation/archive.ts";
import { assembleGeneration, describeSkill } from "../../../src/core/generation/assemble.ts";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { readJsonText } from "../../../src/core/publish/json-text.ts";
import { YamlError, parseYaml11 } from "../../../src/core/python-compat/yaml11.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import type { SkillFile } from "../../../src/core/skill/skill.ts";
import { parseSkillMd, SkillMdError } from "../../../src/core/skill/skill-md.ts";
import { describedSkillProblems, treeProblems } from "../../../src/core/skill/tree-rules.ts";
import { validateSkillFolder, validateSkillMd } from "../../../src/core/skill/validate.ts";
import { loadShelfRecords } from "../../../src/core/trust/records.ts";
import { advisoryToDict } from "../../../src/core/trust/serialize.ts";
import { advisoriesText, documentPath, fileBytes, fuzzOptions, skillMdText } from "./arbitraries.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const SKILL_MD = enc.encode("---\nname: demo\ndescription: Does one thing well, for the fuzz tests.\n---\n# Steps\n\nDo it.\n");
const trust = () => ({
  source: null,
  validations: [],
  verdict: { level: "unverified" as const, blocked: false, requires_review: true, attachable: false, reasons: [], warnings: [] },
});

/** Runs `f`; anything it throws must be one of `allowed` (core's typed errors), never a TypeError or RangeError. */
function onlyTyped(f: () => unknown, allowed: readonly (new (...args: never[]) => Error)[]): void {
  try {
    f();
  } catch (error) {
    if (!allowed.some((type) => error instanceof type)) throw new Error(`untyped ${(error as Error)?.name}: ${(error as Error)?.message}`, { cause: error });
  }
}

/** Builds the generation of one skill from `files` as the build does, and returns its stored record, read back as the Worker reads an upload. */
async function storedRecord(files: SkillFile[]) {
  const validation = validateSkillFolder("demo", files);
  const inventory = await buildInventory(files);
  const built = await assembleGeneration([{ files, record: describeSkill(validation.metadata!, validation.parsed!, inventory, trust()) }], {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
  });
  const bytes = built.objects.find((o) => o.kind === "record")!.bytes;
  const read = readJsonText(bytes, "record");
  expect(read.ok, dec.decode(bytes).slice(0, 200)).toBe(true);
  return SkillRecordSchema.parse((read as { value: unknown }).value);
}

describe("fuzz: SKILL.md frontmatter and YAML", () => {
  it("validation never throws; parsing throws only its typed errors; what validates builds into a record the Worker accepts", async () => {
    await fc.assert(
      fc.asyncProperty(skillMdText("demo"), async (text) => {
        onlyTyped(() => parseSkillMd(text), [SkillMdError]);
        const bytes = enc.encode(text);
        const validation = validateSkillMd("demo", bytes);
        if (!validation.ok) return;
        const record = await storedRecord([{ path: "SKILL.md", bytes }]);
        expect(describedSkillProblems(record)).toEqual([]);
      }),
      fuzzOptions(0x5eed11, 400),
    );
  });

  it("YAML alone: parseYaml11 throws only YamlError, and what it returns is JSON", () => {
    fc.assert(
      fc.property(skillMdText("demo"), (text) => {
        const yaml = text.split("\n---\n")[0]!.slice(4);
        let value: unknown;
        onlyTyped(() => {
          value = parseYaml11(yaml).value;
        }, [YamlError]);
        if (value !== undefined) onlyTyped(() => canonicalJson(JSON.parse(JSON.stringify(value))), []);
      }),
      fuzzOptions(0x5eed12, 400),
    );
  });
});

describe("fuzz: record files", () => {
  it("loading never throws; accepted advisories serialize to JSON the Worker reads", () => {
    fc.assert(
      fc.property(advisoriesText, (text) => {
        let loaded: ReturnType<typeof loadShelfRecords> | undefined;
        onlyTyped(() => {
          loaded = loadShelfRecords({ advisories: text, validations: text, guidance: text });
        }, []);
        if (!loaded || loaded.problems.length) return;
        const read = readJsonText(canonicalJson(loaded.records.advisories.map(advisoryToDict)), "advisories");
        expect(read.ok).toBe(true);
      }),
      fuzzOptions(0x5eed13, 300),
    );
  });
});

describe("fuzz: skill file trees", () => {
  it("the rules never throw; an accepted tree archives and passes the Worker's checks; the Worker refuses whatever the build refuses", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(documentPath, fileBytes), { maxLength: 6 }), async (entries) => {
        const files: SkillFile[] = [{ path: "SKILL.md", bytes: SKILL_MD }, ...entries.map(([path, bytes]) => ({ path, bytes }))];
        const problems = treeProblems(files.map((f) => ({ path: f.path, size: f.bytes.length })));
        const validation = validateSkillFolder("demo", files);
        expect(validation.problems.map((p) => p.message)).toEqual(problems);
        expect(validation.ok).toBe(problems.length === 0);
        const inventory = await buildInventory(files);
        if (problems.length === 0) {
          expect(() => tarArchive(files)).not.toThrow();
          expect(() => zipArchive(files)).not.toThrow();
          expect(describedSkillProblems(await storedRecord(files))).toEqual([]);
        } else {
          // The record an unchecked build would write: the Worker names every problem the build names.
          const described = { name: "demo", files: inventory.files, total_bytes: inventory.total_bytes, has_scripts: inventory.has_scripts };
          expect(describedSkillProblems(described)).toEqual(expect.arrayContaining(problems));
        }
      }),
      fuzzOptions(0x5eed14, 400),
    );
  });
});
