// Trust records of a shelf: validations.yaml, advisories.yaml, guidance.yaml and catalog.yaml,
// with AbstractSkill's schemas (0.3.2). Loading is loud: every malformed entry is reported with
// its file and position, and a shelf with any problem is refused as a whole (fail closed), since
// dropping one malformed advisory would silently remove a protection.
import { isMap, isSeq, type Node } from "yaml";
import { z } from "zod";
import { pyRepr, pyStr, pyTypeName, PyFloat } from "../python-compat/pyfmt.ts";
import { isStackOverflow, MAX_YAML_DEPTH, parsePyYaml, yamlValueProblem } from "../python-compat/yaml11.ts";
import { pyStrip } from "../python-compat/py-text.ts";
import { isSha256Hex, SHA256_HEX_RE } from "../skill/hash.ts";
import { MAX_NAME_CHARS, SKILL_NAME_RE } from "../skill/skill.ts";

/** Trust levels in rank order; `blocked` is a verdict, never something a record grants. */
export const TRUST_LEVELS = ["blocked", "unverified", "community", "adopted", "audited", "first_party"] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];
/** The levels a validation record may grant. */
export const GRANTABLE_LEVELS: readonly TrustLevel[] = ["community", "adopted", "audited", "first_party"];
/** Advisory and guidance severities; critical and high block. */
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];
/** The highest level each validation method may grant ("reviewed is not audited"). */
export const METHOD_MAX_LEVEL: Readonly<Record<string, TrustLevel>> = {
  "first-party": "first_party",
  "external-audit": "audited",
  "simulated-execution": "audited",
  "manual-review": "adopted",
  "first-party-adoption": "adopted",
};
export const AUDIENCES = ["entity", "host", "either"] as const;

/** The rank of a level: blocked 0 … first_party 5. */
export function levelRank(level: TrustLevel): number {
  return TRUST_LEVELS.indexOf(level);
}

// The loaded form of each record kind as a plain zod object: what the loaders below produce and
// what a schema generator (OpenAPI for the admin API) sees. The loaders coerce YAML the way
// AbstractSkill does and report its messages; their output is then checked against these.

/** One attestation that the skill tree with `tree_hash` earned `level` (AbstractSkill ValidationRecord). */
export const ValidationRecordObjectSchema = z.strictObject({
  name: z.string(),
  source: z.string(),
  tree_hash: z.string().regex(SHA256_HEX_RE),
  level: z.enum(TRUST_LEVELS),
  method: z.string(),
  validated_by: z.string(),
  validated_at: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  notes: z.string().nullable(),
  activation_description: z.string().nullable(),
  audience: z.enum(AUDIENCES),
  delivered_via_map: z.boolean(),
});
export type ValidationRecord = z.infer<typeof ValidationRecordObjectSchema>;

/** A do-not-use notice for one specific skill, anchored by tree hash or by name and source. */
export const AdvisoryEntryObjectSchema = z.strictObject({
  name: z.string(),
  source: z.string(),
  official_intent: z.string(),
  hidden_issue: z.string(),
  severity: z.enum(SEVERITIES),
  reference: z.string(),
  tree_hash: z.string().regex(SHA256_HEX_RE).nullable(),
  advisory_id: z.string().nullable(),
  discovered_at: z.string().nullable(),
  status: z.enum(["active", "withdrawn"]),
  withdrawn_reason: z.string().nullable(),
  withdrawn_at: z.string().nullable(),
});
export type AdvisoryEntry = z.infer<typeof AdvisoryEntryObjectSchema>;

/** A class-level risk notice; informational, never blocks a specific skill. */
export const GuidanceEntryObjectSchema = z.strictObject({
  guidance_id: z.string(),
  title: z.string(),
  risk_class: z.string(),
  detail: z.string(),
  severity: z.enum(SEVERITIES),
  reference: z.string(),
});
export type GuidanceEntry = z.infer<typeof GuidanceEntryObjectSchema>;

/** One curated, pinned, vendorable skill of catalog.yaml. */
export const CatalogEntryObjectSchema = z.strictObject({
  name: z.string(),
  source: z.string(),
  repo: z.string(),
  upstream_ref: z.string(),
  subdir: z.string(),
  license: z.string(),
  archetype: z.enum(["knowledge", "procedure", "meta"]),
  risk: z.enum(["low", "moderate", "risky"]),
  improves: z.string(),
  activation_description: z.string().nullable(),
  expected_tree_hash: z.string().regex(SHA256_HEX_RE).nullable(),
  vendored: z.boolean(),
  evidence: z.array(z.string()),
  notes: z.string().nullable(),
});
export type CatalogEntry = z.infer<typeof CatalogEntryObjectSchema>;

/** The records evaluateTrust needs: plain data, so the Worker can hold and ship it as JSON. */
export interface TrustRecords {
  validations: readonly ValidationRecord[];
  advisories: readonly AdvisoryEntry[];
}

/** Everything a shelf's record files hold. */
export interface ShelfRecords extends TrustRecords {
  guidance: readonly GuidanceEntry[];
  catalog: { version: string | null; skills: readonly CatalogEntry[] } | null;
}

/**
 * One malformed record or file. `code` names the rule (stable, used by tests against
 * AbstractSkill's behaviour); `message` is the human sentence.
 */
export interface RecordProblem {
  file: string;
  /** Index in the file's list, or null for a whole-file problem. */
  index: number | null;
  line: number | null;
  column: number | null;
  code: string;
  message: string;
}

/** Parse output for one file: the valid entries, every problem, and loud-but-harmless notes. */
export interface RecordFileResult<T> {
  entries: T[];
  problems: RecordProblem[];
  warnings: string[];
}

/**
 * The keys each entry kind understands (AbstractSkill's from_dict fields). Any other key is
 * reported as a warning: AbstractSkill ignores it silently and stays loadable, but a typo such
 * as `tree_hsh` or `stauts` silently changes what an advisory means, so we say so.
 */
export const KNOWN_ENTRY_KEYS = {
  validations: [
    "name",
    "source",
    "tree_hash",
    "level",
    "method",
    "validated_by",
    "validated_at",
    "evidence",
    "notes",
    "activation_description",
    "audience",
    "delivered_via_map",
  ],
  advisories: [
    "name",
    "source",
    "official_intent",
    "hidden_issue",
    "severity",
    "reference",
    "tree_hash",
    "advisory_id",
    "discovered_at",
    "status",
    "withdrawn_reason",
    "withdrawn_at",
  ],
  guidance: ["guidance_id", "title", "risk_class", "detail", "severity", "reference"],
  skills: [
    "name",
    "source",
    "repo",
    "upstream_ref",
    "subdir",
    "license",
    "archetype",
    "risk",
    "improves",
    "activation_description",
    "expected_tree_hash",
    "vendored",
    "evidence",
    "notes",
  ],
} as const satisfies Record<string, readonly string[]>;

// ---------------------------------------------------------------------------------------------
// Python-compatible coercions shared by the schemas.

function present(data: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(data, key);
}
// Python truthiness of a parsed value (`if data.get(key)`).
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}
function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat) && !(v instanceof Uint8Array);
}
/** AbstractSkill's coerce_bool_flag: bools, 0/1, and the usual spellings; anything else is an error. */
function coerceBoolFlag(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string") {
    const lowered = pyStrip(value).toLowerCase();
    if (["true", "yes", "1", "on"].includes(lowered)) return true;
    if (["false", "no", "0", "off"].includes(lowered)) return false;
  }
  return null;
}

type Issue = { code: string; message: string };
// zod issues carry our rule code in `params` so the problem list keeps AbstractSkill's categories.
function fail(ctx: z.RefinementCtx, code: string, message: string): void {
  ctx.addIssue({ code: "custom", message, params: { rule: code } });
}

// ---------------------------------------------------------------------------------------------
// validations.yaml

/** Loads one validations.yaml entry; checks run in AbstractSkill's order. */
function loadValidationRecord(data: unknown, ctx: z.RefinementCtx): ValidationRecord {
  if (!isMapping(data)) {
    fail(ctx, "not_mapping", `validation entry must be a mapping, got ${pyTypeName(data)}`);
    return z.NEVER;
  }
  const levelText = present(data, "level") ? pyStr(data.level) : null;
  if (levelText === null || !(TRUST_LEVELS as readonly string[]).includes(levelText)) {
    fail(ctx, "level_invalid", `invalid/absent validation level: ${pyRepr(data.level)}`);
    return z.NEVER;
  }
  const missing = ["name", "source", "tree_hash", "method", "validated_by", "validated_at"].filter((k) => !present(data, k));
  if (missing.length) {
    fail(ctx, "missing_fields", `ValidationRecord missing fields: ${pyRepr(missing)}`);
    return z.NEVER;
  }
  const evidence = present(data, "evidence") ? data.evidence : {};
  if (!isMapping(evidence)) {
    fail(ctx, "evidence_not_mapping", `ValidationRecord.evidence must be a mapping, got ${pyTypeName(evidence)}`);
    return z.NEVER;
  }
  const delivered = coerceBoolFlag(present(data, "delivered_via_map") ? data.delivered_via_map : false);
  if (delivered === null) {
    fail(ctx, "bool_flag", "ValidationRecord.delivered_via_map must be a boolean or boolean-like scalar ('true'/'false', 'yes'/'no', '1'/'0', 'on'/'off')");
    return z.NEVER;
  }
  const issues: Issue[] = [];
  const nonEmpty = (field: string): string => {
    const text = pyStrip(pyStr(data[field]));
    if (!text) issues.push({ code: "empty_field", message: `ValidationRecord requires a non-empty ${pyRepr(field)}` });
    return text;
  };
  const name = nonEmpty("name").toLowerCase();
  const source = nonEmpty("source");
  const validatedBy = pyStr(data.validated_by);
  const validatedAt = pyStr(data.validated_at);
  nonEmpty("validated_by");
  nonEmpty("validated_at");
  const rawHash = pyStr(data.tree_hash);
  const treeHash = pyStrip(rawHash).toLowerCase();
  if (!isSha256Hex(treeHash))
    issues.push({ code: "bad_hash", message: `ValidationRecord.tree_hash must be a 64-char lowercase hex sha256 (got ${pyRepr(rawHash)})` });
  const level = levelText as TrustLevel;
  const method = pyStr(data.method);
  if (!GRANTABLE_LEVELS.includes(level)) {
    issues.push({
      code: "level_not_grantable",
      message: `ValidationRecord cannot grant ${pyRepr(level)}; grantable levels are ${pyRepr([...GRANTABLE_LEVELS].sort())}`,
    });
  } else if (!Object.hasOwn(METHOD_MAX_LEVEL, method)) {
    issues.push({
      code: "unknown_method",
      message: `unknown validation method ${pyRepr(method)}; known methods are ${pyRepr(Object.keys(METHOD_MAX_LEVEL).sort())}`,
    });
  } else if (levelRank(level) > levelRank(METHOD_MAX_LEVEL[method]!)) {
    issues.push({
      code: "method_cap",
      message: `method ${pyRepr(method)} may grant at most ${pyRepr(METHOD_MAX_LEVEL[method])}, not ${pyRepr(level)} (reviewed is not audited)`,
    });
  } else if (method === "simulated-execution") {
    const epochs = evidence.epochs;
    const models = evidence.models;
    if (typeof epochs !== "number" || !Number.isInteger(epochs) || epochs < 1) {
      issues.push({ code: "simulated_execution_evidence", message: "simulated-execution requires evidence['epochs'] as a positive int (see backlog 0003)" });
    } else if (!Array.isArray(models) || models.length < 1) {
      issues.push({ code: "simulated_execution_evidence", message: "simulated-execution requires evidence['models'] as a non-empty list" });
    }
  } else if (method === "external-audit" && !truthy(evidence.reference)) {
    issues.push({ code: "external_audit_reference", message: "external-audit ValidationRecord requires evidence['reference'] (a source URL)" });
  }
  const audience = truthy(data.audience) ? pyStr(data.audience) : "host";
  if (!(AUDIENCES as readonly string[]).includes(audience)) {
    issues.push({
      code: "unknown_audience",
      message: `unknown audience ${pyRepr(audience)}; must be one of ['either', 'entity', 'host'] (who may receive the teaching)`,
    });
  } else if (delivered && audience === "host") {
    issues.push({
      code: "audience_contradiction",
      message: "delivered_via_map=True contradicts audience='host' — the map delivers to ENTITY prompts; a host-only skill cannot ride it",
    });
  }
  for (const issue of issues) fail(ctx, issue.code, issue.message);
  if (issues.length) return z.NEVER;
  return {
    name,
    source,
    tree_hash: treeHash,
    level,
    method,
    validated_by: validatedBy,
    validated_at: validatedAt,
    evidence: { ...evidence },
    notes: data.notes !== null && data.notes !== undefined ? pyStr(data.notes) : null,
    activation_description: truthy(data.activation_description) ? pyStr(data.activation_description) : null,
    audience: audience as ValidationRecord["audience"],
    delivered_via_map: delivered,
  };
}

/** zod schema for one validations.yaml entry: the loader's coercions and messages, then the plain object it must produce. */
export const ValidationRecordSchema = z.transform(loadValidationRecord).pipe(ValidationRecordObjectSchema);

// ---------------------------------------------------------------------------------------------
// advisories.yaml

/** Loads one advisories.yaml entry (four mandated fields, graded severity). */
function loadAdvisoryEntry(data: unknown, ctx: z.RefinementCtx): AdvisoryEntry {
  if (!isMapping(data)) {
    fail(ctx, "not_mapping", `advisory entry must be a mapping, got ${pyTypeName(data)}`);
    return z.NEVER;
  }
  const mandated = ["name", "source", "official_intent", "hidden_issue", "severity", "reference"];
  const missing = mandated.filter((k) => !present(data, k) || !pyStrip(pyStr(data[k])));
  if (missing.length) {
    fail(
      ctx,
      "missing_mandated",
      `AdvisoryEntry missing mandated field(s): ${pyRepr(missing)} (official_intent, hidden_issue, severity, reference are required)`,
    );
    return z.NEVER;
  }
  const severity = pyStr(data.severity);
  if (!(SEVERITIES as readonly string[]).includes(severity)) {
    fail(ctx, "severity_invalid", `invalid advisory severity ${pyRepr(data.severity)}; must be one of ${pyRepr([...SEVERITIES])}`);
    return z.NEVER;
  }
  const optional = (key: string): string | null => (truthy(data[key]) ? pyStr(data[key]) : null);
  const issues: Issue[] = [];
  let treeHash = optional("tree_hash");
  if (treeHash !== null) {
    const normalized = pyStrip(treeHash).toLowerCase();
    if (!isSha256Hex(normalized))
      issues.push({ code: "bad_hash", message: `AdvisoryEntry.tree_hash must be a 64-char lowercase hex sha256 (got ${pyRepr(treeHash)})` });
    treeHash = normalized;
  }
  const status = present(data, "status") ? pyStr(data.status) : "active";
  if (status !== "active" && status !== "withdrawn") {
    issues.push({ code: "status_invalid", message: "AdvisoryEntry.status must be 'active' or 'withdrawn'" });
  } else if (status === "withdrawn" && !pyStrip(optional("withdrawn_reason") ?? "")) {
    issues.push({ code: "withdrawn_reason_missing", message: "a withdrawn advisory must carry withdrawn_reason" });
  }
  for (const issue of issues) fail(ctx, issue.code, issue.message);
  if (issues.length) return z.NEVER;
  return {
    name: pyStrip(pyStr(data.name)).toLowerCase(),
    source: pyStrip(pyStr(data.source)),
    official_intent: pyStr(data.official_intent),
    hidden_issue: pyStr(data.hidden_issue),
    severity: severity as Severity,
    reference: pyStr(data.reference),
    tree_hash: treeHash,
    advisory_id: optional("advisory_id"),
    discovered_at: optional("discovered_at"),
    status: status as AdvisoryEntry["status"],
    withdrawn_reason: optional("withdrawn_reason"),
    withdrawn_at: optional("withdrawn_at"),
  };
}

/** zod schema for one advisories.yaml entry: the loader's coercions and messages, then the plain object it must produce. */
export const AdvisoryEntrySchema = z.transform(loadAdvisoryEntry).pipe(AdvisoryEntryObjectSchema);

// ---------------------------------------------------------------------------------------------
// guidance.yaml

/** Loads one guidance.yaml entry (six non-empty fields). */
function loadGuidanceEntry(data: unknown, ctx: z.RefinementCtx): GuidanceEntry {
  if (!isMapping(data)) {
    fail(ctx, "not_mapping", `guidance entry must be a mapping, got ${pyTypeName(data)}`);
    return z.NEVER;
  }
  const severity = present(data, "severity") ? pyStr(data.severity) : null;
  if (severity === null || !(SEVERITIES as readonly string[]).includes(severity)) {
    fail(ctx, "severity_invalid", `invalid/absent guidance severity: ${pyRepr(data.severity)}`);
    return z.NEVER;
  }
  const fields = ["guidance_id", "title", "risk_class", "detail", "reference"] as const;
  const values: Record<string, string> = {};
  let bad = false;
  for (const field of fields) {
    values[field] = present(data, field) ? pyStr(data[field]) : "";
    if (!pyStrip(values[field]!)) {
      fail(ctx, "empty_field", `GuidanceEntry requires a non-empty ${pyRepr(field)}`);
      bad = true;
    }
  }
  if (bad) return z.NEVER;
  return { ...(values as Omit<GuidanceEntry, "severity">), severity: severity as Severity };
}

/** zod schema for one guidance.yaml entry: the loader's coercions and messages, then the plain object it must produce. */
export const GuidanceEntrySchema = z.transform(loadGuidanceEntry).pipe(GuidanceEntryObjectSchema);

// ---------------------------------------------------------------------------------------------
// catalog.yaml

const REPO_SLUG_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const SUBDIR_BAD = /(^\/)|(^\.\.(\/|$))|(\/\.\.(\/|$))|(\\)/;
/** Licences that permit redistribution (compared lower-cased). */
export const REDISTRIBUTABLE_LICENSES = [
  "mit",
  "apache-2.0",
  "bsd-2-clause",
  "bsd-3-clause",
  "isc",
  "cc0-1.0",
  "unlicense",
  "mpl-2.0",
  "cc-by-4.0",
  "cc-by-sa-4.0",
];
/** A catalog `version`: dotted numeric, compared as a tuple of integers. */
export const BUNDLE_VERSION_RE = /^\d+(\.\d+)*$/;

/** AbstractSkill's validate_skill_name: the stripped name, or the reason it is not a skill name. */
export function checkSkillName(name: string): { ok: true; name: string } | { ok: false; message: string } {
  const normalized = pyStrip(name);
  if (!normalized) return { ok: false, message: "skill name is required" };
  if ([...normalized].length > MAX_NAME_CHARS) return { ok: false, message: `skill name must be at most ${MAX_NAME_CHARS} characters` };
  if (!SKILL_NAME_RE.test(normalized)) {
    return { ok: false, message: "skill name must use lowercase letters, digits, and single hyphens (no leading, trailing, or consecutive hyphens)" };
  }
  return { ok: true, name: normalized };
}

/** Loads one catalog.yaml `skills` entry. */
function loadCatalogEntry(data: unknown, ctx: z.RefinementCtx): CatalogEntry {
  if (!isMapping(data)) {
    fail(ctx, "not_mapping", `catalog entry must be a mapping, got ${pyTypeName(data)}`);
    return z.NEVER;
  }
  const rawEvidence = present(data, "evidence") ? data.evidence : [];
  if (truthy(rawEvidence) && !Array.isArray(rawEvidence)) {
    fail(ctx, "evidence_not_list", "catalog entry 'evidence' must be a list of URLs");
    return z.NEVER;
  }
  const vendored = coerceBoolFlag(present(data, "vendored") ? data.vendored : false);
  if (vendored === null) {
    fail(ctx, "bool_flag", "CatalogEntry.vendored must be a boolean or boolean-like scalar ('true'/'false', 'yes'/'no', '1'/'0', 'on'/'off')");
    return z.NEVER;
  }
  const text = (key: string) => (present(data, key) ? pyStr(data[key]) : "");
  const checked = checkSkillName(text("name"));
  if (!checked.ok) {
    fail(ctx, "name_invalid", checked.message);
    return z.NEVER;
  }
  const name = checked.name;
  const label = pyRepr(name);
  const values: Record<string, string> = {};
  for (const key of ["source", "repo", "upstream_ref", "subdir", "license", "improves"]) {
    const value = pyStrip(text(key));
    if (!value) {
      fail(ctx, "empty_field", `catalog entry ${label} requires non-empty ${pyRepr(key)}`);
      return z.NEVER;
    }
    values[key] = value;
  }
  const rule = (ok: boolean, code: string, message: string): boolean => {
    if (!ok) fail(ctx, code, message);
    return ok;
  };
  const expectedRaw = truthy(data.expected_tree_hash) ? pyStr(data.expected_tree_hash) : null;
  const archetype = text("archetype");
  const risk = text("risk");
  const ok =
    rule(
      REPO_SLUG_RE.test(values.repo!) && !values.repo!.includes(".."),
      "repo_invalid",
      `catalog entry ${label}: repo must be an owner/repo slug with alphanumeric-leading segments, got ${pyRepr(values.repo)}`,
    ) &&
    rule(
      REDISTRIBUTABLE_LICENSES.includes(values.license!.toLowerCase()),
      "license_not_allowed",
      `catalog entry ${label}: license ${pyRepr(values.license)} is not on the redistribution allowlist (${pyRepr([...REDISTRIBUTABLE_LICENSES].sort())}) — vendoring copies bytes; read the license text and widen the allowlist deliberately if it permits redistribution`,
    ) &&
    rule(
      /^[0-9a-f]{40}$/.test(values.upstream_ref!),
      "upstream_ref_invalid",
      `catalog entry ${label}: upstream_ref must be a 40-hex commit SHA (tags/branches move; got ${pyRepr(values.upstream_ref)})`,
    ) &&
    rule(
      !SUBDIR_BAD.test(values.subdir!),
      "subdir_invalid",
      `catalog entry ${label}: subdir must be a relative path without traversal, got ${pyRepr(values.subdir)}`,
    ) &&
    rule(
      ["knowledge", "procedure", "meta"].includes(archetype),
      "archetype_invalid",
      `catalog entry ${label}: archetype must be one of ['knowledge', 'meta', 'procedure']`,
    ) &&
    rule(["low", "moderate", "risky"].includes(risk), "risk_invalid", `catalog entry ${label}: risk must be one of ['low', 'moderate', 'risky']`) &&
    rule(
      expectedRaw === null || isSha256Hex(pyStrip(expectedRaw).toLowerCase()),
      "bad_hash",
      `catalog entry ${label}: expected_tree_hash must be 64-hex sha256`,
    ) &&
    rule(
      !(vendored && expectedRaw === null),
      "vendored_without_hash",
      `catalog entry ${label} claims vendored=true without expected_tree_hash (an unverifiable vendored claim is the manifest-trust hole)`,
    );
  if (!ok) return z.NEVER;
  return {
    name,
    source: values.source!,
    repo: values.repo!,
    upstream_ref: values.upstream_ref!,
    subdir: values.subdir!,
    license: values.license!,
    archetype: archetype as CatalogEntry["archetype"],
    risk: risk as CatalogEntry["risk"],
    improves: values.improves!,
    activation_description: truthy(data.activation_description) ? pyStr(data.activation_description) : null,
    expected_tree_hash: expectedRaw === null ? null : pyStrip(expectedRaw).toLowerCase(),
    vendored,
    evidence: Array.isArray(rawEvidence) ? rawEvidence.map(pyStr) : [],
    notes: truthy(data.notes) ? pyStr(data.notes) : null,
  };
}

/** zod schema for one catalog.yaml `skills` entry: the loader's coercions and messages, then the plain object it must produce. */
export const CatalogEntrySchema = z.transform(loadCatalogEntry).pipe(CatalogEntryObjectSchema);

// ---------------------------------------------------------------------------------------------
// Loading whole files.

type FileText = string | Uint8Array;

/** Aliases allowed per record file: generous for shared blocks, far below an expansion bomb. */
export const MAX_RECORD_ALIASES = 1000;
const NESTED_TOO_DEEP = `it is nested too deeply to read; keep lists and mappings within ${MAX_YAML_DEPTH} levels`;

function decode(file: string, input: FileText): { text: string } | { problem: RecordProblem } {
  if (typeof input === "string") return { text: input };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input) };
  } catch {
    return { problem: fileProblem(file, "not_utf8", `${file} is not valid UTF-8; re-save it as UTF-8`) };
  }
}

function fileProblem(file: string, code: string, message: string, line: number | null = null, column: number | null = null): RecordProblem {
  return { file, index: null, line, column, code, message };
}

/**
 * Parses one record file's list (`key: [ … ]`), validating each entry with `schema`. Nothing is
 * skipped silently: each bad entry becomes a RecordProblem with its index and line:column.
 */
export function parseRecordList<T>(
  file: string,
  input: FileText,
  key: string,
  schema: z.ZodType<T, unknown>,
  knownKeys?: readonly string[],
): RecordFileResult<T> & { data: Record<string, unknown> | null; positions: ({ line: number; column: number } | null)[] } {
  const out: RecordFileResult<T> & { data: Record<string, unknown> | null; positions: ({ line: number; column: number } | null)[] } = {
    entries: [],
    problems: [],
    warnings: [],
    data: null,
    positions: [],
  };
  const decoded = decode(file, input);
  if ("problem" in decoded) {
    out.problems.push(decoded.problem);
    return out;
  }
  // PyYAML refuses control characters anywhere in a stream; so do we, naming the line.
  const bad = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(decoded.text);
  if (bad) {
    const line = decoded.text.slice(0, bad.index).split("\n").length;
    const code = bad[0].codePointAt(0)!.toString(16).padStart(4, "0");
    out.problems.push(
      fileProblem(
        file,
        "invalid_yaml",
        `invalid YAML in ${file} at line ${line}: unacceptable character #x${code} (YAML forbids control characters); remove it or write it as an escape in a double-quoted string`,
        line,
        null,
      ),
    );
    return out;
  }
  const unreadable = (message: string) => {
    out.problems.push(fileProblem(file, "invalid_yaml", `invalid YAML in ${file}: ${message}`));
    return out;
  };
  let parsedYaml: ReturnType<typeof parsePyYaml>;
  try {
    parsedYaml = parsePyYaml(decoded.text);
  } catch (error) {
    if (error instanceof RangeError) return unreadable(NESTED_TOO_DEEP);
    throw error;
  }
  const { doc, lines } = parsedYaml;
  if (doc.errors.length) {
    let overflowed = false;
    for (const error of doc.errors) {
      // Where the parser runs out of stack, and how often, depends on how much stack its caller
      // left it, not on the text: one problem without a position says it the same on every run.
      if (isStackOverflow(error)) {
        if (!overflowed) out.problems.push(fileProblem(file, "invalid_yaml", `invalid YAML in ${file}: ${NESTED_TOO_DEEP}`));
        overflowed = true;
        continue;
      }
      const pos = lines.linePos(error.pos[0]);
      out.problems.push(
        fileProblem(file, "invalid_yaml", `invalid YAML in ${file} at line ${pos.line}, column ${pos.col}: ${error.message.split("\n")[0]}`, pos.line, pos.col),
      );
    }
    return out;
  }
  // An alias bomb, a self-referencing anchor, a lone surrogate or absurd nesting is refused
  // here, as a problem with the file: the entry loaders below recurse, and the build's JSON
  // cannot carry any of them.
  let parsedValue: unknown;
  try {
    parsedValue = doc.toJS({ maxAliasCount: MAX_RECORD_ALIASES });
  } catch (error) {
    if (error instanceof RangeError && isStackOverflow(error)) return unreadable(NESTED_TOO_DEEP);
    return unreadable(`${(error as Error).message}; refusing to expand aliases (at most ${MAX_RECORD_ALIASES})`);
  }
  const hazard = yamlValueProblem(parsedValue);
  if (hazard) return unreadable(hazard);
  const data = truthy(parsedValue) ? parsedValue : {}; // PyYAML: safe_load(...) or {}
  if (!isMapping(data)) {
    out.problems.push(fileProblem(file, "not_mapping", `${file} must be a mapping with a '${key}' list`));
    return out;
  }
  out.data = data;
  if (!present(data, key)) {
    const keys = Object.keys(data);
    if (keys.length === 0) {
      out.warnings.push(`${file} has no '${key}' key (keys: <empty file>); it contributes zero entries`);
      return out;
    }
    // A file with content but without its list key is a misspelt or swapped file: AbstractSkill
    // only warns and loads zero entries, which would silently drop every advisory. Refuse it.
    const first = (isMap(doc.contents) ? doc.contents.items[0]?.key : undefined) as Node | null | undefined;
    const pos = first?.range ? lines.linePos(first.range[0]) : null;
    out.problems.push(
      fileProblem(
        file,
        "missing_list_key",
        `${file}${pos ? `:${pos.line}:${pos.col}` : ""}: no '${key}' key (keys: ${pyRepr(keys.sort())}); the file would contribute zero entries. Name its list '${key}:'`,
        pos?.line ?? null,
        pos?.col ?? null,
      ),
    );
    return out;
  }
  const list = data[key];
  if (!Array.isArray(list)) {
    out.problems.push(fileProblem(file, "not_list", `${file}: '${key}' must be a list`));
    return out;
  }
  const root = doc.contents;
  const seqNode = isMap(root) ? (root.get(key, true) as Node | undefined) : undefined;
  list.forEach((raw, index) => {
    const itemNode = isSeq(seqNode) ? (seqNode.items[index] as Node | undefined) : undefined;
    const pos = itemNode?.range ? lines.linePos(itemNode.range[0]) : null;
    if (knownKeys && isMap(itemNode)) {
      for (const pair of itemNode.items) {
        const keyNode = pair.key as Node | null;
        const name = keyNode && typeof keyNode === "object" && "value" in keyNode ? String((keyNode as { value: unknown }).value) : String(keyNode);
        if (knownKeys.includes(name)) continue;
        const at = keyNode?.range ? lines.linePos(keyNode.range[0]) : pos;
        out.warnings.push(
          `${file}${at ? `:${at.line}:${at.col}` : ""}: ${key}[${index}]: unknown key ${pyRepr(name)} is ignored; known keys are ${knownKeys.join(", ")}`,
        );
      }
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) {
      out.entries.push(parsed.data);
      out.positions.push(pos ? { line: pos.line, column: pos.col } : null);
      return;
    }
    for (const issue of parsed.error.issues) {
      const rule = (issue as { params?: { rule?: string } }).params?.rule ?? "invalid";
      out.problems.push({
        file,
        index,
        line: pos?.line ?? null,
        column: pos?.col ?? null,
        code: rule,
        message: `${file}${pos ? `:${pos.line}:${pos.col}` : ""}: ${key}[${index}]: ${issue.message}`,
      });
    }
  });
  return out;
}

// Reports every repeat of an id at the position of the repeating entry (line and column).
function duplicates<T>(
  file: string,
  key: string,
  result: { entries: readonly T[]; positions: readonly ({ line: number; column: number } | null)[] },
  idOf: (e: T) => string | null,
  label: string,
): RecordProblem[] {
  const seen = new Map<string, { line: number; column: number } | null>();
  const problems: RecordProblem[] = [];
  result.entries.forEach((entry, i) => {
    const id = idOf(entry);
    if (!id) return;
    const pos = result.positions[i] ?? null;
    if (seen.has(id)) {
      const firstPos = seen.get(id);
      const where = pos ? `:${pos.line}:${pos.column}` : "";
      const earlier = firstPos ? ` (first at line ${firstPos.line}, column ${firstPos.column})` : "";
      problems.push(
        fileProblem(
          file,
          "duplicate_id",
          `${file}${where}: duplicate ${label} in ${key}: ${pyRepr(id)}${earlier}; give each entry its own ${label}`,
          pos?.line ?? null,
          pos?.column ?? null,
        ),
      );
    } else seen.set(id, pos);
  });
  return problems;
}

/** Parses validations.yaml text or bytes. */
export function parseValidations(input: FileText, file = "validations.yaml"): RecordFileResult<ValidationRecord> {
  const { entries, problems, warnings } = parseRecordList(file, input, "validations", ValidationRecordSchema, KNOWN_ENTRY_KEYS.validations);
  return { entries, problems, warnings };
}

/** Parses advisories.yaml text or bytes; duplicate advisory_id values are problems. */
export function parseAdvisories(input: FileText, file = "advisories.yaml"): RecordFileResult<AdvisoryEntry> {
  const result = parseRecordList(file, input, "advisories", AdvisoryEntrySchema, KNOWN_ENTRY_KEYS.advisories);
  const { entries, problems, warnings } = result;
  problems.push(...duplicates(file, "advisories", result, (a) => a.advisory_id, "advisory_id"));
  return { entries, problems, warnings };
}

/** Parses guidance.yaml text or bytes; duplicate guidance_id values are problems. */
export function parseGuidance(input: FileText, file = "guidance.yaml"): RecordFileResult<GuidanceEntry> {
  const result = parseRecordList(file, input, "guidance", GuidanceEntrySchema, KNOWN_ENTRY_KEYS.guidance);
  const { entries, problems, warnings } = result;
  problems.push(...duplicates(file, "guidance", result, (g) => g.guidance_id, "guidance_id"));
  return { entries, problems, warnings };
}

/** Parses catalog.yaml: its `skills` entries (required) and its bundle `version` (optional here). */
export function parseCatalog(input: FileText, file = "catalog.yaml"): RecordFileResult<CatalogEntry> & { version: string | null } {
  const result = parseRecordList(file, input, "skills", CatalogEntrySchema, KNOWN_ENTRY_KEYS.skills);
  const { entries, problems, warnings, data } = result;
  if (data && !present(data, "skills") && Object.keys(data).length === 0) {
    // Unlike the trust files, even an empty catalog is refused (AbstractSkill does too).
    warnings.length = 0;
    problems.push(fileProblem(file, "not_mapping", `${file} must be a mapping with a 'skills' list`));
  }
  problems.push(...duplicates(file, "skills", result, (e) => e.name, "name"));
  let version: string | null = null;
  if (data && present(data, "version")) {
    const v = data.version;
    if (typeof v === "string" && BUNDLE_VERSION_RE.test(pyStrip(v))) version = pyStrip(v);
    else problems.push(fileProblem(file, "version_invalid", `${file} must declare a dotted-numeric string 'version' (e.g. "2026.09.25"), got ${pyRepr(v)}`));
  }
  return { entries, problems, warnings, version };
}

/** The raw bytes or text of a shelf's record files; an absent file is undefined. */
export interface ShelfRecordFiles {
  validations?: FileText;
  advisories?: FileText;
  guidance?: FileText;
  catalog?: FileText;
}

/** The outcome of loading a shelf's records: usable only when `problems` is empty. */
export interface ShelfRecordsResult {
  records: ShelfRecords;
  problems: RecordProblem[];
  warnings: string[];
}

/**
 * Loads every record file of a shelf. A missing file contributes nothing (with a warning);
 * every malformed entry of every file is reported, and callers must refuse the shelf when
 * `problems` is non-empty (see assertRecordsValid).
 */
export function loadShelfRecords(files: ShelfRecordFiles): ShelfRecordsResult {
  const problems: RecordProblem[] = [];
  const warnings: string[] = [];
  const take = <T>(name: string, input: FileText | undefined, parse: (i: FileText) => RecordFileResult<T>): T[] => {
    if (input === undefined) {
      warnings.push(`no ${name} on this shelf; it contributes zero entries`);
      return [];
    }
    const r = parse(input);
    problems.push(...r.problems);
    warnings.push(...r.warnings);
    return r.entries;
  };
  const validations = take("validations.yaml", files.validations, (i) => parseValidations(i));
  const advisories = take("advisories.yaml", files.advisories, (i) => parseAdvisories(i));
  const guidance = take("guidance.yaml", files.guidance, (i) => parseGuidance(i));
  let catalog: ShelfRecords["catalog"] = null;
  if (files.catalog !== undefined) {
    const r = parseCatalog(files.catalog);
    problems.push(...r.problems);
    warnings.push(...r.warnings);
    catalog = { version: r.version, skills: r.entries };
  }
  return { records: { validations, advisories, guidance, catalog }, problems, warnings };
}

/** Thrown when a shelf's records are malformed; `problems` lists every one. */
export class TrustRecordsError extends Error {
  readonly problems: readonly RecordProblem[];
  constructor(problems: readonly RecordProblem[]) {
    super(`${problems.length} malformed trust record(s); fix them and retry:\n${problems.map((p) => `  ${p.message}`).join("\n")}`);
    this.name = "TrustRecordsError";
    this.problems = problems;
  }
}

/** Returns the records, or throws TrustRecordsError listing every problem (fail closed). */
export function assertRecordsValid(result: ShelfRecordsResult): ShelfRecords {
  if (result.problems.length) throw new TrustRecordsError(result.problems);
  return result.records;
}
