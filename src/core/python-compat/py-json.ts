// Python's json module, where the references' bytes depend on it: a string literal as
// json.dumps writes it with ensure_ascii=True (the default), which every JSON text the
// references produce uses (resource envelopes, tool results, signed payloads), and json.dumps
// with its defaults (", " and ": " separators, floats by repr, NaN and infinities as bare words),
// the text of agentskills-mcp-server's get_skill_metadata and list_skill_resources.
import { PyFloat } from "./pyfmt.ts";

/**
 * A JSON string literal as Python's json.dumps writes it: its short escapes, and every other
 * character outside printable ASCII as \uXXXX in lowercase hex, one per UTF-16 unit (so an
 * astral character becomes its surrogate pair).
 * @example pyJsonString("café\n") // => '"caf\\u00e9\\n"'
 */
export function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** A value json.dumps refuses (Python raises TypeError with this message). */
export class PyJsonTypeError extends Error {
  constructor(typeName: string) {
    super(`Object of type ${typeName} is not JSON serializable`);
    this.name = "PyJsonTypeError";
  }
}

/** float.__repr__ as json.dumps uses it, with JSON's words for the non-finite values. */
function pyJsonFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  // JS and Python both print the shortest round-tripping digits; only the exponent's form differs.
  return String(n).replace(/e([+-])(\d)$/, "e$10$2");
}

/**
 * `json.dumps(value)` for values parsed from YAML or JSON: a PyFloat (YAML `1.0`) prints as a
 * float, a Date (a YAML timestamp) is refused as Python refuses a date.
 * @example pyJsonDumps({name: "demo", tags: ["a", "ü"]}) // => '{"name": "demo", "tags": ["a", "\\u00fc"]}'
 * @throws PyJsonTypeError for a Date or anything else Python's encoder would not take
 */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof PyFloat) return pyJsonFloat(value.value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyJsonFloat(value);
  if (value instanceof Date) {
    const midnight = value.getUTCHours() === 0 && value.getUTCMinutes() === 0 && value.getUTCSeconds() === 0 && value.getUTCMilliseconds() === 0;
    throw new PyJsonTypeError(midnight ? "date" : "datetime");
  }
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyJsonString(k)}: ${pyJsonDumps(v)}`);
    return `{${entries.join(", ")}}`;
  }
  throw new PyJsonTypeError(typeof value);
}
