// The eight agentskills tools at /mcp answer exactly as agentskills-mcp-server 0.6.0 does
// (test/goldens/mcp-tools, generated from that package over the same skills): argument schemas,
// every text, every domain error as an isError result; both protocol eras. Plus what only a shelf
// has: a blocked skill, a skill outside ?include=, and traversal in resource names.
import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetSkillMdFacts } from "../../../src/worker/views/mcp/skill-md.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf } from "../fixture-shelf.ts";
import { GOLDEN_CALLS, GOLDEN_TOOLS, goldenSkills } from "./goldens.ts";
import { connectMcp, ERAS } from "./helpers.ts";

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = result.content as { type: string; text?: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe("text");
  return content[0]!.text!;
}

beforeAll(async () => {
  resetStorageMemory();
  resetSkillMdFacts();
  await publishFixtureShelf(env, [...goldenSkills(), { name: "bad-skill", description: "Blocked after the build." }], { advisories: [BLOCKING_ADVISORY] });
});

describe.each(ERAS)("tools, %s era", (era) => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connectMcp({ era }));
  });
  afterAll(() => client.close());

  it("offers the eight tools with the reference's argument names and schemas, described in our own words", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(GOLDEN_TOOLS.map((t) => t.name));
    for (const tool of tools) {
      const reference = GOLDEN_TOOLS.find((t) => t.name === tool.name)!;
      expect(tool.inputSchema.properties, tool.name).toEqual(reference.properties);
      expect(tool.inputSchema.required, tool.name).toEqual(reference.required);
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
    }
  });

  it.each(GOLDEN_CALLS.map((call) => [`${call.tool}(${JSON.stringify(call.arguments)})`, call] as const))(
    "%s answers as the reference",
    async (_label, call) => {
      const result = await client.callTool({ name: call.tool, arguments: call.arguments });
      expect(textOf(result)).toBe(call.text);
      expect(result.isError ?? false).toBe(call.isError);
    },
  );

  it("refuses a blocked skill as a domain error that names the advisory", async () => {
    for (const tool of ["get_skill_body", "get_skill_metadata", "list_skill_resources"]) {
      const result = await client.callTool({ name: tool, arguments: { skill_id: "bad-skill" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `Error executing tool ${tool}: Skill 'bad-skill' is blocked by advisory ADV-2026-001 (critical): exfiltrates environment variables. Do not use it.`,
      );
    }
  });

  it("keeps resource names inside their folder: leaving it is not found, leaving the skill is invalid", async () => {
    const cases: [string, string][] = [
      ["./severity.md", "| sev | meaning |\n|-----|---------|\n| 1   | outage  |\n"],
      ["deep/../severity.md", "| sev | meaning |\n|-----|---------|\n| 1   | outage  |\n"],
      ["../SKILL.md", "Error executing tool get_skill_reference: Resource '../SKILL.md' not found in references/ for skill 'incident-response'"],
      ["../scripts/page.sh", "Error executing tool get_skill_reference: Resource '../scripts/page.sh' not found in references/ for skill 'incident-response'"],
      ["../../tiny/SKILL.md", "Error executing tool get_skill_reference: Invalid resource name: '../../tiny/SKILL.md'"],
      ["", "Error executing tool get_skill_reference: Resource '' not found in references/ for skill 'incident-response'"],
    ];
    for (const [name, expected] of cases) {
      const result = await client.callTool({ name: "get_skill_reference", arguments: { skill_id: "incident-response", name } });
      expect(textOf(result), name).toBe(expected);
      expect(result.isError ?? false, name).toBe(expected.startsWith("Error executing tool"));
    }
  });

  it("answers a call without its arguments as an error, not a crash", async () => {
    const result = await client
      .callTool({ name: "get_skill_body", arguments: {} })
      .catch((error: Error) => ({ isError: true, content: [{ type: "text", text: error.message }] }));
    expect(result.isError).toBe(true);
  });
});

describe("tools within ?include=", () => {
  it("treat a skill outside the endpoint's scope as not in the registry", async () => {
    const { client } = await connectMcp({ path: "/mcp?include=incident-response,long-guide" });
    const out = await client.callTool({ name: "get_skill_body", arguments: { skill_id: "dated" } });
    expect(out.isError).toBe(true);
    expect(textOf(out)).toBe("Error executing tool get_skill_body: Skill 'dated' not found in registry");
    const inside = await client.callTool({ name: "get_skill_body", arguments: { skill_id: "long-guide" } });
    expect(inside.isError ?? false).toBe(false);
    await client.close();
  });
});
