// JSON exactly as Python's json.dumps(value, separators=(",", ":"), ensure_ascii=True[, sort_keys=True])
// writes it: the bytes agentskills-core signs. JSON.stringify differs twice: it keeps non-ASCII
// characters as they are, and nothing sorts keys by code point, so both are done here.
import { pyJsonString } from "../python-compat/py-json.ts";
import { compareCodePoints } from "../python-compat/py-text.ts";

/** A JSON value the payloads hold: strings, safe integers, null, arrays and objects. */
export type AsciiJsonValue = string | number | null | readonly AsciiJsonValue[] | { readonly [key: string]: AsciiJsonValue };

/**
 * Python's `json.dumps(value, separators=(",", ":"), ensure_ascii=True, sort_keys=...)` for
 * strings, integers, null, lists and dicts (the only values a payload holds).
 * @example asciiJson({ b: "é", a: 1 }, { sortKeys: true }) // '{"a":1,"b":"\\u00e9"}'
 */
export function asciiJson(value: AsciiJsonValue, options: { sortKeys?: boolean } = {}): string {
  if (value === null) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new TypeError(`asciiJson: only safe integers are written, not ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => asciiJson(v, options)).join(",")}]`;
  const keys = Object.keys(value);
  if (options.sortKeys) keys.sort(compareCodePoints);
  const object = value as { readonly [key: string]: AsciiJsonValue };
  return `{${keys.map((k) => `${pyJsonString(k)}:${asciiJson(object[k]!, options)}`).join(",")}}`;
}

/** The ASCII bytes of {@link asciiJson}'s text. */
export function asciiJsonBytes(value: AsciiJsonValue, options: { sortKeys?: boolean } = {}): Uint8Array {
  return new TextEncoder().encode(asciiJson(value, options));
}
