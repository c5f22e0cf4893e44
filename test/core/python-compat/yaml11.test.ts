import { describe, expect, it } from "vitest";
import scalars from "../../goldens/foundation/pyyaml-scalars.json";
import { isStackOverflow, MAX_YAML_DEPTH, parseYaml11, pyTypeOfNode, topLevelNode, YamlError } from "../../../src/core/python-compat/yaml11.ts";

/** Our value in the golden's spelling (floats as Python repr, timestamps as UTC ISO). */
function spell(value: unknown, type: string): unknown {
  if (type === "float") {
    const n = value as number;
    if (Number.isNaN(n)) return "nan";
    if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
    return Number.isInteger(n) ? `${n}.0` : String(n);
  }
  if (value instanceof Date) return value.toISOString();
  return value;
}

describe("plain scalars are typed exactly as PyYAML safe_load types them (goldens)", () => {
  for (const golden of scalars) {
    it(`v: ${golden.source}`, () => {
      const { value, document } = parseYaml11(`v: ${golden.source}\n`);
      const v = (value as Record<string, unknown>).v;
      expect(pyTypeOfNode(topLevelNode(document, "v"))).toBe(golden.type);
      expect(spell(v, golden.type)).toEqual(golden.value);
    });
  }
});

describe("YAML safety", () => {
  it("refuses duplicate keys (PyYAML keeps the last; we refuse on purpose)", () => {
    expect(() => parseYaml11("name: a\nname: b\n")).toThrow(/unique/);
  });

  it("fails fast on an alias bomb instead of expanding it", () => {
    const levels = ["a: &a [x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const started = Date.now();
    expect(() => parseYaml11(levels.join("\n"))).toThrow(YamlError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses control characters PyYAML refuses, naming the line", () => {
    expect(() => parseYaml11("a: 1\ndescription: legit\x0c---\x0cinjected\n")).toThrow(/#x000c at line 2/);
  });

  it("refuses an anchor aliased inside itself, which no JSON can hold (issue 11)", () => {
    expect(() => parseYaml11("x: &x [*x]\n")).toThrow(/^x\[0\] contains itself \(an alias inside its own anchor\)/);
    expect(() => parseYaml11("m: &m\n  self: *m\n")).toThrow(/m\.self contains itself/);
    // An anchor aliased twice elsewhere is shared structure, not a circle.
    expect(parseYaml11("a: &a [1, 2]\nb: *a\nc: [*a, *a]\n").value).toEqual({
      a: [1, 2],
      b: [1, 2],
      c: [
        [1, 2],
        [1, 2],
      ],
    });
  });

  it("refuses lone surrogate escapes in values and keys, and keeps escaped whole characters (issue 11)", () => {
    expect(() => parseYaml11('description: "\\ud800 lone"\n')).toThrow(/the string at description holds a lone surrogate escape/);
    expect(() => parseYaml11('m:\n  "\\udc00": 1\n')).toThrow(/a key in m holds a lone surrogate escape/);
    expect(parseYaml11('d: "\\U0001F600 \\ud83d\\ude00"\n').value).toEqual({ d: "\u{1F600} \u{1F600}" });
  });

  it("refuses values JSON has no form for, and nesting past MAX_YAML_DEPTH, with the path named", () => {
    expect(() => parseYaml11("d: !!binary aGVsbG8=\n")).toThrow(/^d is a YAML !!binary value, which JSON cannot hold/);
    expect(() => parseYaml11("m: !!set {a, b}\n")).toThrow(/^m is a YAML !!set/);
    const nested = (depth: number) => `v: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
    expect(() => parseYaml11(nested(MAX_YAML_DEPTH - 1))).not.toThrow();
    expect(() => parseYaml11(nested(MAX_YAML_DEPTH))).toThrow(/is nested more than 64 levels deep; flatten it/);
    // Past the parser's own stack: a clear YamlError, never a RangeError.
    expect(() => parseYaml11(nested(20_000))).toThrow(/nested too deeply to parse/);
  });

  it("keeps merge keys working as in PyYAML", () => {
    const { value } = parseYaml11("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n");
    expect((value as { m: unknown }).m).toEqual({ x: 1, y: 2 });
  });

  it("treats quoted scalars as strings", () => {
    const { value } = parseYaml11("a: \"yes\"\nb: '1.0'\nc: |\n  2024-01-15\n");
    expect(value).toEqual({ a: "yes", b: "1.0", c: "2024-01-15\n" });
  });
});

describe("isStackOverflow", () => {
  it("recognises the engine's stack overflow and the parse error worded from it, on the first line only", () => {
    expect(isStackOverflow(new RangeError("Maximum call stack size exceeded"))).toBe(true);
    expect(isStackOverflow(new Error("InternalError: too much recursion"))).toBe(true);
    expect(isStackOverflow(new RangeError("Invalid array length"))).toBe(false);
    expect(isStackOverflow(new Error("Nested flow collection at line 3:\n\n  call stack: [[[\n"))).toBe(false);
    expect(isStackOverflow("Maximum call stack size exceeded")).toBe(false);
  });
});
