// Outlines and sections against the goldens written by the real agentskills-core
// (scripts/refs/gen-agentskills-goldens.py): keys, titles, levels, token counts, section texts,
// the rendered outline and the unknown-key error must all be byte-identical.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/outlines.json";
import {
  outlineOf,
  PREAMBLE_TITLE,
  renderOutline,
  SectionNotFoundError,
  sectionOf,
  splitSections,
  estimateTokens,
  WHOLE_BODY_CHEAPER_TOKENS,
  wholeBodyIsCheaper,
} from "../../../src/core/disclosure/outline.ts";

describe("outline constants", () => {
  it("match the library", () => {
    expect(WHOLE_BODY_CHEAPER_TOKENS).toBe(golden.constants.WHOLE_BODY_CHEAPER_TOKENS);
    expect(PREAMBLE_TITLE).toBe(golden.constants.PREAMBLE_TITLE);
  });
});

describe.each(golden.cases)("outline golden: $name", (c) => {
  const outline = outlineOf(c.skill_id, c.body);

  it("has the library's sections, keys, levels and token counts", () => {
    expect(outline.total_tokens).toBe(c.total_tokens);
    expect(wholeBodyIsCheaper(outline)).toBe(c.whole_body_is_cheaper);
    expect(outline.sections.map(({ key, title, level, tokens }) => ({ key, title, level, tokens }))).toEqual(
      c.sections.map(({ key, title, level, tokens }) => ({ key, title, level, tokens })),
    );
  });

  it("renders byte-identically", () => {
    expect(renderOutline(outline)).toBe(c.render);
  });

  it("cuts each section's text out of the body", () => {
    expect(splitSections(c.body).map((s) => s.text)).toEqual(c.sections.map((s) => s.text));
    for (const [key, text] of Object.entries(c.get_section)) {
      expect(sectionOf(c.body, outline, key)).toBe(text);
    }
  });

  it("survives a JSON round trip (the outline is stored in the manifest)", () => {
    const stored = JSON.parse(JSON.stringify(outline));
    expect(renderOutline(stored)).toBe(c.render);
  });

  it("rejects an unknown key with the library's message", () => {
    let caught: unknown;
    try {
      sectionOf(c.body, outline, "no-such-key");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SectionNotFoundError);
    expect((caught as Error).message).toBe(c.missing_key_error!.message);
    expect((caught as SectionNotFoundError).keys).toEqual(outline.sections.map((s) => s.key));
  });
});

describe("estimateTokens", () => {
  it("counts code points, not UTF-16 units", () => {
    expect(estimateTokens("🚨🚨🚨🚨🚨")).toBe(2);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
  });
});

describe("pathological lines stay linear", () => {
  it("outlines a 200k-character heading line of hashes and spaces quickly", () => {
    const line = `# x${" #".repeat(100_000)}y`;
    const started = Date.now();
    const outline = outlineOf("long", line);
    expect(outline.sections[0]!.title.length).toBe(line.length - 2);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
