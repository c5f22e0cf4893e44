// JSON exactly as Python's json.dumps(value, separators=(",", ":"), ensure_ascii=True[, sort_keys=True])
// writes it: the bytes agentskills-core signs. JSON.stringify differs twice: it keeps non-ASCII
// characters as they are, and nothing sorts keys by code point, so both are done here.

/** Python's short escapes; everything else outside space..tilde becomes \uXXXX (lowercase hex). */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A JSON string literal with every character outside printable ASCII escaped (UTF-16 units, so astral characters become surrogate pairs). */
export function asciiJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const unit = text.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (unit >= 0x20 && unit <= 0x7e) out += ch;
    else out += `\\u${unit.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/**
 * Compares two strings by code point, as Python sorts them (JS `<` compares UTF-16 units, which
 * disagrees once an astral character meets U+E000–U+FFFF).
 */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** A JSON value the payloads hold: strings, safe integers, null, arrays and objects. */
export type AsciiJsonValue = string | number | null | readonly AsciiJsonValue[] | { readonly [key: string]: AsciiJsonValue };

/**
 * Python's `json.dumps(value, separators=(",", ":"), ensure_ascii=True, sort_keys=...)` for
 * strings, integers, null, lists and dicts (the only values a payload holds).
 * @example asciiJson({ b: "é", a: 1 }, { sortKeys: true }) // '{"a":1,"b":"\\u00e9"}'
 */
export function asciiJson(value: AsciiJsonValue, options: { sortKeys?: boolean } = {}): string {
  if (value === null) return "null";
  if (typeof value === "string") return asciiJsonString(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new TypeError(`asciiJson: only safe integers are written, not ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => asciiJson(v, options)).join(",")}]`;
  const keys = Object.keys(value);
  if (options.sortKeys) keys.sort(compareCodePoints);
  const object = value as { readonly [key: string]: AsciiJsonValue };
  return `{${keys.map((k) => `${asciiJsonString(k)}:${asciiJson(object[k]!, options)}`).join(",")}}`;
}

/** The ASCII bytes of {@link asciiJson}'s text. */
export function asciiJsonBytes(value: AsciiJsonValue, options: { sortKeys?: boolean } = {}): Uint8Array {
  return new TextEncoder().encode(asciiJson(value, options));
}
