// Writes trust records as YAML that AbstractSkill (PyYAML safe_load) and our own loader read back
// to the same values: block style, every string double-quoted (so `yes`, `2026-07-11` or `1e5`
// never change type), keys in AbstractSkill's to_dict order, optional fields only when set.
import { PyFloat } from "../python-compat/pyfmt.ts";
import type { AdvisoryEntry, CatalogEntry, GuidanceEntry, ValidationRecord } from "./records.ts";

// Characters PyYAML accepts raw in a stream (its reader's printable set), minus what a
// double-quoted scalar must escape; everything else is written as an escape.
function isRawSafe(cp: number): boolean {
  if (cp === 0x22 || cp === 0x5c) return false;
  if (cp >= 0x20 && cp <= 0x7e) return true;
  // \x85, \u2028, \u2029 are line breaks to YAML 1.1 and would be folded; \ufeff is a BOM.
  if (cp === 0x85 || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff) return false;
  return (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** A YAML double-quoted scalar both YAML 1.1 (PyYAML) and 1.2 read as exactly `s`. */
function quoteYamlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (isRawSafe(cp)) out += ch;
    else if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

function scalar(value: unknown): string | null {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return quoteYamlString(value);
  if (value instanceof PyFloat) return floatText(value.value);
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : floatText(value);
  if (Array.isArray(value) && value.length === 0) return "[]";
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return "{}";
  return null;
}

// PyYAML only reads a float when the mantissa has a dot and the exponent a sign.
function floatText(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (!Number.isFinite(n)) return n > 0 ? ".inf" : "-.inf";
  const [mantissa, exponent] = String(n).split("e");
  const m = mantissa!.includes(".") ? mantissa! : `${mantissa}.0`;
  return exponent === undefined ? m : `${m}e${exponent.startsWith("-") ? exponent : `+${exponent.replace("+", "")}`}`;
}

function key(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) &&
    !/^(?:y|Y|n|N|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/.test(k)
    ? k
    : quoteYamlString(k);
}

function block(value: unknown, indent: number): string[] {
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    const lines: string[] = [];
    for (const item of value) {
      const s = scalar(item);
      if (s !== null) {
        lines.push(`${pad}- ${s}`);
        continue;
      }
      const inner = block(item, indent + 2);
      lines.push(`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1));
    }
    return lines;
  }
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    const s = scalar(v);
    if (s !== null) lines.push(`${pad}${key(k)}: ${s}`);
    else if (Array.isArray(v)) lines.push(`${pad}${key(k)}:`, ...block(v, indent));
    else lines.push(`${pad}${key(k)}:`, ...block(v, indent + 2));
  }
  return lines;
}

function document(top: Record<string, unknown>, header: readonly string[]): string {
  const comments = header.map((line) => (line ? `# ${line}` : "#"));
  return `${[...comments, ...block(top, 0)].join("\n")}\n`;
}

/** The to_dict form of a validation record (AbstractSkill key order; optional keys only when set). */
export function validationToDict(r: ValidationRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: r.name,
    source: r.source,
    tree_hash: r.tree_hash,
    level: r.level,
    method: r.method,
    validated_by: r.validated_by,
    validated_at: r.validated_at,
  };
  if (Object.keys(r.evidence).length) out.evidence = r.evidence;
  if (r.notes) out.notes = r.notes;
  if (r.activation_description) out.activation_description = r.activation_description;
  out.audience = r.audience;
  if (r.delivered_via_map) out.delivered_via_map = true;
  return out;
}

/** The to_dict form of an advisory. */
export function advisoryToDict(a: AdvisoryEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: a.name,
    source: a.source,
    official_intent: a.official_intent,
    hidden_issue: a.hidden_issue,
    severity: a.severity,
    reference: a.reference,
    status: a.status,
  };
  for (const k of ["tree_hash", "advisory_id", "discovered_at", "withdrawn_reason", "withdrawn_at"] as const) {
    if (a[k]) out[k] = a[k];
  }
  return out;
}

/** The to_dict form of a guidance entry. */
export function guidanceToDict(g: GuidanceEntry): Record<string, unknown> {
  return { guidance_id: g.guidance_id, title: g.title, risk_class: g.risk_class, detail: g.detail, severity: g.severity, reference: g.reference };
}

/** The to_dict form of a catalog entry. */
export function catalogEntryToDict(e: CatalogEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: e.name,
    source: e.source,
    repo: e.repo,
    upstream_ref: e.upstream_ref,
    subdir: e.subdir,
    license: e.license,
    archetype: e.archetype,
    risk: e.risk,
    improves: e.improves,
    vendored: e.vendored,
  };
  if (e.activation_description) out.activation_description = e.activation_description;
  if (e.expected_tree_hash) out.expected_tree_hash = e.expected_tree_hash;
  if (e.evidence.length) out.evidence = e.evidence;
  if (e.notes) out.notes = e.notes;
  return out;
}

/**
 * validations.yaml text. `header` lines become leading comments.
 * @example serializeValidations([record], ["Regenerate with skillshelf attest."])
 */
export function serializeValidations(records: readonly ValidationRecord[], header: readonly string[] = []): string {
  return document({ validations: records.map(validationToDict) }, header);
}

/** advisories.yaml text (an empty list is written as `advisories: []`). */
export function serializeAdvisories(entries: readonly AdvisoryEntry[], header: readonly string[] = []): string {
  return document({ advisories: entries.map(advisoryToDict) }, header);
}

/** guidance.yaml text. */
export function serializeGuidance(entries: readonly GuidanceEntry[], header: readonly string[] = []): string {
  return document({ guidance: entries.map(guidanceToDict) }, header);
}

/** catalog.yaml text with its bundle `version` first. */
export function serializeCatalog(version: string | null, entries: readonly CatalogEntry[], header: readonly string[] = []): string {
  const top: Record<string, unknown> = {};
  if (version !== null) top.version = version;
  top.skills = entries.map(catalogEntryToDict);
  return document(top, header);
}
