// Publishes the trust shelf (trust-shelf.ts) to the test's R2 the way `skillshelf build` and
// publish do: each skill judged with core's judgeSkill against the build's records, its record
// keeping the validations bound to its tree (else those naming it) in their to_dict form, the
// build's advisories in the manifest, and then the advisories in force replaced, as an operator
// does after publishing. KV is left empty, so binding counts see every read.
import { assembleGeneration, describeSkill, type SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { ADVISORIES_SCHEMA, POINTER_SCHEMA } from "../../../src/core/generation/manifest.ts";
import { sourceCandidates, validationsFor } from "../../../src/core/trust/evaluate.ts";
import type { AdvisoryEntry, TrustRecords } from "../../../src/core/trust/records.ts";
import { judgeSkill } from "../../../src/core/trust/select.ts";
import { advisoryToDict, validationToDict } from "../../../src/core/trust/serialize.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import { R2_ADVISORIES_KEY, R2_POINTER_KEY, r2Key } from "../../../src/worker/storage/keys.ts";
import type { TrustShelf } from "./trust-shelf.ts";

/** Builds and publishes the shelf; the advisories in force become `inForce` (seq `seq`). Returns the generation id. */
export async function publishTrustShelf(env: { SHELF_BUCKET: R2Bucket }, shelf: TrustShelf, inForce: AdvisoryEntry[], seq = 2): Promise<string> {
  const records: TrustRecords = { validations: shelf.validations, advisories: shelf.buildAdvisories };
  const inputs: SkillBuildInput[] = [];
  for (const [name, files] of shelf.files) {
    const inventory = shelf.inventories.get(name)!;
    const validation = validateSkillMd(name, files.find((f) => f.path === "SKILL.md")!.bytes);
    if (!validation.ok || !validation.metadata || !validation.parsed) throw new Error(`${name}: ${JSON.stringify(validation.problems)}`);
    const notes: string[] = [];
    const verdict = judgeSkill(records, { name, tree_hash: inventory.tree_hash, has_scripts: inventory.has_scripts }, (m) => notes.push(m));
    if (verdict.blocked) throw new Error(`${name} is blocked at build time; the build would refuse it`);
    const hashBound = validationsFor(records, inventory.tree_hash);
    const bound = hashBound.length ? hashBound : records.validations.filter((r) => r.name === name);
    inputs.push({
      files,
      record: describeSkill(validation.metadata, validation.parsed, inventory, {
        source: sourceCandidates(records, name, inventory.tree_hash)[0]?.source ?? null,
        validations: bound.map(validationToDict),
        verdict: {
          level: verdict.level,
          blocked: false,
          requires_review: verdict.requires_review,
          attachable: verdict.attachable,
          reasons: verdict.reasons,
          warnings: [...new Set([...verdict.warnings, ...notes])],
        },
      }),
    });
  }
  const built = await assembleGeneration(inputs, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: shelf.buildAdvisories.map(advisoryToDict),
  });
  for (const object of built.objects) await env.SHELF_BUCKET.put(r2Key(object.kind, object.sha256), object.bytes);
  await env.SHELF_BUCKET.put(r2Key("generation", built.id), built.manifestBytes);
  const at = "2026-12-01T10:00:00.000Z";
  await env.SHELF_BUCKET.put(
    R2_POINTER_KEY,
    JSON.stringify({
      schema: POINTER_SCHEMA,
      generation: built.id,
      seq: 1,
      published_at: at,
      history: [{ seq: 1, generation: built.id, action: "publish", at }],
    }),
  );
  await setAdvisoriesInForce(env, inForce, seq);
  return built.id;
}

/** Replaces the advisories in force (stored in their to_dict form, as the admin API stores them). */
export async function setAdvisoriesInForce(env: { SHELF_BUCKET: R2Bucket }, advisories: AdvisoryEntry[], seq: number): Promise<void> {
  await env.SHELF_BUCKET.put(
    R2_ADVISORIES_KEY,
    JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: advisories.map(advisoryToDict), seq, updated_at: "2026-12-01T10:00:00.000Z" }),
  );
}
