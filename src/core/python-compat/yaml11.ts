// YAML parsing with PyYAML's YAML 1.1 typing, because both seed libraries read frontmatter with
// PyYAML: `yes` is a boolean, `1.0` a float, `2024-01-15` a date there, and must be here too.
// The `yaml` package's own 1.1 schema differs in corners (`y`/`n`, `1e3`), so plain scalars are
// resolved with PyYAML's implicit-resolver rules instead. Duplicate keys are an error (PyYAML
// keeps the last one: a deliberate difference) and aliases are capped against expansion bombs.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type ScalarTag } from "yaml";
import { PyFloat, pyRepr } from "./pyfmt.ts";

/** Python type names, used in messages so they read the same as the seed libraries'. */
export type PyTypeName = "str" | "int" | "float" | "bool" | "NoneType" | "date" | "datetime" | "list" | "dict";

export class YamlError extends Error {
  /** 1-based line within the YAML text, when known. */
  readonly line: number | undefined;
  constructor(message: string, line?: number) {
    super(message);
    this.name = "YamlError";
    this.line = line;
  }
}

/** Aliases allowed per document; a billion-laughs document needs far more and fails fast. */
export const MAX_YAML_ALIASES = 100;

const BOOL_RE = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const DATE_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const TIMESTAMP_RE =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;

/** Splits sexagesimal `a:b:c` into base-60 digits, as YAML 1.1 ints and floats allow. */
function sexagesimal(text: string): number {
  return text.split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
}

function resolveInt(source: string): number {
  let s = source.replaceAll("_", "");
  let sign = 1;
  if (s[0] === "-" || s[0] === "+") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s.startsWith("0b")) return sign * Number.parseInt(s.slice(2), 2);
  if (s.startsWith("0x")) return sign * Number.parseInt(s.slice(2), 16);
  if (s.startsWith("0")) return sign * Number.parseInt(s, 8);
  if (s.includes(":")) return sign * sexagesimal(s);
  return sign * Number(s);
}

function resolveFloat(source: string): number {
  let s = source.replaceAll("_", "").toLowerCase();
  let sign = 1;
  if (s[0] === "-" || s[0] === "+") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === ".inf") return sign * Infinity;
  if (s === ".nan") return Number.NaN;
  if (s.includes(":")) return sign * sexagesimal(s);
  return sign * Number(s);
}

const TIMESTAMP_PARTS_RE =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

/** A timestamp as a JS Date (UTC; a bare date is midnight UTC). */
function timestampAsDate(source: string): Date {
  const m = TIMESTAMP_PARTS_RE.exec(source);
  if (!m) return new Date(Number.NaN);
  const [, y, mo, d, h = "0", mi = "0", sec = "0", frac = "", tz, tzSign, tzH = "0", tzM = "0"] = m;
  const ms = Number(`0.${frac || "0"}`) * 1000;
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Math.floor(ms));
  if (tz && tz !== "Z") t -= (tzSign === "-" ? -1 : 1) * (Number(tzH) * 60 + Number(tzM)) * 60_000;
  return new Date(t);
}

/** A timestamp as Python's str() of the date/datetime PyYAML builds: "2026-07-11", "2001-12-14 21:59:43.100000-05:00". */
function timestampAsPyStr(source: string): string {
  const m = TIMESTAMP_PARTS_RE.exec(source)!;
  const pad = (s: string | undefined, n = 2) => (s ?? "0").padStart(n, "0");
  const date = `${m[1]}-${pad(m[2])}-${pad(m[3])}`;
  if (m[4] === undefined) return date;
  let out = `${date} ${pad(m[4])}:${m[5]}:${m[6]}`;
  const fraction = (m[7] ?? "").slice(0, 6);
  if (fraction && Number(fraction) !== 0) out += `.${fraction.padEnd(6, "0")}`;
  const tz = m[8];
  if (tz === "Z") out += "+00:00";
  else if (tz !== undefined) out += `${m[9]}${pad(m[10])}:${pad(m[11] ?? "00")}`;
  return out;
}

/**
 * How resolved values are represented. "js": floats are numbers, timestamps Dates (frontmatter,
 * which becomes JSON). "python": an integral float stays a PyFloat and a timestamp becomes the
 * string Python's str() gives, because trust records compare and print values as AbstractSkill does.
 */
export type YamlValueStyle = "js" | "python";

/** PyYAML's implicit resolvers as `yaml` scalar tags, in PyYAML's registration order. */
function pyyamlScalarTags(style: YamlValueStyle): ScalarTag[] {
  const float =
    style === "js"
      ? resolveFloat
      : (s: string) => {
          const n = resolveFloat(s);
          return Number.isInteger(n) ? new PyFloat(n) : n;
        };
  return [
    { tag: "tag:yaml.org,2002:bool", default: true, test: BOOL_RE, resolve: (s) => /^(?:yes|true|on)$/i.test(s) },
    { tag: "tag:yaml.org,2002:float", default: true, test: FLOAT_RE, resolve: float as ScalarTag["resolve"] },
    { tag: "tag:yaml.org,2002:int", default: true, test: INT_RE, resolve: resolveInt },
    { tag: "tag:yaml.org,2002:null", default: true, test: NULL_RE, resolve: () => null },
    {
      tag: "tag:yaml.org,2002:timestamp",
      default: true,
      test: TIMESTAMP_RE,
      resolve: (style === "js" ? timestampAsDate : timestampAsPyStr) as ScalarTag["resolve"],
    },
  ];
}

const JS_TAGS = pyyamlScalarTags("js");
const PYTHON_TAGS = pyyamlScalarTags("python");

/** Parse options shared by every YAML read: PyYAML typing, merge keys, unique keys. */
function parseWithPyYamlTyping(text: string, style: YamlValueStyle, options: { lineCounter?: LineCounter; prettyErrors: boolean }): Document.Parsed {
  return parseDocument(text, {
    schema: "failsafe",
    customTags: style === "js" ? JS_TAGS : PYTHON_TAGS,
    merge: true,
    uniqueKeys: true,
    // Warnings (a collection used as a key, say) are not printed: validation reports what matters.
    logLevel: "error",
    ...options,
  });
}

/** A parsed YAML document plus the line counter that turns offsets into line:column. */
export interface PyYamlDocument {
  doc: Document.Parsed;
  lines: LineCounter;
}

/**
 * Parses YAML as PyYAML's safe_load types it, with values in Python's form (see YamlValueStyle);
 * errors stay on `doc.errors` for the caller to report with positions. Used for trust records.
 * @example parsePyYaml("a: yes").doc.toJS() // { a: true }
 */
export function parsePyYaml(text: string): PyYamlDocument {
  const lines = new LineCounter();
  return { doc: parseWithPyYamlTyping(text, "python", { lineCounter: lines, prettyErrors: false }), lines };
}

/**
 * The Python type PyYAML would give a scalar's source text (plain scalars only; quoted and
 * block scalars are always `str`).
 */
function pyTypeOfPlainScalar(source: string): PyTypeName {
  if (BOOL_RE.test(source)) return "bool";
  if (FLOAT_RE.test(source)) return "float";
  if (INT_RE.test(source)) return "int";
  if (NULL_RE.test(source)) return "NoneType";
  if (TIMESTAMP_RE.test(source)) return DATE_RE.test(source) ? "date" : "datetime";
  return "str";
}

/** The Python type name of a parsed YAML node, as PyYAML's safe_load would construct it. */
export function pyTypeOfNode(node: unknown): PyTypeName {
  if (node === null || node === undefined) return "NoneType";
  if (isMap(node)) return "dict";
  if (isSeq(node)) return "list";
  if (isScalar(node)) {
    if (node.type === "PLAIN" && !node.tag) return pyTypeOfPlainScalar(String(node.source ?? ""));
    const v = node.value;
    if (typeof v === "boolean") return "bool";
    if (typeof v === "number") return Number.isInteger(v) && node.tag?.endsWith(":int") ? "int" : "float";
    if (v === null) return "NoneType";
    if (v instanceof Date) return "datetime";
    return "str";
  }
  return "str";
}

/** A Python-style repr of a scalar node, for messages such as `got float (1.0)`. */
export function pyReprOfNode(node: unknown): string {
  const type = pyTypeOfNode(node);
  if (!isScalar(node)) return type === "NoneType" ? "None" : type;
  const v = node.value;
  switch (type) {
    case "NoneType":
      return "None";
    case "bool":
      return v ? "True" : "False";
    case "int":
      return String(v);
    case "float":
      return pyRepr(new PyFloat(v as number));
    case "date": {
      const d = v as Date;
      return `datetime.date(${d.getUTCFullYear()}, ${d.getUTCMonth() + 1}, ${d.getUTCDate()})`;
    }
    case "datetime":
      return `datetime.datetime(${String(node.source)})`;
    default:
      return `'${String(v)}'`;
  }
}

/** PyYAML refuses these characters anywhere in a stream; so do we, with the line named. */
const NON_PRINTABLE_RE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export interface ParsedYaml {
  /** The document as plain JS: maps become objects with string keys, timestamps Dates. */
  value: unknown;
  /** The node tree, for type-aware messages (see pyTypeOfNode). */
  document: Document.Parsed;
}

/**
 * Nesting of sequences and mappings deeper than this is refused. A skill record carries its
 * frontmatter a few levels down, and the admin API refuses JSON nested deeper than 128
 * (MAX_JSON_DEPTH in src/core/publish/contract.ts): what the build accepts must also publish.
 */
export const MAX_YAML_DEPTH = 64;

/** What the parser says when the stack runs out; a document nested that deep is refused as such. */
const STACK_OVERFLOW_RE = /call stack|too much recursion/i;

/**
 * The adapter boundary where the YAML reader's stack overflow is recognised, the one place its
 * text is read: the engine's RangeError, or the parse error the yaml library words from it.
 * @example isStackOverflow(new RangeError("Maximum call stack size exceeded")) // => true
 */
export function isStackOverflow(error: unknown): boolean {
  // The first line only: a parse error's later lines quote the document, which may say anything.
  return error instanceof Error && STACK_OVERFLOW_RE.test(error.message.split("\n")[0]!);
}
const NESTED_TOO_DEEP = `it is nested too deeply to parse; keep sequences and mappings within ${MAX_YAML_DEPTH} levels`;

/** Parses one YAML document with PyYAML 1.1 typing; throws YamlError naming the line. */
export function parseYaml11(text: string): ParsedYaml {
  const bad = NON_PRINTABLE_RE.exec(text);
  if (bad) {
    const line = text.slice(0, bad.index).split("\n").length;
    const code = bad[0].codePointAt(0)!.toString(16).padStart(4, "0");
    throw new YamlError(`unacceptable character #x${code} at line ${line} (YAML forbids control characters)`, line);
  }
  let document: Document.Parsed;
  try {
    document = parseWithPyYamlTyping(text, "js", { prettyErrors: true });
  } catch (error) {
    if (error instanceof RangeError) throw new YamlError(NESTED_TOO_DEEP);
    throw error;
  }
  const first = document.errors[0];
  if (first) {
    const raw = first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    const overflow = isStackOverflow(first);
    // Where the stack ran out depends on how much the caller left, not on the text: no line then.
    const line = overflow ? undefined : first.linePos?.[0].line;
    const message = overflow ? NESTED_TOO_DEEP : raw;
    throw new YamlError(line ? `${message} (line ${line})` : message, line);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof RangeError && isStackOverflow(error)) throw new YamlError(NESTED_TOO_DEEP);
    throw new YamlError(`${(error as Error).message}; refusing to expand aliases (at most ${MAX_YAML_ALIASES})`);
  }
  const problem = yamlValueProblem(value, { jsonOnly: true });
  if (problem) throw new YamlError(problem);
  return { value, document };
}

/** A lone UTF-16 surrogate: what a YAML escape such as "\ud800" yields, and no UTF-8 text can carry. */
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` holds a lone surrogate, so it has no UTF-8 form (TextEncoder would change it). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE_RE.test(text);
}

/** `metadata.tags[0]`, or "the document" at the root. */
function valuePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "the document";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/**
 * Why a value parsed from YAML cannot be stored as JSON and read the same everywhere, or
 * undefined: a structure that contains itself (an anchor aliased inside itself), a lone
 * surrogate in a key or string, nesting deeper than MAX_YAML_DEPTH, and with `jsonOnly` a value
 * JSON has no form for (`!!binary` bytes, a `!!set`), which would also differ between runtimes.
 * Shared structure (an anchor aliased twice) is fine and walked once.
 * @example yamlValueProblem(parseDocument("x: &x [*x]").toJS()) // "x contains itself …"
 */
export function yamlValueProblem(value: unknown, options: { jsonOnly?: boolean } = {}): string | undefined {
  const walked = new Set<object>();
  const open = new Set<object>();
  const path: (string | number)[] = [];
  let problem: string | undefined;
  const surrogate = (what: string) =>
    `${what} holds a lone surrogate escape (such as "\\ud800"), which no UTF-8 text can carry; remove it, or escape the whole character (such as "\\U0001F600")`;
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      if (hasLoneSurrogate(v)) problem = surrogate(`the string at ${valuePath(path)}`);
      return;
    }
    if (v === null || typeof v !== "object" || v instanceof Date) return;
    if (open.has(v)) {
      problem = `${valuePath(path)} contains itself (an alias inside its own anchor), which JSON cannot hold; write the value out instead`;
      return;
    }
    if (walked.has(v)) return;
    if (path.length >= MAX_YAML_DEPTH) {
      problem = `${valuePath(path)} is nested more than ${MAX_YAML_DEPTH} levels deep; flatten it`;
      return;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    let entries: [string | number, unknown][];
    if (Array.isArray(v)) entries = v.map((item, i) => [i, item]);
    else if (proto === Object.prototype || proto === null) entries = Object.entries(v);
    else if (options.jsonOnly) {
      problem = `${valuePath(path)} is a YAML ${v instanceof Uint8Array ? "!!binary value" : v instanceof Set ? "!!set" : v instanceof Map ? "!!omap" : "value of another type"}, which JSON cannot hold; write it as a string, a list or a mapping`;
      return;
    } else entries = [];
    open.add(v);
    for (const [key, item] of entries) {
      if (typeof key === "string" && hasLoneSurrogate(key)) problem = surrogate(`a key in ${valuePath(path)}`);
      if (problem) break;
      path.push(key);
      visit(item);
      path.pop();
      if (problem) break;
    }
    open.delete(v);
    walked.add(v);
  };
  visit(value);
  return problem;
}

/** The value node of `key` in a top-level mapping document, for type-aware messages. */
export function topLevelNode(document: Document.Parsed, key: string): Node | null | undefined {
  const contents = document.contents;
  if (!isMap(contents)) return undefined;
  for (const pair of contents.items) {
    if (isScalar(pair.key) && String(pair.key.value) === key) return (pair.value as Node | null) ?? null;
  }
  return undefined;
}

/** `(key node, value node)` pairs of a mapping node, for checks that need key types. */
export function mapPairs(node: unknown): { key: unknown; value: unknown }[] {
  if (!isMap(node)) return [];
  return node.items.map((p) => ({ key: p.key, value: p.value }));
}
