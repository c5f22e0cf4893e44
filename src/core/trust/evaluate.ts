// The fail-closed trust verdict for one skill tree (AbstractSkill evaluate_trust): advisories
// win, a validation bound to the tree hash sets the level, everything else needs review.
// Pure and synchronous so the Worker can re-evaluate per request against the advisories in force.
import { pyStrip } from "../python-compat/py-text.ts";
import { levelRank, type AdvisoryEntry, type TrustLevel, type TrustRecords, type ValidationRecord } from "./records.ts";

/** What is being judged: plain data a build can compute once and store. */
export interface TrustQuery {
  /** The skill's tree hash (hex, any case); null or "" means trust cannot bind to bytes. */
  tree_hash: string | null;
  name?: string | null;
  /** Provenance label, matched exactly (after stripping) against advisory sources. */
  source?: string | null;
  /** Structural fact from the inventory: bundled scripts always need review. */
  has_scripts?: boolean;
}

/** The explainable outcome. Gate on `attachable`; a blocked verdict has requires_review false. */
export interface TrustVerdict {
  level: TrustLevel;
  blocked: boolean;
  requires_review: boolean;
  /** = !blocked && !requires_review: the only safe single read for "may attach". */
  attachable: boolean;
  /** = blocked. */
  do_not_use: boolean;
  reasons: string[];
  /** Every active advisory that matched (blocking or not). */
  advisories: AdvisoryEntry[];
  /** The validation record the level rests on, or null. */
  validation: ValidationRecord | null;
  warnings: string[];
}

export type MatchStrength = "hash" | "name";

/** How an advisory matches a query: by tree hash, by name and source, or not at all. */
function advisoryMatch(a: AdvisoryEntry, treeHash: string | null, name: string | null, source: string | null): MatchStrength | null {
  if (a.tree_hash && treeHash && a.tree_hash === pyStrip(treeHash).toLowerCase()) return "hash";
  if (name !== null && a.name === pyStrip(name).toLowerCase() && source !== null && a.source === pyStrip(source)) return "name";
  return null;
}

/** Every validation record bound to `treeHash`, in registry order. */
export function validationsFor(records: TrustRecords, treeHash: string): ValidationRecord[] {
  const wanted = pyStrip(treeHash).toLowerCase();
  return records.validations.filter((r) => r.tree_hash === wanted);
}

/** The highest-ranked record; on a tie the first in registry order (Python max()). */
export function strongest<T extends { level: TrustLevel }>(records: readonly T[]): T | null {
  let best: T | null = null;
  for (const r of records) if (best === null || levelRank(r.level) > levelRank(best.level)) best = r;
  return best;
}

const blocks = (a: AdvisoryEntry) => a.severity === "critical" || a.severity === "high";

/**
 * Computes the verdict for one skill tree.
 * @example evaluateTrust(records, { tree_hash, name: "adr", source: "first-party", has_scripts: false }).attachable
 */
export function evaluateTrust(records: TrustRecords, query: TrustQuery): TrustVerdict {
  // Normalise once so the advisory match and the validation lookup see the same hash.
  const treeHash = query.tree_hash === null || query.tree_hash === undefined ? null : pyStrip(query.tree_hash).toLowerCase();
  const name = query.name === null || query.name === undefined ? null : pyStrip(query.name).toLowerCase();
  const source = query.source === null || query.source === undefined ? null : pyStrip(query.source);

  const hits: { advisory: AdvisoryEntry; strength: MatchStrength }[] = [];
  for (const advisory of records.advisories) {
    if (advisory.status !== "active") continue;
    const strength = advisoryMatch(advisory, treeHash, name, source);
    if (strength) hits.push({ advisory, strength });
  }
  const matched = hits.map((h) => h.advisory);
  const reasons: string[] = [];
  const warnings: string[] = [];
  const nameOnlyWarning = (a: AdvisoryEntry) => `advisory matched by name/source only (hash unverified) — ${a.hidden_issue}`;

  const blocking = hits.filter((h) => blocks(h.advisory) || h.strength === "hash");
  if (blocking.length) {
    for (const { advisory, strength } of blocking) {
      reasons.push(`blocked: ${advisory.severity} advisory (${strength === "hash" ? "hash match" : "name/source match"}) — ${advisory.hidden_issue}`);
      if (strength === "name") warnings.push(nameOnlyWarning(advisory));
    }
    return {
      level: "blocked",
      blocked: true,
      requires_review: false,
      attachable: false,
      do_not_use: true,
      reasons,
      advisories: matched,
      validation: null,
      warnings,
    };
  }

  const validation = treeHash ? strongest(validationsFor(records, treeHash)) : null;
  let level: TrustLevel;
  let requiresReview = false;
  if (validation) {
    level = validation.level;
    reasons.push(`${level} via ${validation.method} by ${validation.validated_by} (${validation.validated_at})`);
  } else {
    level = "unverified";
    requiresReview = true;
    if (!treeHash) warnings.push("no tree_hash supplied; trust cannot bind to bytes");
    reasons.push("unverified: no validation record for this tree hash — review before use");
  }
  for (const { advisory, strength } of hits) {
    requiresReview = true;
    reasons.push(`review: ${advisory.severity} advisory — ${advisory.hidden_issue}`);
    if (strength === "name") warnings.push(nameOnlyWarning(advisory));
  }
  if (query.has_scripts) {
    requiresReview = true;
    reasons.push("review: skill bundles scripts (requires enablement; elevated vulnerability rate)");
  }
  return {
    level,
    blocked: false,
    requires_review: requiresReview,
    attachable: !requiresReview,
    do_not_use: false,
    reasons,
    advisories: matched,
    validation,
    warnings,
  };
}

/** A provenance candidate derived from validation records ("hash" binds these bytes; "name" a prior tree). */
export interface DerivedSource {
  source: string;
  binding: MatchStrength;
  ambiguous: boolean;
}

/**
 * All registry-derived sources for a skill, strongest first: records bound to this tree hash
 * (those naming this skill first, then by level), else records with the same name (by level).
 */
export function sourceCandidates(records: TrustRecords, name: string, treeHash: string | null): DerivedSource[] {
  const wanted = pyStrip(name).toLowerCase();
  const hashBound = treeHash ? validationsFor(records, treeHash) : [];
  let ranked: ValidationRecord[];
  let binding: MatchStrength;
  // Stable sorts, descending, as Python's sorted(reverse=True) keeps equal keys in order.
  if (hashBound.length) {
    ranked = stableSortDesc(hashBound, (r) => [r.name === wanted ? 1 : 0, levelRank(r.level)]);
    binding = "hash";
  } else {
    ranked = stableSortDesc(
      records.validations.filter((r) => r.name === wanted),
      (r) => [levelRank(r.level)],
    );
    binding = "name";
  }
  const sources = [...new Set(ranked.map((r) => r.source))];
  return sources.map((source) => ({ source, binding, ambiguous: sources.length > 1 }));
}

function stableSortDesc<T>(items: readonly T[], keyOf: (t: T) => number[]): T[] {
  return items
    .map((item, i) => ({ item, i, key: keyOf(item) }))
    .sort((a, b) => {
      for (let k = 0; k < a.key.length; k++) if (a.key[k] !== b.key[k]) return b.key[k]! - a.key[k]!;
      return a.i - b.i;
    })
    .map((x) => x.item);
}

/** The more restrictive verdict (blocked > requires_review > attachable); ties keep `a`. */
export function worseVerdict(a: TrustVerdict, b: TrustVerdict): TrustVerdict {
  if (a.blocked) return a;
  if (b.blocked) return b;
  if (a.requires_review || !b.requires_review) return a;
  return b;
}
