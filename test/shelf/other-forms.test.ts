// The field forms the curated shelf no longer uses (issue 12) stay exercised here, on a fixture
// shelf: validate accepts each with a warning that names exactly the clients that refuse it.
// test/interop/fixtures/other-forms.json says which clients those are; the interop suite checks
// the same file against the real agentskills-core (registry, snapshots and signing).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listShelfSkillDirs, loadSkill } from "../../src/cli/lib/skill-dir.ts";

const FIXTURES = path.resolve("test/interop/fixtures");
type Client = "registry" | "snapshot" | "mcp_sdk";
const expected = JSON.parse(readFileSync(path.join(FIXTURES, "other-forms.json"), "utf8")) as Record<
  string,
  { warnings: string[]; refused_by: Partial<Record<Client, unknown>> }
>;
const skills = await Promise.all((await listShelfSkillDirs(path.join(FIXTURES, "other-forms-shelf"))).map((dir) => loadSkill(dir)));

/** How a warning says that a client refuses the skill. */
const REFUSAL: Record<Client, RegExp> = {
  registry: /agentskills-core 0\.7's registry \(agentskills-http's register_all\) refuses it/,
  snapshot: /agentskills-core 0\.7's snapshot and signing checks \(build_skill_manifest\) refuse it/,
  mcp_sdk: /the MCP TypeScript SDK 2\.4's skills extension drops the skill from skills\/list/,
};

describe("the other forms, on a fixture shelf", () => {
  it("the fixture holds exactly the skills other-forms.json describes", () => {
    expect(skills.map((s) => s.name).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(skills.map((s) => [s.name, s] as const))("%s: accepted, warned about each field, naming exactly the clients that refuse it", (name, skill) => {
    const want = expected[name]!;
    const problems = skill.validation.problems;
    expect(skill.validation.ok).toBe(true);
    expect(problems.every((p) => p.severity === "warning")).toBe(true);
    expect(problems.map((p) => p.field)).toEqual(want.warnings);
    const text = problems.map((p) => p.message).join("\n");
    for (const client of Object.keys(REFUSAL) as Client[]) {
      expect(REFUSAL[client].test(text), `${name}: does the warning say ${client} refuses it?`).toBe(client in want.refused_by);
    }
  });

  it("every form is still read: lists, strings and comma-separated tags", () => {
    const meta = new Map(skills.map((s) => [s.name, s.validation.metadata!]));
    expect(meta.get("string-allowed-tools")!.allowed_tools).toEqual(["Read", "Grep", "Bash(git:*)"]);
    expect(meta.get("list-allowed-tools")!.allowed_tools).toEqual(["Read", "Grep"]);
    expect(meta.get("string-compatibility")!.compatibility).toBe("Needs git and a POSIX shell.");
    expect(meta.get("list-tags")!.tags).toEqual(["review", "security"]);
    expect(meta.get("portable-forms")!.tags).toEqual(["review", "security"]);
    expect(meta.get("list-requirements")).toMatchObject({ requires_tools: ["git", "sh"], requires_mcp: ["github"] });
    expect(meta.get("portable-forms")).toMatchObject({ requires_tools: ["git"], requires_mcp: ["github"] });
  });
});
