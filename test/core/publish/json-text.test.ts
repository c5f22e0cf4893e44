// Reading JSON from untrusted bytes (src/core/publish/json-text.ts): each way bytes can fail to
// be JSON text gets its own contract code, checked before anything recursive runs.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../../src/core/publish/contract.ts";
import { jsonDepth, readJsonText } from "../../../src/core/publish/json-text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("jsonDepth", () => {
  it("counts arrays and objects, not brackets inside strings or after escapes", () => {
    expect(jsonDepth("1", 10)).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":[]}]}', 10)).toBe(4);
    expect(jsonDepth('["[[[[", "\\"[[[", {}]', 10)).toBe(2);
    expect(jsonDepth("[]".repeat(1000), 10)).toBe(1);
  });

  it("stops as soon as the nesting passes the limit, so a million brackets cost nothing", () => {
    expect(jsonDepth("[".repeat(1_000_000), 128)).toBe(129);
  });
});

describe("readJsonText", () => {
  it("reads JSON text up to the depth cap", () => {
    const text = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
    const read = readJsonText(bytes(text), "body");
    expect(read.ok).toBe(true);
    expect(readJsonText(bytes('{"a":"\\ud83d\\ude00 é"}'), "body")).toEqual({ ok: true, value: { a: "😀 é" }, text: '{"a":"\\ud83d\\ude00 é"}' });
  });

  it.each([
    ["not UTF-8", new Uint8Array([0x22, 0xff, 0x22]), "invalid_text"],
    ["an overlong encoding", new Uint8Array([0x22, 0xc0, 0xaf, 0x22]), "invalid_text"],
    ["a UTF-8-encoded surrogate", new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]), "invalid_text"],
    ["a byte order mark", new Uint8Array([0xef, 0xbb, 0xbf, 0x31]), "malformed_json"],
    ["a lone high surrogate escape", bytes('"\\ud800"'), "invalid_text"],
    ["a lone low surrogate escape in a key", bytes('{"\\udfff":1}'), "invalid_text"],
    ["surrogates in the wrong order", bytes('"\\ude00\\ud83d"'), "invalid_text"],
    ["one level too deep", bytes(`${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`), "too_deep"],
    ["100,000 deep and unbalanced", bytes('{"a":'.repeat(100_000)), "too_deep"],
    ["not JSON", bytes("{nope"), "malformed_json"],
    ["empty", bytes(""), "malformed_json"],
  ] as const)("refuses %s as %s", (_label, input, code) => {
    const read = readJsonText(input, "record");
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.code).toBe(code);
      expect(read.message).toMatch(/^the record .*[^.;]$/);
    }
  });
});
