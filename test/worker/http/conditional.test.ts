// Unit tests of src/worker/http/conditional.ts: ETags and the weak If-None-Match comparison.
import { describe, expect, it } from "vitest";
import { etagFor, ifNoneMatchMatches } from "../../../src/worker/http/conditional.ts";

describe("If-None-Match (weak comparison)", () => {
  const etag = etagFor("abc");
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", W/"abc"', true],
    [' "x" ,"abc" ', true],
    ["*", true],
    ['"abcd"', false],
    ['"ab"', false],
    ["", false],
    ["abc", false],
  ])("%s → %s", (header, want) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(want);
  });
  it("never matches without the header", () => {
    expect(ifNoneMatchMatches(null, etag)).toBe(false);
  });
  it("refuses to mint a tag containing a quote", () => {
    expect(() => etagFor('a"b')).toThrow(/entity-tag/);
  });
});
