// Unit tests of src/worker/http/range.ts: one bytes= range, 416, everything else ignored.
import { describe, expect, it } from "vitest";
import { decideRange } from "../../../src/worker/http/range.ts";

describe("Range", () => {
  it.each([
    ["bytes=0-3", 10, { kind: "partial", offset: 0, length: 4, contentRange: "bytes 0-3/10" }],
    ["bytes=5-", 10, { kind: "partial", offset: 5, length: 5, contentRange: "bytes 5-9/10" }],
    ["bytes=-3", 10, { kind: "partial", offset: 7, length: 3, contentRange: "bytes 7-9/10" }],
    ["bytes=-30", 10, { kind: "partial", offset: 0, length: 10, contentRange: "bytes 0-9/10" }],
    ["bytes=8-100", 10, { kind: "partial", offset: 8, length: 2, contentRange: "bytes 8-9/10" }],
    ["bytes=10-", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=-0", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=0-", 0, { kind: "unsatisfiable", contentRange: "bytes */0" }],
    ["bytes=99999999999999999999-", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=0-1,3-4", 10, { kind: "full" }],
    ["items=0-1", 10, { kind: "full" }],
    ["bytes=5-2", 10, { kind: "full" }],
    ["bytes=-", 10, { kind: "full" }],
    ["", 10, { kind: "full" }],
  ])("%s of %i bytes", (header, size, want) => {
    expect(decideRange(header, size)).toEqual(want);
  });
});
