// The single-skill fast path against the goldens written by the real agentskills-core.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/fast-path.json";
import {
  DEFAULT_FAST_PATH_MAX_TOKENS,
  FAST_PATH_DROPPED_TOOLS,
  FAST_PATH_RESOURCE_INSTRUCTIONS,
  fastPathCandidate,
  keepsTool,
  resolveFastPath,
} from "../../../src/core/disclosure/fast-path.ts";

describe("fast path constants", () => {
  it("match the library", () => {
    expect(DEFAULT_FAST_PATH_MAX_TOKENS).toBe(golden.constants.DEFAULT_FAST_PATH_MAX_TOKENS);
    expect([...FAST_PATH_DROPPED_TOOLS].sort()).toEqual(golden.constants.FAST_PATH_DROPPED_TOOLS);
    expect(FAST_PATH_RESOURCE_INSTRUCTIONS).toBe(golden.constants.FAST_PATH_RESOURCE_INSTRUCTIONS);
  });
});

describe.each(golden.cases)("fast path golden: $name", (c) => {
  it("decides and renders as the library does", async () => {
    const bodies = (golden.registries as Record<string, Record<string, string>>)[c.registry]!;
    const loaded: string[] = [];
    const args = c.args as { include?: string[]; max_tokens?: number };
    const decision = await resolveFastPath(
      Object.keys(bodies),
      (id) => {
        loaded.push(id);
        return bodies[id]!;
      },
      { include: args.include, maxTokens: args.max_tokens },
    );
    if (c.result === null) {
      expect(decision.fastPath).toBeUndefined();
      expect(decision.reason).toMatch(/^no fast path/);
    } else {
      expect(decision.fastPath).toBeDefined();
      const fast = decision.fastPath!;
      expect(fast.skill_id).toBe(c.result.skill_id);
      expect(fast.tokens).toBe(c.result.tokens);
      expect(fast.prompt).toBe(c.result.prompt);
      for (const [tool, kept] of Object.entries(c.result.keeps)) expect(keepsTool(tool)).toBe(kept);
    }
    // Only the one candidate's body is ever loaded.
    expect(loaded.length).toBeLessThanOrEqual(1);
  });
});

describe("fast path input checks", () => {
  it("explains a decline by skill count without loading bodies", () => {
    expect(fastPathCandidate(["a", "b"]).reason).toBe("no fast path: 2 skills are in play, the fast path needs exactly 1");
    expect(fastPathCandidate(["b", "a"], ["a", "zzz"]).skillId).toBe("a");
  });

  it("rejects a non-integer ceiling", async () => {
    await expect(resolveFastPath(["a"], () => "x", { maxTokens: Number.NaN })).rejects.toThrow(RangeError);
  });
});
