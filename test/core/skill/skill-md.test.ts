import { describe, expect, it } from "vitest";
import { pyStrip } from "../../../src/core/python-compat/py-text.ts";
import { MAX_FRONTMATTER_BYTES, decodeSkillMd, parseSkillMd, SkillMdError } from "../../../src/core/skill/skill-md.ts";

describe("parseSkillMd", () => {
  it("splits frontmatter and body; the body is stripped as agentskills-core strips it", () => {
    const p = parseSkillMd("---\nname: a\ndescription: d\n---\n\n# Title\n\nText\n\n");
    expect(p.frontmatter).toEqual({ name: "a", description: "d" });
    expect(p.frontmatterText).toBe("name: a\ndescription: d");
    expect(p.body).toBe("# Title\n\nText");
    expect(p.closingLine).toBe(4);
  });

  it("strips a leading BOM and treats CRLF and CR as LF", () => {
    const p = parseSkillMd("\uFEFF---\r\nname: a\rdescription: d\r\n---\r\nBody\r\nline2");
    expect(p.frontmatter).toEqual({ name: "a", description: "d" });
    expect(p.body).toBe("Body\nline2");
  });

  it("allows trailing whitespace on delimiter lines", () => {
    expect(parseSkillMd("---  \nname: a\n--- \t\nB").body).toBe("B");
  });

  it("does not end the frontmatter at a --- inside a value", () => {
    const p = parseSkillMd("---\nname: a---b\ndescription: |\n  x\n  ---\n---\nBody\n---\nmore");
    expect(p.frontmatter).toEqual({ name: "a---b", description: "x\n---\n" });
    expect(p.body).toBe("Body\n---\nmore");
  });

  it("needs an opening line exactly ---", () => {
    for (const text of ["name: a\n---\n", " ---\nname: a\n---\n", "----\nname: a\n---\n", "---name: a\n---\n", ""]) {
      expect(() => parseSkillMd(text)).toThrow(/must start with a line '---'/);
    }
  });

  it("needs a closing line", () => {
    expect(() => parseSkillMd("---\nname: a\n")).toThrow(/no closing '---' line/);
    expect(() => parseSkillMd("---\nname: a\n...\nbody")).toThrow(/no closing '---' line/);
  });

  it("refuses frontmatter over 256 KiB before parsing YAML", () => {
    const big = `---\ndescription: "${"x".repeat(MAX_FRONTMATTER_BYTES)}"\n---\nbody`;
    expect(() => parseSkillMd(big)).toThrow(/over the 262144-byte limit/);
  });

  it("answers a 10 MB unterminated frontmatter quickly with one clear error", () => {
    const huge = `---\n${"k: v\n".repeat(2_000_000)}`;
    const started = Date.now();
    expect(() => parseSkillMd(huge)).toThrow(/runs past the 262144-byte limit/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reports invalid YAML with the SKILL.md line", () => {
    try {
      parseSkillMd("---\nname: a\ndescription: [unclosed\n---\nbody");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SkillMdError);
      expect((error as Error).message).toMatch(/^invalid YAML frontmatter: .*SKILL\.md line \d+/);
    }
  });

  it("says how to quote a value whose unquoted ': ' YAML reads as another key", () => {
    const text = "---\nname: release-notes\ndescription: Use when: drafting notes. It's quick\n---\nbody";
    expect(() => parseSkillMd(text)).toThrow(
      'invalid YAML frontmatter: Nested mappings are not allowed in compact mappings (SKILL.md line 3); the value of description contains ": ", ' +
        "which YAML reads as the start of another key: quote the value, e.g.\n  description: 'Use when: drafting notes. It''s quick'",
    );
  });

  it("gives no quoting hint for YAML errors elsewhere", () => {
    expect(() => parseSkillMd("---\nname: a\ndescription: [unclosed: x\n---\nbody")).toThrow(/^(?![\s\S]*quote the value)invalid YAML frontmatter/);
    expect(() => parseSkillMd("---\nname: a\nname: b\n---\nx")).toThrow(/^(?![\s\S]*quote the value)invalid YAML frontmatter/);
  });

  it("needs the frontmatter to be a mapping", () => {
    expect(() => parseSkillMd("---\n- a\n- b\n---\nbody")).toThrow(/must be a YAML mapping/);
    expect(() => parseSkillMd("---\njust text\n---\nbody")).toThrow(/must be a YAML mapping/);
  });

  it("reads an empty frontmatter as an empty mapping", () => {
    expect(parseSkillMd("---\n---\nbody").frontmatter).toEqual({});
  });

  it("refuses duplicate keys and alias bombs as YAML errors", () => {
    expect(() => parseSkillMd("---\nname: a\nname: b\n---\nx")).toThrow(/invalid YAML frontmatter: Map keys must be unique/);
    const bomb = ["a: &a [x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `${"abcdefghij"[i]}: &${"abcdefghij"[i]} [${Array(9)
          .fill(`*${"abcdefghij"[i - 1]}`)
          .join(",")}]`,
      );
    expect(() => parseSkillMd(`---\n${bomb.join("\n")}\n---\nx`)).toThrow(/alias/i);
  });
});

describe("decodeSkillMd", () => {
  it("refuses bytes that are not UTF-8 rather than substituting U+FFFD", () => {
    expect(() => decodeSkillMd(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]))).toThrow(/not valid UTF-8/);
  });
  it("keeps a BOM so validate can report it", () => {
    expect(decodeSkillMd(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).charCodeAt(0)).toBe(0xfeff);
  });
});

describe("pyStrip", () => {
  it("strips Python's whitespace set, which differs from JS trim()", () => {
    expect(pyStrip("\x1c\x85 a \u3000")).toBe("a");
    expect(pyStrip("\uFEFFa")).toBe("\uFEFFa");
  });
});
