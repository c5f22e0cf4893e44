// Trust verdicts with reasons at the edge: core's evaluateTrust over a skill's stored validation
// records and the advisories in force now. A record stores its validations in their to_dict form
// (optional fields left out), so they are loaded back into core's ValidationRecord shape first.
// The verdict agrees with the edge verdict every other view applies (verdict.ts): blocked skills
// never get here, and a skill the edge holds for review is never reported attachable.
import type { ShelfTrustView, SkillTrustView } from "../../core/api/trust.ts";
import type { SkillRecord } from "../../core/generation/manifest.ts";
import { hasFindings } from "../../core/audit/published.ts";
import { evaluateTrust, type TrustVerdict } from "../../core/trust/evaluate.ts";
import { ValidationRecordSchema, type AdvisoryEntry, type ValidationRecord } from "../../core/trust/records.ts";
import type { ServedSkill, ShelfService } from "./service.ts";

/** How many records /v1/trust reads at once (the runtime queues more than a few open reads anyway). */
const RECORD_READS_AT_ONCE = 8;

/**
 * A record's validation records in core's shape. The build wrote them from loaded records, so
 * one that does not load back means the stored record is not what the build wrote: refused.
 * @example storedValidations(record)[0]?.level // "first_party"
 */
export function storedValidations(record: { name: string; trust: Pick<SkillRecord["trust"], "validations"> }): ValidationRecord[] {
  return record.trust.validations.map((raw, index) => {
    const parsed = ValidationRecordSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`the record of ${record.name} holds a malformed validation record (#${index}): ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
}

/** What a verdict is re-evaluated from: the skill's stored validation records and the build verdict's reasons. */
export interface TrustInputs {
  validations: SkillRecord["trust"]["validations"];
  buildReasons: readonly string[];
}

/** The trust inputs of a record (what a shard entry's `listing` copies). */
export function recordTrustInputs(record: Pick<SkillRecord, "trust">): TrustInputs {
  return { validations: record.trust.validations, buildReasons: record.trust.verdict.reasons };
}

/** The trust inputs a served skill's entry carries (entries built since `listing`), undefined for older entries. */
function entryTrustInputs(skill: ServedSkill): TrustInputs | undefined {
  return skill.listing === undefined ? undefined : { validations: skill.listing.validations, buildReasons: skill.listing.build_reasons };
}

/**
 * One served skill's verdict under the advisories in force, evaluated as the edge verdict is
 * (the provenance source the build derived). The edge keeps the build's requires_review (only a
 * build re-decides it, e.g. after an advisory that matched at build time is withdrawn); when the
 * evaluation alone would attach, that is stated as the reason it does not.
 * @example skillTrust(generation.advisories, skill, recordTrustInputs(record)).verdict.reasons
 */
export function skillTrust(advisories: readonly AdvisoryEntry[], skill: ServedSkill, inputs: TrustInputs): SkillTrustView {
  const evaluated = evaluateTrust(
    { validations: storedValidations({ name: skill.name, trust: inputs }), advisories },
    { tree_hash: skill.tree_hash, name: skill.name, source: skill.trust.source, has_scripts: skill.has_scripts },
  );
  const verdict: TrustVerdict =
    skill.trust.requires_review && !evaluated.requires_review
      ? {
          ...evaluated,
          requires_review: true,
          attachable: false,
          reasons: [...evaluated.reasons, `review: the build's verdict requires review (${inputs.buildReasons.join("; ") || "no reason recorded"})`],
        }
      : evaluated;
  // The audit summary rides on the shard entry; a skill without findings answers as before.
  return {
    name: skill.name,
    tree_hash: skill.tree_hash,
    source: skill.trust.source,
    has_scripts: skill.has_scripts,
    verdict,
    ...(hasFindings(skill.audit) ? { audit: skill.audit } : {}),
  };
}

/**
 * A served skill's trust inputs: from its shard entry, or (an entry built before `listing`) one
 * record read.
 */
async function trustInputsOnShelf(shelf: ShelfService, skill: ServedSkill): Promise<TrustInputs> {
  return entryTrustInputs(skill) ?? recordTrustInputs((await shelf.record(skill.name)).record);
}

/**
 * One served skill's verdict (its shard entry; one record read for an entry built before `listing`).
 * @throws NotOnShelfError, SkillBlockedError (the 404 and 410 of every view)
 */
export async function skillTrustOnShelf(shelf: ShelfService, name: string): Promise<SkillTrustView> {
  const skill = await shelf.skill(name);
  const [inputs, generation] = await Promise.all([trustInputsOnShelf(shelf, skill), shelf.generation()]);
  return skillTrust(generation.advisories, skill, inputs);
}

/**
 * Every served skill's verdict, the blocked skills with their advisory (as /v1/shelf shows them)
 * and the advisories in force. Reads the shards only; a generation built before entries carried
 * `listing` reads every record instead (cold, one read per skill; callers cache it).
 */
export async function shelfTrust(shelf: ShelfService): Promise<ShelfTrustView> {
  const [status, served, generation] = await Promise.all([shelf.status(), shelf.skills(), shelf.generation()]);
  const skills: SkillTrustView[] = new Array(served.length);
  let next = 0;
  const worker = async () => {
    while (next < served.length) {
      const i = next++;
      const skill = served[i]!;
      skills[i] = skillTrust(generation.advisories, skill, await trustInputsOnShelf(shelf, skill));
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_READS_AT_ONCE, served.length) }, worker));
  return {
    generation: status.generation,
    advisories: { seq: status.advisories.seq, in_force: [...status.advisories.in_force] },
    skills,
    blocked: status.blocked,
  };
}
