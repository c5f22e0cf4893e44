// YAML 1.1 as PyYAML's safe_load resolves it, so records written for AbstractSkill mean the same
// here: `yes`/`on` are booleans, `010` is octal, `2026-07-11` is a date, `1e5` stays a string.
// The `yaml` package's own 1.1 schema differs in a few regexes (it reads `y`/`n` as booleans,
// `09` as 9, `1e5` as a float, `2026-7-1` as a date); those tags are replaced here.
import { LineCounter, parseDocument, type Document, type ScalarTag } from "yaml";
import { PyFloat } from "./pyfmt.ts";

const BOOL_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?)$/;

function sexagesimal(digits: string): number {
  return digits.split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
}

function resolveInt(source: string): number {
  let text = source.replace(/_/g, "");
  let sign = 1;
  if (text[0] === "-" || text[0] === "+") {
    if (text[0] === "-") sign = -1;
    text = text.slice(1);
  }
  if (text === "0") return 0;
  if (text.startsWith("0b")) return sign * Number.parseInt(text.slice(2), 2);
  if (text.startsWith("0x")) return sign * Number.parseInt(text.slice(2), 16);
  if (text.startsWith("0")) return sign * Number.parseInt(text.slice(1), 8);
  if (text.includes(":")) return sign * sexagesimal(text);
  return sign * Number(text);
}

function resolveFloat(source: string): number | PyFloat {
  let text = source.replace(/_/g, "").toLowerCase();
  let sign = 1;
  if (text[0] === "-" || text[0] === "+") {
    if (text[0] === "-") sign = -1;
    text = text.slice(1);
  }
  let value: number;
  if (text === ".inf") value = Infinity;
  else if (text === ".nan") value = NaN;
  else if (text.includes(":")) value = sexagesimal(text.slice(0, text.lastIndexOf(":"))) * 60 + Number(text.slice(text.lastIndexOf(":") + 1));
  else value = Number(text);
  value *= sign;
  // An integral float keeps its Python identity: str(1.0) is "1.0", not "1".
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

// Python's str() of the date or datetime PyYAML builds: "2026-07-11", "2001-12-14 21:59:43.100000-05:00".
function resolveTimestamp(source: string): string {
  const m = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?)?$/.exec(source)!;
  const pad = (s: string | undefined, n = 2) => (s ?? "0").padStart(n, "0");
  const date = `${m[1]}-${pad(m[2])}-${pad(m[3])}`;
  if (m[4] === undefined) return date;
  let out = `${date} ${pad(m[4])}:${m[5]}:${m[6]}`;
  const fraction = (m[7] ?? "").slice(0, 6);
  if (fraction && Number(fraction) !== 0) out += `.${fraction.padEnd(6, "0")}`;
  const tz = m[8];
  if (tz !== undefined) {
    if (tz === "Z") out += "+00:00";
    else {
      const [h, mm] = tz.slice(1).split(":");
      out += `${tz[0]}${pad(h)}:${pad(mm ?? "00")}`;
    }
  }
  return out;
}

const PYYAML_TAGS: ScalarTag[] = [
  { tag: "tag:yaml.org,2002:bool", default: true, test: BOOL_TRUE, resolve: () => true },
  { tag: "tag:yaml.org,2002:bool", default: true, test: BOOL_FALSE, resolve: () => false },
  { tag: "tag:yaml.org,2002:int", default: true, test: INT, resolve: resolveInt },
  { tag: "tag:yaml.org,2002:float", default: true, test: FLOAT, resolve: resolveFloat as ScalarTag["resolve"] },
  { tag: "tag:yaml.org,2002:timestamp", default: true, test: TIMESTAMP, resolve: resolveTimestamp },
];

const REPLACED = new Set(["tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"]);

/** A parsed YAML 1.1 document plus the line counter that turns offsets into line:column. */
export interface PyYamlDocument {
  doc: Document.Parsed;
  lines: LineCounter;
}

/**
 * Parses YAML with PyYAML's YAML 1.1 resolution (safe_load). Duplicate keys are an error here
 * (PyYAML silently keeps the last one; a trust record must not hide a second value).
 * @example parsePyYaml("a: yes").doc.toJS() // { a: true }
 */
export function parsePyYaml(text: string): PyYamlDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    version: "1.1",
    lineCounter: lines,
    merge: true,
    uniqueKeys: true,
    prettyErrors: false,
    customTags: (tags) => [...PYYAML_TAGS, ...tags.filter((t) => typeof t === "string" || !REPLACED.has(t.tag))],
  });
  return { doc, lines };
}
