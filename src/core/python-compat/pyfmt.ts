// Python's str() and repr() of YAML/JSON values, so trust messages read exactly like
// AbstractSkill's (its messages embed `{value!r}` and records coerce fields with `str(value)`).

/** Python `str(value)` for a value parsed from YAML or JSON (True, None, 1.0, {'a': 1}). */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** Python `repr(value)` for plain data: strings, numbers, booleans, null, lists and mappings. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyFloatOrInt(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return pyStrRepr(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (value instanceof Uint8Array) return `b'...'`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return String(value);
}

/** Python's `type(value).__name__` for plain data. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object") return "dict";
  return typeof value;
}

/**
 * A YAML float whose value is integral (`1.0`): JS numbers cannot tell it from the int `1`, but
 * Python can, and `str()` of it is "1.0". The YAML loader wraps such floats in this class.
 */
export class PyFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
  toJSON(): number {
    return this.value;
  }
}

function pyFloatOrInt(n: number): string {
  return Number.isInteger(n) ? String(n) : pyFloatRepr(n);
}

function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (n === Infinity) return "inf";
  if (n === -Infinity) return "-inf";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  // JS and Python both print the shortest round-tripping digits; only the exponent differs.
  return String(n).replace(/e([+-])(\d)$/, "e$10$2");
}

// Python repr of str: prefers single quotes, switches to double quotes when the text holds a
// single quote but no double quote, and escapes what str.isprintable() rejects.
function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (isPyPrintable(cp)) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + quote;
}

// An approximation of str.isprintable(): control characters, separators other than the ASCII
// space, surrogates and unassigned private-use gaps are not printable.
function isPyPrintable(cp: number): boolean {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp === 0xad) return false;
  return !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(String.fromCodePoint(cp));
}
