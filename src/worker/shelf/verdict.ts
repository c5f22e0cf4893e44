// Trust at the edge: the build refuses blocked skills, but advisories can be published later
// (and outlive rollbacks), so every request re-checks each skill against the advisories in force
// with the core's evaluateTrust, keyed by the tree hash the build computed. Only advisories can
// change a verdict after a build, so the build's validations are not needed here.
import type { SkillEntry } from "../../core/generation/manifest.ts";
import { evaluateTrust } from "../../core/trust/evaluate.ts";
import type { AdvisoryEntry } from "../../core/trust/records.ts";

/** The advisory that blocks a skill, as shown in a 410 body and in /v1/shelf. */
export interface BlockingAdvisory {
  advisory_id: string | null;
  name: string;
  source: string;
  severity: string;
  hidden_issue: string;
  reference: string | null;
  tree_hash: string | null;
}

/** The edge verdict for one skill: blocked (with the advisory) or served, maybe needing review. */
export interface EdgeVerdict {
  blocked: BlockingAdvisory | null;
  /** The build said so, or an advisory in force now matches without blocking. */
  requiresReview: boolean;
}

/**
 * The edge verdict: evaluateTrust over the advisories in force, with the entry's tree hash,
 * name and provenance source.
 * @example edgeVerdict(generation.advisories, entry).blocked?.advisory_id
 */
export function edgeVerdict(advisories: readonly AdvisoryEntry[], entry: SkillEntry): EdgeVerdict {
  if (advisories.length === 0) {
    return { blocked: null, requiresReview: entry.trust.requires_review };
  }
  const verdict = evaluateTrust(
    { validations: [], advisories },
    { tree_hash: entry.tree_hash, name: entry.name, source: entry.trust.source, has_scripts: entry.has_scripts },
  );
  if (verdict.blocked) {
    const a =
      verdict.advisories.find((x) => x.severity === "critical" || x.severity === "high" || (x.tree_hash !== null && x.tree_hash === entry.tree_hash)) ??
      verdict.advisories[0]!;
    return {
      blocked: {
        advisory_id: a.advisory_id,
        name: a.name,
        source: a.source,
        severity: a.severity,
        hidden_issue: a.hidden_issue,
        reference: a.reference || null,
        tree_hash: a.tree_hash,
      },
      requiresReview: false,
    };
  }
  return { blocked: null, requiresReview: entry.trust.requires_review || verdict.advisories.length > 0 };
}

/**
 * An entry as served under a verdict: the stored entry itself, or, when an advisory in force
 * flips `requires_review`, one kept copy with the edge's flag.
 */
export function servedAs(entry: SkillEntry, requiresReview: boolean): SkillEntry {
  if (entry.trust.requires_review === requiresReview) return entry;
  // The only other verdict there is: one copy per entry, kept while the entry is, so a skill an
  // advisory sends to review is the same object on every request (MCP keeps its built entries by it).
  let copy = reviewCopies.get(entry);
  if (copy === undefined) {
    copy = { ...entry, trust: { ...entry.trust, requires_review: requiresReview } };
    reviewCopies.set(entry, copy);
  }
  return copy;
}

/**
 * The served skills of a list of stored entries (a generation's sorted listing, storage's
 * sortedEntries, or a parsed shard's entries: the isolate's own arrays) under the advisories in
 * force they were judged against (the same array object while the isolate's copy of the
 * advisories is unchanged): a warm listing judges nothing again.
 */
const servedListings = new WeakMap<readonly SkillEntry[], { advisories: readonly AdvisoryEntry[]; served: SkillEntry[] }>();

/**
 * The servable skills of a list of stored entries (the sorted listing, or one shard's) under the
 * advisories in force: blocked ones absent, `requires_review` the edge verdict. Kept per list.
 */
export function servedOf(entries: readonly SkillEntry[], advisories: readonly AdvisoryEntry[]): SkillEntry[] {
  let kept = servedListings.get(entries);
  if (kept === undefined || kept.advisories !== advisories) {
    const served = entries.flatMap((entry) => {
      const verdict = edgeVerdict(advisories, entry);
      return verdict.blocked ? [] : [servedAs(entry, verdict.requiresReview)];
    });
    kept = { advisories, served };
    servedListings.set(entries, kept);
  }
  return kept.served;
}

/** Entries as served when an advisory in force flips `requires_review`, by the stored entry (never changed after it is read). */
const reviewCopies = new WeakMap<SkillEntry, SkillEntry>();
