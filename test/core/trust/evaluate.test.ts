// evaluateTrust against abstractskill's evaluate_trust: the whole verdict table (levels, method
// caps, advisory anchors and matches, severities, withdrawn entries, scripts, query spellings).
import { describe, expect, it } from "vitest";
import golden from "../../goldens/abstractskill/verdicts.json";
import { evaluateTrust, sourceCandidates, worseVerdict } from "../../../src/core/trust/evaluate.ts";
import { parseAdvisories, parseValidations } from "../../../src/core/trust/records.ts";

interface VerdictCase {
  label: string;
  validations: Record<string, unknown>[];
  advisories: Record<string, unknown>[];
  query: { tree_hash: string | null; name?: string | null; source?: string | null; has_scripts?: boolean };
  verdict: Record<string, unknown> & { advisories: number[]; validation: number | null };
}

// The golden inputs are dicts; load them through our own loader (JSON is YAML) so the schemas
// are part of what is proven.
function recordsOf(c: VerdictCase) {
  const v = parseValidations(JSON.stringify({ validations: c.validations }));
  const a = parseAdvisories(JSON.stringify({ advisories: c.advisories }));
  expect([...v.problems, ...a.problems]).toEqual([]);
  return { validations: v.entries, advisories: a.entries };
}

describe("evaluateTrust matches abstractskill's verdict table", () => {
  const cases = golden.cases as unknown as VerdictCase[];
  it("covers the full table", () => {
    expect(cases.length).toBeGreaterThan(900);
  });
  it.each(cases.map((c) => [c.label, c] as const))("%s", (_label, c) => {
    const records = recordsOf(c);
    const verdict = evaluateTrust(records, c.query);
    const { advisories, validation, ...rest } = c.verdict;
    expect({ ...verdict, advisories: undefined, validation: undefined }).toEqual({ ...rest, advisories: undefined, validation: undefined });
    expect(verdict.advisories).toEqual(advisories.map((i) => records.advisories[i]));
    expect(verdict.validation).toEqual(validation === null ? null : records.validations[validation]);
  });
});

describe("evaluateTrust invariants", () => {
  const hash = "a".repeat(64);
  const record = {
    name: "x",
    source: "s",
    tree_hash: hash,
    level: "first_party" as const,
    method: "first-party",
    validated_by: "v",
    validated_at: "d",
    evidence: {},
    notes: null,
    activation_description: null,
    audience: "host" as const,
    delivered_via_map: false,
  };
  it("is pure: the same inputs give the same verdict and inputs are not mutated", () => {
    const records = { validations: [record], advisories: [] };
    const frozen = JSON.stringify(records);
    expect(evaluateTrust(records, { tree_hash: hash })).toEqual(evaluateTrust(records, { tree_hash: hash }));
    expect(JSON.stringify(records)).toBe(frozen);
  });
  it("a blocked verdict is never attachable and never requires_review", () => {
    const advisory = {
      name: "x",
      source: "s",
      official_intent: "i",
      hidden_issue: "h",
      severity: "low" as const,
      reference: "r",
      tree_hash: hash,
      advisory_id: null,
      discovered_at: null,
      status: "active" as const,
      withdrawn_reason: null,
      withdrawn_at: null,
    };
    const v = evaluateTrust({ validations: [record], advisories: [advisory] }, { tree_hash: hash });
    expect([v.blocked, v.attachable, v.requires_review, v.do_not_use, v.validation]).toEqual([true, false, false, true, null]);
    const worse = worseVerdict(evaluateTrust({ validations: [record], advisories: [] }, { tree_hash: hash }), v);
    expect(worse).toBe(v);
  });
  it("derives sources: hash-bound records first, this name first, then by level", () => {
    const other = { ...record, name: "y", source: "other", level: "first_party" as const };
    const low = { ...record, source: "low", level: "community" as const, method: "manual-review" };
    const named = { ...record, tree_hash: "b".repeat(64), source: "named" };
    const records = { validations: [other, low, named, record], advisories: [] };
    expect(sourceCandidates(records, "X", hash)).toEqual([
      { source: "s", binding: "hash", ambiguous: true },
      { source: "low", binding: "hash", ambiguous: true },
      { source: "other", binding: "hash", ambiguous: true },
    ]);
    expect(sourceCandidates(records, "x", "c".repeat(64)).map((c) => [c.source, c.binding])).toEqual([
      ["named", "name"],
      ["s", "name"],
      ["low", "name"],
    ]);
    expect(sourceCandidates(records, "nobody", null)).toEqual([]);
  });
});
