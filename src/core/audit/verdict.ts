// What audit findings do to a trust verdict: an unacknowledged critical finding blocks, an
// unacknowledged high one requires review, lower ones are shown only. A finding is acknowledged by
// id (`rule@file:line`) in the evidence of the validation record bound to the same tree hash, so
// any byte change (a new tree hash) drops every acknowledgement with the record.
import type { TrustVerdict } from "../trust/evaluate.ts";
import { isRuleId, SEVERITIES, severityRank, type Severity } from "./rules.ts";
import type { Finding } from "./scan.ts";

/** The key under a validation record's `evidence` map that lists acknowledged finding ids. */
export const ACCEPTED_EVIDENCE_KEY = "audit_accepted";

/** A finding's id, as `attest --accept` takes it: `rule@file:line`. */
export function findingId(f: Pick<Finding, "rule" | "file" | "line">): string {
  return `${f.rule}@${f.file}:${f.line}`;
}

const ID_RE = /^([a-z-]+\.[a-z0-9-]+)@(.+):([1-9][0-9]*)$/;

/**
 * Checks an acknowledgement as a person typed it; returns the problem, or null when it is well formed.
 * @example acknowledgementProblem("remote.pipe-to-shell@scripts/setup.sh:3") // null
 */
export function acknowledgementProblem(id: string): string | null {
  const m = ID_RE.exec(id);
  if (!m) return `'${id}' is not a finding id; write <rule>@<file>:<line>, as \`skillshelf audit\` prints it`;
  if (!isRuleId(m[1]!)) return `'${id}' names no audit rule '${m[1]}'; copy the id from \`skillshelf audit\``;
  return null;
}

/** The acknowledged finding ids in a record's evidence (anything malformed is ignored, never trusted). */
export function acknowledgedIds(evidence: Record<string, unknown> | null | undefined): Set<string> {
  const raw = evidence?.[ACCEPTED_EVIDENCE_KEY];
  if (!Array.isArray(raw)) return new Set();
  return new Set(raw.filter((x): x is string => typeof x === "string" && acknowledgementProblem(x) === null));
}

export interface AuditCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  info: number;
}

/** The audit facts served beside a verdict: counts, the worst severity, what is acknowledged. */
export interface AuditSummary {
  rule_set: string;
  counts: AuditCounts;
  /** The most severe unacknowledged finding's severity, or null. */
  worst: Severity | null;
  /** Acknowledged finding ids that match a current finding. */
  acknowledged: string[];
  /** Unacknowledged critical findings: the skill is blocked. */
  blocking: number;
  /** Unacknowledged high findings: the skill requires review. */
  review: number;
}

/**
 * Counts findings and splits the gating ones by acknowledgement.
 * @example summarizeAudit("skillshelf-audit/…", findings, new Set()).blocking
 */
export function summarizeAudit(ruleSet: string, findings: readonly Finding[], acknowledged: ReadonlySet<string>): AuditSummary {
  const counts: AuditCounts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  const matched: string[] = [];
  let worst: Severity | null = null;
  let blocking = 0;
  let review = 0;
  for (const f of findings) {
    counts[f.severity]++;
    const id = findingId(f);
    if (acknowledged.has(id)) {
      matched.push(id);
      continue;
    }
    if (worst === null || severityRank(f.severity) > severityRank(worst)) worst = f.severity;
    if (f.severity === "critical") blocking++;
    else if (f.severity === "high") review++;
  }
  return { rule_set: ruleSet, counts, worst, acknowledged: [...new Set(matched)].sort(), blocking, review };
}

/** Findings at or above `min` that are not acknowledged. */
export function unacknowledgedAtLeast(findings: readonly Finding[], acknowledged: ReadonlySet<string>, min: Severity): Finding[] {
  return findings.filter((f) => severityRank(f.severity) >= severityRank(min) && !acknowledged.has(findingId(f)));
}

/**
 * The verdict with the audit applied, fail-closed: unacknowledged critical findings block, high
 * ones require review. With no gating finding the verdict is returned as it was (the same object),
 * so shelves without findings answer byte for byte as before.
 */
export function applyAudit(verdict: TrustVerdict, findings: readonly Finding[]): TrustVerdict {
  if (verdict.blocked) return verdict;
  const acknowledged = acknowledgedIds(verdict.validation?.evidence);
  const critical = unacknowledgedAtLeast(findings, acknowledged, "critical");
  const high = unacknowledgedAtLeast(findings, acknowledged, "high").filter((f) => f.severity === "high");
  if (critical.length === 0 && high.length === 0) return verdict;
  const describe = (f: Finding) => `${f.rule} at ${f.file}:${f.line}`;
  const list = (fs: Finding[]) => fs.slice(0, 3).map(describe).join(", ") + (fs.length > 3 ? `, and ${fs.length - 3} more` : "");
  if (critical.length > 0) {
    return {
      ...verdict,
      level: "blocked",
      blocked: true,
      requires_review: false,
      attachable: false,
      do_not_use: true,
      reasons: [
        `blocked: ${critical.length} critical audit finding(s) not acknowledged — ${list(critical)}; read them, then \`skillshelf attest … --accept <rule>@<file>:<line>\``,
        ...verdict.reasons,
      ],
    };
  }
  return {
    ...verdict,
    requires_review: true,
    attachable: false,
    reasons: [...verdict.reasons, `review: ${high.length} high audit finding(s) — ${list(high)}`],
  };
}

/** Parses `--min-severity`; null when the word is not a severity. */
export function parseSeverity(word: string): Severity | null {
  return (SEVERITIES as readonly string[]).includes(word) ? (word as Severity) : null;
}
