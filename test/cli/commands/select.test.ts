// selectSkills over the filesystem source against abstractskill's select_skills_for_context:
// the same two roots, records and requests give the same active/held/blocked/missing sets,
// notes, pinned hashes, declared requirements and <available_skills> block.
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import golden from "../../goldens/abstractskill/selection.json";
import { parseAdvisories, parseValidations } from "../../../src/core/trust/records.ts";
import { selectSkills } from "../../../src/core/trust/select.ts";
import { filesystemSkillSource } from "../../../src/cli/lib/skill-source.ts";

let tmp: string;
const records = {
  validations: parseValidations(JSON.stringify({ validations: golden.validations })).entries,
  advisories: parseAdvisories(JSON.stringify({ advisories: golden.advisories })).entries,
};

async function materialize(root: string, files: Record<string, string>, links: Record<string, string> = {}) {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  for (const [rel, target] of Object.entries(links)) await symlink(target, path.join(root, rel));
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "skillshelf-select-"));
  await materialize(path.join(tmp, "curated"), golden.roots.curated, golden.symlinks.curated);
  await materialize(path.join(tmp, "user"), golden.roots.user);
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

// Reasons worded by a parser or tree walker (ours are our own sentences) are compared by place
// only; every other note must match word for word.
function normalizeNotes(notes: string[]): string[] {
  return notes.map((n) =>
    n
      .replace(/^(#FALLBACK: skipping invalid skill at \S+): .*$/s, "$1: <parser reason>")
      .replace(/^(#FALLBACK: skill '[^']*' named for this context is not loadable): (?!skill not found|skill name).*$/s, "$1: <reader reason>"),
  );
}

/** One recorded call of select_skills_for_context: its inputs, and its outputs compared as recorded. */
interface SelectionScenario {
  label: string;
  roots: string[];
  names: unknown[];
  enabled?: unknown;
  sources?: Record<string, unknown>;
  on_warning: string[];
  [output: string]: unknown;
}

describe("selection matches select_skills_for_context", () => {
  for (const s of golden.scenarios as SelectionScenario[]) {
    it(s.label, async () => {
      const roots = s.roots.map((r) => path.join(tmp, r));
      const selection = await selectSkills(records, filesystemSkillSource(roots), s.names, { enabled: s.enabled, sources: s.sources });
      const gated = (list: { name: string; verdict: { level: string; reasons: string[] } }[]) =>
        list.map((g) => ({ name: g.name, level: g.verdict.level, reasons: g.verdict.reasons }));
      const rooted = (text: string) => text.replaceAll(tmp, "<ROOT>");
      expect(selection.active_names).toEqual(s.active);
      expect(gated(selection.held)).toEqual(s.held);
      expect(gated(selection.blocked)).toEqual(s.blocked);
      expect(selection.missing).toEqual(s.missing);
      expect(selection.activation_descriptions).toEqual(s.activation_descriptions);
      expect(selection.resolved_tree_hashes).toEqual(s.resolved_tree_hashes);
      expect(Object.fromEntries(Object.entries(selection.resolved_locations).map(([k, v]) => [k, rooted(v)]))).toEqual(s.resolved_paths);
      expect(selection.requires).toEqual(s.requires);
      expect(selection.activation_block).toBe(s.activation_block);
      expect(normalizeNotes(selection.warnings.map(rooted))).toEqual(normalizeNotes(s.on_warning));
    });
  }
});

describe("the SKILL.md parsed is the SKILL.md hashed", () => {
  it("refuses a skill whose SKILL.md is swapped between parse and hash", async () => {
    const root = path.join(tmp, "swap");
    await materialize(root, { "omega/SKILL.md": "---\nname: omega\ndescription: Honest.\n---\nbody\n" });
    const source = filesystemSkillSource([root], {
      afterParse: (dir) => writeFile(path.join(dir, "SKILL.md"), "---\nname: omega\ndescription: Swapped in.\n---\nrun evil\n"),
    });
    const selection = await selectSkills({ validations: [], advisories: [] }, source, ["omega"], { enabled: ["omega"] });
    expect(selection.missing).toEqual(["omega"]);
    expect(selection.active).toEqual([]);
    expect(selection.resolved_tree_hashes).toEqual({});
    expect(selection.warnings.at(-1)).toMatch(/changed between load and hash \(parsed SKILL\.md sha256 [0-9a-f]{16}… vs hashed [0-9a-f]{16}…\)/);
  });
  it("accepts the same skill when nothing changes in that window", async () => {
    const root = path.join(tmp, "swap");
    const selection = await selectSkills({ validations: [], advisories: [] }, filesystemSkillSource([root], { afterParse: () => undefined }), ["omega"], {
      enabled: ["omega"],
    });
    expect(selection.active_names).toEqual(["omega"]);
  });
});
