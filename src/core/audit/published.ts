// The audit as a generation publishes it: the record's `audit` (every finding for its tree hash
// at one rule set, plus what is acknowledged), the shard entry's summary derived from it, and the
// consistency checks the Worker runs on upload instead of rescanning (which would read every blob).
import type { EntryAudit, RecordAudit, SkillRecord } from "../generation/manifest.ts";
import type { Severity } from "./rules.ts";
import type { Finding } from "./scan.ts";
import { acknowledgedIds, findingId, summarizeAudit } from "./verdict.ts";

/** A finding as records, `--json` and the API publish it: its fields, nothing the scanner keeps besides. */
export function findingFields(f: Finding): RecordAudit["findings"][number] {
  return { rule: f.rule, severity: f.severity, file: f.file, line: f.line, column: f.column, message: f.message, excerpt: f.excerpt };
}

/**
 * A record's audit: the findings as scanned, and the acknowledged ids that match one of them.
 * @example recordAudit(AUDIT_RULE_SET, record.tree_hash, findings, acknowledgedIds(validation.evidence))
 */
export function recordAudit(ruleSet: string, treeHash: string, findings: readonly Finding[], acknowledged: ReadonlySet<string>): RecordAudit {
  return {
    rule_set: ruleSet,
    tree_hash: treeHash,
    findings: findings.map(findingFields),
    acknowledged: summarizeAudit(ruleSet, findings, acknowledged).acknowledged,
  };
}

/** The findings no acknowledgement covers, at critical and high (the ones that gate a verdict). */
export function gatingFindings(audit: RecordAudit): { critical: Finding[]; high: Finding[] } {
  const acknowledged = new Set(audit.acknowledged);
  const open = audit.findings.filter((f) => !acknowledged.has(findingId(f)));
  return { critical: open.filter((f) => f.severity === "critical"), high: open.filter((f) => f.severity === "high") };
}

/**
 * The shard entry's summary of a record's audit: counts per severity (absent when zero), the
 * gating findings no one acknowledged, and how many are acknowledged. A clean skill's summary is
 * `{ rule_set, counts: {} }`.
 * @example entryAudit(record.audit).unacknowledged?.high // findings that make it require review
 */
export function entryAudit(audit: RecordAudit): EntryAudit {
  const counts: EntryAudit["counts"] = {};
  for (const f of audit.findings) counts[f.severity] = (counts[f.severity] ?? 0) + 1;
  const gating = gatingFindings(audit);
  const unacknowledged: NonNullable<EntryAudit["unacknowledged"]> = {};
  if (gating.critical.length) unacknowledged.critical = gating.critical.length;
  if (gating.high.length) unacknowledged.high = gating.high.length;
  // Counted by finding, not by id: two findings on one line share an id and one acknowledgement.
  const acknowledgedIds = new Set(audit.acknowledged);
  const acknowledged = audit.findings.filter((f) => acknowledgedIds.has(findingId(f))).length;
  return {
    rule_set: audit.rule_set,
    counts: sortedCounts(counts),
    ...(Object.keys(unacknowledged).length ? { unacknowledged } : {}),
    ...(acknowledged ? { acknowledged } : {}),
  };
}

const ORDER: readonly Severity[] = ["critical", "high", "medium", "low", "info"];
function sortedCounts(counts: EntryAudit["counts"]): EntryAudit["counts"] {
  const out: EntryAudit["counts"] = {};
  for (const s of ORDER) if (counts[s]) out[s] = counts[s];
  return out;
}

/** True when a summary has any finding (listings show it then, and stay as they were otherwise). */
export function hasFindings(summary: EntryAudit | undefined): summary is EntryAudit {
  return summary !== undefined && Object.keys(summary.counts).length > 0;
}

const bare = (hash: unknown) => (typeof hash === "string" ? hash.trim().toLowerCase() : null);

/**
 * Why a record's audit cannot be what the build wrote for it, checked without its files: the
 * audit is for another tree hash; an acknowledged id is no finding of it, or is in no
 * validation record bound to this tree; the findings would block the skill (the build refuses
 * those) or require review its verdict does not say. Empty when consistent.
 * @example recordAuditProblems(record) // ["audit.tree_hash is …, the record's tree_hash is …"]
 */
export function recordAuditProblems(record: Pick<SkillRecord, "tree_hash" | "trust" | "audit">): string[] {
  const audit = record.audit;
  if (!audit) return [];
  const problems: string[] = [];
  if (audit.tree_hash !== record.tree_hash)
    problems.push(`audit.tree_hash is ${audit.tree_hash}, the record's tree_hash is ${record.tree_hash}: the findings are for another tree`);
  const ids = new Set(audit.findings.map(findingId));
  const evidence = new Set<string>();
  for (const v of record.trust.validations) {
    if (bare(v.tree_hash) !== record.tree_hash) continue;
    for (const id of acknowledgedIds(v.evidence as Record<string, unknown> | undefined)) evidence.add(id);
  }
  const sorted = [...new Set(audit.acknowledged)].sort();
  if (sorted.length !== audit.acknowledged.length || sorted.some((id, i) => id !== audit.acknowledged[i]))
    problems.push("audit.acknowledged is not sorted and unique");
  for (const id of audit.acknowledged) {
    if (!ids.has(id)) problems.push(`audit.acknowledged names ${id}, which is no finding of this record`);
    else if (!evidence.has(id)) problems.push(`audit.acknowledged names ${id}, which no validation record bound to this tree hash accepts`);
  }
  const gating = gatingFindings(audit);
  if (gating.critical.length) {
    problems.push(`${gating.critical.length} critical finding(s) are not acknowledged (${findingId(gating.critical[0]!)}…): the build refuses such a skill`);
  } else if (gating.high.length && (!record.trust.verdict.requires_review || record.trust.verdict.attachable)) {
    problems.push(`${gating.high.length} high finding(s) are not acknowledged (${findingId(gating.high[0]!)}…), but the verdict does not require review`);
  }
  return problems;
}

/** One finding as the API and the pages show it: its id (what `attest --accept` takes) and whether it is acknowledged. */
export interface ServedFinding extends Finding {
  id: string;
  acknowledged: boolean;
}

/**
 * A record's audit as /v1/skills/{name} serves it: the summary, then every finding with its id,
 * most severe first (file and line order within a severity).
 * @example servedAudit(record.audit).findings[0]?.id // "remote.pipe-to-shell@scripts/setup.sh:2"
 */
export function servedAudit(audit: RecordAudit): {
  rule_set: string;
  tree_hash: string;
  summary: EntryAudit;
  findings: ServedFinding[];
  acknowledged: string[];
} {
  const acknowledged = new Set(audit.acknowledged);
  const rank = (s: Severity) => ORDER.indexOf(s);
  const findings = audit.findings
    .map((f) => ({ id: findingId(f), ...f, acknowledged: acknowledged.has(findingId(f)) }))
    .sort((a, b) => rank(a.severity) - rank(b.severity) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column);
  return { rule_set: audit.rule_set, tree_hash: audit.tree_hash, summary: entryAudit(audit), findings, acknowledged: audit.acknowledged };
}
