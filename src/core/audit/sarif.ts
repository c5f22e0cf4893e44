// Audit findings as SARIF 2.1.0 (the format GitHub code scanning reads): one run, the rule table as
// the driver's rules, one result per finding; acknowledged findings carry an external suppression.
import { AUDIT_RULE_SET, AUDIT_RULES, type Severity } from "./rules.ts";
import type { Finding } from "./scan.ts";
import { findingId } from "./verdict.ts";

export interface SarifSkill {
  name: string;
  tree_hash: string | null;
  /** The skill folder relative to where the report is read (POSIX), "" for the current folder. */
  uriBase: string;
  findings: readonly Finding[];
  acknowledged: ReadonlySet<string>;
}

const LEVEL: Record<Severity, "error" | "warning" | "note"> = { critical: "error", high: "error", medium: "warning", low: "note", info: "note" };
/** GitHub's security-severity score (0–10) by severity: its critical band starts at 9.0, high at 7.0. */
const SECURITY_SEVERITY: Record<Severity, string> = { critical: "9.5", high: "8.0", medium: "5.5", low: "3.0", info: "0.0" };

const joinUri = (base: string, file: string) => (base ? `${base.replace(/\/+$/, "")}/${file}` : file);

/**
 * The SARIF log for audited skills.
 * @example JSON.stringify(toSarif([{ name: "x", tree_hash: null, uriBase: "skills/x", findings, acknowledged: new Set() }]))
 */
export function toSarif(skills: readonly SarifSkill[], toolVersion: string): Record<string, unknown> {
  const ruleIndex = new Map(AUDIT_RULES.map((r, i) => [r.id, i]));
  const results = skills.flatMap((s) =>
    s.findings.map((f) => {
      const id = findingId(f);
      const result: Record<string, unknown> = {
        ruleId: f.rule,
        ruleIndex: ruleIndex.get(f.rule),
        level: LEVEL[f.severity],
        message: { text: `${s.name}: ${f.message}` },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: joinUri(s.uriBase, f.file) },
              region: { startLine: f.line, startColumn: f.column, ...(f.excerpt ? { snippet: { text: f.excerpt } } : {}) },
            },
          },
        ],
        partialFingerprints: { "skillshelfFinding/v1": `${s.name}/${id}` },
        properties: { severity: f.severity, skill: s.name, tree_hash: s.tree_hash, finding_id: id, "security-severity": SECURITY_SEVERITY[f.severity] },
      };
      if (s.acknowledged.has(id))
        result.suppressions = [{ kind: "external", justification: "acknowledged in the skill's validation record (attest --accept)" }];
      return result;
    }),
  );
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "skillshelf-audit",
            version: toolVersion,
            rules: AUDIT_RULES.map((r) => ({
              id: r.id,
              name: r.title
                .replace(/[^A-Za-z0-9]+/g, " ")
                .trim()
                .replace(/ (\w)/g, (_, c: string) => c.toUpperCase()),
              shortDescription: { text: r.title },
              fullDescription: { text: r.help },
              help: { text: r.help },
              defaultConfiguration: { level: LEVEL[r.severity] },
              properties: { family: r.family, severity: r.severity, "security-severity": SECURITY_SEVERITY[r.severity], tags: ["security", r.family] },
            })),
          },
        },
        columnKind: "utf16CodeUnits",
        properties: { rule_set: AUDIT_RULE_SET },
        results,
      },
    ],
  };
}
