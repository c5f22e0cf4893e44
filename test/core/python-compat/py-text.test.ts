// Python string semantics the disclosure output depends on, checked against Python itself where
// a golden exists (casefold) and against Python's documented behaviour elsewhere.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/casefold.json";
import { casefold, codePointLength, compareCodePoints, pyRstrip, pyStrip, splitLines } from "../../../src/core/python-compat/py-text.ts";

describe("casefold", () => {
  const changed = golden.changed as Record<string, string>;

  it("folds every code point Python folds, to exactly what Python gives", () => {
    const wrong: string[] = [];
    for (const [hex, folded] of Object.entries(changed)) {
      const ch = String.fromCodePoint(Number.parseInt(hex, 16));
      if (casefold(ch) !== folded) wrong.push(hex);
    }
    expect(wrong).toEqual([]);
    expect(Object.keys(changed).length).toBeGreaterThan(1400);
  });

  it("leaves every other code point alone", () => {
    const wrong: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const hex = cp.toString(16).toUpperCase();
      if (Object.hasOwn(changed, hex)) continue;
      const ch = String.fromCodePoint(cp);
      if (casefold(ch) !== ch) wrong.push(hex);
    }
    expect(wrong).toEqual([]);
  });

  it("folds strings, not just characters", () => {
    expect(casefold("Straße Café")).toBe("strasse café");
    expect(casefold("ΣΑΣ")).toBe("σασ");
    expect(casefold("ﬁle ſtuff")).toBe("file stuff");
  });
});

describe("Python string helpers", () => {
  it("splits lines like str.splitlines", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n")).toEqual([""]);
    expect(splitLines("a\r\nb\rc\nd")).toEqual(["a", "b", "c", "d"]);
    expect(splitLines("a\u2028b\u0085c\x1cd\x1fe")).toEqual(["a", "b", "c", "d\x1fe"]);
    expect(splitLines("a\n\n")).toEqual(["a", ""]);
  });

  it("strips Python whitespace, not JavaScript whitespace", () => {
    expect(pyStrip("\x1f\u3000 x \x85")).toBe("x");
    expect(pyStrip("\ufeffx")).toBe("\ufeffx");
    expect(pyRstrip(" x \u2029\t")).toBe(" x");
  });

  it("counts code points and orders by them", () => {
    expect(codePointLength("a🚨b")).toBe(3);
    expect(["\uffff", "\u{1f6a8}", "a"].sort(compareCodePoints)).toEqual(["a", "\uffff", "\u{1f6a8}"]);
  });
});
