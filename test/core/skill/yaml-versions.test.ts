// validate warns where YAML 1.1 (the Python references) and YAML 1.2 read a frontmatter value
// differently. The YAML 1.2 side is checked against the MCP SDK's own reading (skillEntry), the
// reading SkillsClient compares entries with, so the warning names what MCP clients really see.
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { describe, expect, it } from "vitest";
import { parseSkillMd } from "../../../src/core/skill/skill-md.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import { yamlReadingDifferences } from "../../../src/core/skill/yaml-versions.ts";

const encoder = new TextEncoder();
const skillMd = (extra: string) => `---\nname: demo\ndescription: A demo skill.\n${extra}---\n\n# Demo\n\nDo it.\n`;

/** Values YAML 1.1 and 1.2 read differently, with the top-level field each warning names. */
const DIFFERENT: [string, string, string][] = [
  ["an unquoted yes", "metadata:\n  enabled: yes\n", "metadata.enabled"],
  ["an unquoted on", "metadata:\n  mode: on\n", "metadata.mode"],
  ["a leading-zero octal", "perms: 0755\n", "perms"],
  ["an underscore number", "metadata:\n  big: 1_000\n", "metadata.big"],
  ["a sexagesimal number", "metadata:\n  time: 1:20\n", "metadata.time"],
  ["an unquoted date", "metadata:\n  since: 2024-01-01\n", "metadata.since"],
  ["a top-level date", "released: 2024-01-01\n", "released"],
];

/** Values both versions read alike: no warning. */
const SAME: [string, string][] = [
  ["quoted strings", 'version: "1.0"\nmetadata:\n  enabled: "yes"\n  since: "2024-01-01"\n'],
  ["true, false, null and numbers", "metadata:\n  a: true\n  b: false\n  c: null\n  d: 12\n  e: 1.5\n"],
  ["an integral float", "metadata:\n  f: 1.0\n"],
  ["lists and nested mappings", "metadata:\n  tags: [a, b]\n  nested:\n    x: y\n"],
];

describe("yamlReadingDifferences", () => {
  it.each(DIFFERENT)("finds %s, and the MCP SDK reads it as the YAML 1.2 side says", async (_what, extra, path) => {
    const text = skillMd(extra);
    const parsed = parseSkillMd(text);
    const differences = yamlReadingDifferences(parsed.frontmatterText, parsed.frontmatter);
    expect(differences.map((d) => d.path)).toEqual([path]);
    const sdk = (await skillEntry("demo", { "SKILL.md": encoder.encode(text) })).frontmatter as Record<string, unknown>;
    const sdkValue = path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], sdk);
    expect(sdkValue).toEqual(differences[0]!.yaml12);
  });

  it.each(SAME)("finds nothing in %s", (_what, extra) => {
    const parsed = parseSkillMd(skillMd(extra));
    expect(yamlReadingDifferences(parsed.frontmatterText, parsed.frontmatter)).toEqual([]);
  });
});

describe("validate", () => {
  it("warns, naming the value and both readings, and still passes the skill", () => {
    const result = validateSkillMd("demo", encoder.encode(skillMd("metadata:\n  enabled: yes\n")));
    expect(result.ok).toBe(true);
    const warning = result.problems.find((p) => p.field === "metadata.enabled" && p.message.includes("YAML 1.2"));
    expect(warning?.message).toBe(
      'metadata.enabled: YAML 1.1 (PyYAML: agentskills-core, AbstractSkill) reads the boolean true, YAML 1.2 (the MCP SDK, JavaScript clients) reads the string "yes"; quote the value so every client reads the same string',
    );
  });

  it("says nothing when every value is quoted", () => {
    const result = validateSkillMd("demo", encoder.encode(skillMd('metadata:\n  enabled: "yes"\n')));
    expect(result.problems.filter((p) => p.message.includes("YAML 1.2"))).toEqual([]);
  });
});
