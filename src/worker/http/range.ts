// Range requests on files: one `bytes=` range, answered 206; a syntactically valid but
// unsatisfiable range is a 416; anything else (multiple ranges, other units, junk) is ignored
// and the whole file is served, which RFC 9110 §14.2 allows.

/** The outcome of reading a Range header against a representation of `size` bytes. */
export type RangeDecision =
  | { kind: "full" }
  | { kind: "partial"; offset: number; length: number; contentRange: string }
  | { kind: "unsatisfiable"; contentRange: string };

const SINGLE_BYTE_RANGE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * Decides how to answer a Range header for a file of `size` bytes.
 * @example decideRange("bytes=0-3", 10) // => {kind:"partial", offset:0, length:4, contentRange:"bytes 0-3/10"}
 * @example decideRange("bytes=20-", 10) // => {kind:"unsatisfiable", contentRange:"bytes *\/10"}
 */
export function decideRange(header: string | null | undefined, size: number): RangeDecision {
  if (!header) return { kind: "full" };
  const match = SINGLE_BYTE_RANGE.exec(header);
  if (!match) return { kind: "full" };
  const [, first = "", last = ""] = match;
  const unsatisfiable: RangeDecision = { kind: "unsatisfiable", contentRange: `bytes */${size}` };
  // Digits beyond safe integers cannot describe a real offset; treat them as out of range.
  if (first.length > 15 || last.length > 15) {
    return first === "" || Number(first) >= size ? unsatisfiable : { kind: "full" };
  }
  let start: number;
  let end: number;
  if (first === "") {
    if (last === "") return { kind: "full" };
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return unsatisfiable;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === "" ? size - 1 : Number(last);
    if (last !== "" && end < start) return { kind: "full" }; // invalid syntax: ignore the header
    if (start >= size) return unsatisfiable;
    end = Math.min(end, size - 1);
  }
  return { kind: "partial", offset: start, length: end - start + 1, contentRange: `bytes ${start}-${end}/${size}` };
}
