// Python string semantics that agentskills-core's output depends on: what counts as whitespace,
// where lines break, how long a string is, how text casefolds and sorts. JavaScript differs on
// each (\s, split("\n"), .length, toLowerCase, sort), and every difference changes bytes.
import { CASEFOLD_EXPANSIONS, CASEFOLD_RUNS } from "./casefold-data.ts";

/**
 * True for the code points Python's `str.isspace()` accepts (also what `str.strip()` removes and
 * what `\s` matches in a `re` pattern). Unlike JavaScript's `\s`: includes U+001C–U+001F and
 * U+0085, excludes U+FEFF.
 */
export function isPySpace(cp: number): boolean {
  if (cp <= 0x20) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
  if (cp < 0x85) return false;
  return (
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** Python `s.strip()`: removes Python whitespace from both ends. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  // Every Python whitespace code point is in the BMP, so UTF-16 units are enough here.
  while (start < end && isPySpace(s.charCodeAt(start))) start++;
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Python `s.rstrip()`: removes Python whitespace from the end. */
export function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && isPySpace(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** True when Python would call `s.strip()` empty. */
export function isPyBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isPySpace(s.charCodeAt(i))) return false;
  return true;
}

/** True for the code units that end a line in Python's `str.splitlines()` (CR handled apart). */
function isLineBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0x1c || c === 0x1d || c === 0x1e || c === 0x85 || c === 0x2028 || c === 0x2029;
}

/** One line of a string: its text span [start, end) and where the next line starts. */
export interface LineSpan {
  start: number;
  end: number;
  next: number;
}

/**
 * Python `s.splitlines()` as spans into `s` (UTF-16 offsets), so callers can slice lazily.
 * Breaks on \n, \r\n, \r, \v, \f, \x1c, \x1d, \x1e, \x85, U+2028, U+2029; a final line break
 * does not start an empty last line; "" has no lines.
 */
export function lineSpans(s: string): LineSpan[] {
  const spans: LineSpan[] = [];
  const n = s.length;
  let start = 0;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (!isLineBreak(c)) {
      i++;
      continue;
    }
    const next = c === 0x0d && i + 1 < n && s.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
    spans.push({ start, end: i, next });
    start = next;
    i = next;
  }
  if (start < n) spans.push({ start, end: n, next: n });
  return spans;
}

/** Python `s.splitlines()`. */
export function splitLines(s: string): string[] {
  return lineSpans(s).map((span) => s.slice(span.start, span.end));
}

/**
 * Python `len(s)`: the number of code points (an emoji counts once, not twice); with `start` and
 * `end`, of that slice of `s`, without copying it.
 */
export function codePointLength(s: string, start = 0, end = s.length): number {
  let n = end - start;
  for (let i = start; i < end - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

let foldTable: Map<number, string> | undefined;

function foldTableOf(): Map<number, string> {
  if (foldTable) return foldTable;
  const table = new Map<number, string>();
  for (let i = 0; i < CASEFOLD_RUNS.length; i += 4) {
    const start = CASEFOLD_RUNS[i]!;
    const count = CASEFOLD_RUNS[i + 1]!;
    const stride = CASEFOLD_RUNS[i + 2]!;
    const delta = CASEFOLD_RUNS[i + 3]!;
    for (let k = 0; k < count; k++) {
      const cp = start + k * stride;
      table.set(cp, String.fromCodePoint(cp + delta));
    }
  }
  for (const [cp, folded] of CASEFOLD_EXPANSIONS) table.set(cp, folded);
  foldTable = table;
  return table;
}

/**
 * Python `s.casefold()`, from Python's own Unicode tables (see casefold-data.ts), so it does not
 * depend on the runtime's ICU version. `casefold("Straße")` is `"strasse"`.
 */
export function casefold(s: string): string {
  // ASCII fast path: the common case for skill names, tags and headings.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.toLowerCase();
  const table = foldTableOf();
  let out = "";
  for (const ch of s) out += table.get(ch.codePointAt(0)!) ?? ch;
  return out;
}

/** Python's ordering of strings: by code point (which is also UTF-8 byte order). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order puts U+E000–U+FFFF after astral code points; compare whole code points.
    const cx = a.codePointAt(i)!;
    const cy = b.codePointAt(i)!;
    return cx < cy ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
