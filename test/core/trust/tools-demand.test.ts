// effectiveTools, deriveDemand and the <available_skills> block against abstractskill's
// effective_tools, derive_demand and format_available_skills_xml.
import { describe, expect, it } from "vitest";
import demandGolden from "../../goldens/abstractskill/demand.json";
import promptGolden from "../../goldens/abstractskill/prompt.json";
import toolsGolden from "../../goldens/abstractskill/tools.json";
import { deriveDemand } from "../../../src/core/trust/demand.ts";
import { formatAvailableSkills } from "../../../src/core/trust/select.ts";
import { effectiveTools, effectiveToolsForSkill, type ToolNameMap } from "../../../src/core/trust/tools.ts";

describe("effectiveTools matches effective_tools", () => {
  for (const c of toolsGolden.cases as {
    label: string;
    grant: string[];
    skills: { name: string; allowed_tools: string[] }[];
    name_map: ToolNameMap | null;
    result: unknown;
    per_skill: unknown[];
  }[]) {
    it(c.label, () => {
      expect(effectiveTools(c.grant, c.skills, c.name_map)).toEqual(c.result);
      expect(c.skills.map((s) => effectiveToolsForSkill(c.grant, s, c.name_map))).toEqual(c.per_skill);
    });
  }
  it("never widens beyond the grant, whatever the skills declare", () => {
    const result = effectiveTools(["a"], [{ name: "s", allowed_tools: ["a", "b", "c"] }], { c: ["a", "z"] });
    expect(result.allowed).toEqual(["a"]);
    expect(result.allowed.every((t) => ["a"].includes(t))).toBe(true);
  });
});

describe("deriveDemand matches derive_demand", () => {
  for (const c of demandGolden.cases as {
    label: string;
    requires: { mcp_servers: string[]; tools: string[] };
    has_scripts: boolean;
    inventory: unknown[];
    granted: string[] | null;
    report: unknown;
  }[]) {
    it(c.label, () => {
      expect(deriveDemand(c.requires, { has_scripts: c.has_scripts, inventory: c.inventory, granted: c.granted })).toEqual(c.report);
    });
  }
});

describe("formatAvailableSkills matches format_available_skills_xml", () => {
  for (const c of promptGolden.cases as { skills: [string, string][]; descriptions: Record<string, string> | null; block: string }[]) {
    it(`${c.skills.length} skills`, () => {
      expect(
        formatAvailableSkills(
          c.skills.map(([name, description]) => ({ name, description })),
          c.descriptions ?? undefined,
        ),
      ).toBe(c.block);
    });
  }
});
