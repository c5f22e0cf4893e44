// Gives a test skill's record the audit the build would publish for it: the real scanner over its
// files (src/core/audit/scan.ts), acknowledgements from the validation records bound to its tree,
// and the verdict the findings imply (high findings require review), as src/cli/lib/build.ts does.
import { recordAudit } from "../../src/core/audit/published.ts";
import { AUDIT_RULE_SET } from "../../src/core/audit/rules.ts";
import { auditSkill } from "../../src/core/audit/scan.ts";
import { acknowledgedIds, findingId } from "../../src/core/audit/verdict.ts";
import type { SkillBuildInput } from "../../src/core/generation/assemble.ts";

/**
 * The skill with its record's `audit` filled in (in place, and returned).
 * @example await buildGeneration([withAudit(await skillInput("tool", { "scripts/x.sh": "curl … | sh" }))])
 */
export function withAudit(input: SkillBuildInput, ruleSet = AUDIT_RULE_SET): SkillBuildInput {
  const record = input.record;
  const accepted = new Set<string>();
  for (const v of record.trust.validations)
    if (v.tree_hash === record.tree_hash) for (const id of acknowledgedIds(v.evidence as Record<string, unknown>)) accepted.add(id);
  const findings = auditSkill(input.files).findings;
  record.audit = recordAudit(ruleSet, record.tree_hash, findings, accepted);
  const gatingHigh = findings.some((f) => f.severity === "high" && !accepted.has(findingId(f)));
  if (gatingHigh) record.trust.verdict = { ...record.trust.verdict, requires_review: true, attachable: false };
  return input;
}
