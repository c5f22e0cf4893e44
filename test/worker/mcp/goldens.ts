// The mcp-tools goldens (scripts/refs/gen-mcp-tools-goldens.py: agentskills-mcp-server 0.6.0 over
// agentskills-fs serving these skills) as fixture skills and expected tool answers.
import golden from "../../goldens/mcp-tools/tools.json";
import type { FixtureSkill } from "../fixture-shelf.ts";

/** One recorded tool call and the reference server's answer. */
export interface GoldenCall {
  tool: string;
  arguments: Record<string, string>;
  isError: boolean;
  text: string;
}

export const GOLDEN_TOOLS = golden.tools as { name: string; properties: Record<string, unknown>; required: string[] }[];
export const GOLDEN_CALLS = golden.calls as unknown as GoldenCall[];
export const GOLDEN_FAST_PATH = golden.fast_path as unknown as { skill_id: string; prompt: string; tools: string[]; calls: GoldenCall[] };

function bytesOf(content: { text?: string; base64?: string }): string | Uint8Array {
  if (content.text !== undefined) return content.text;
  return Uint8Array.from(atob(content.base64!), (c) => c.charCodeAt(0));
}

/** The golden skills as fixture skills, every file byte-identical to what the reference server read. */
export function goldenSkills(names: readonly string[] = Object.keys(golden.skills)): FixtureSkill[] {
  const skills = golden.skills as Record<string, Record<string, { text?: string; base64?: string }>>;
  return names.map((name) => ({
    name,
    description: "(from SKILL.md)",
    files: Object.fromEntries(Object.entries(skills[name]!).map(([path, content]) => [path, bytesOf(content)])),
  }));
}
