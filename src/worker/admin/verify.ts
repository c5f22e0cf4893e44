// Verifying uploaded documents against each other, as pure functions over parsed documents:
// what a document references (its children, to check they are stored), a shard against its
// records, and a manifest against its shards. Readers trust what these checks accept.
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import { entryFor } from "../../core/generation/assemble.ts";
import { recordAuditProblems } from "../../core/audit/published.ts";
import { generationReferences, recordReferences, recordBlobs, shardReferences, type DocumentKind } from "../../core/generation/graph.ts";
import {
  GenerationManifestSchema,
  shardOf,
  ShardSchema,
  SkillRecordSchema,
  type GenerationManifest,
  type Shard,
  type SkillEntry,
  type SkillRecord,
} from "../../core/generation/manifest.ts";
import { treeHash } from "../../core/skill/hash.ts";
import { describedSkillProblems, skillListProblems } from "../../core/skill/tree-rules.ts";
import { r2Key } from "../storage/keys.ts";

/** An uploaded document, parsed and checked against its schema. */
export type UploadedDocument = { kind: "record"; record: SkillRecord } | { kind: "shard"; shard: Shard } | { kind: "generation"; manifest: GenerationManifest };

/** A stored object a document references: its R2 key and the size it must have. */
export interface Child {
  key: string;
  size: number;
}

/** Why an uploaded document is refused: its admin error code (422) and a one-line message. */
export interface DocumentProblem {
  code: "invalid_document" | "invalid_skill";
  message: string;
}

function invalid(message: string): DocumentProblem {
  return { code: "invalid_document", message };
}

/** invalid_skill: `what` describes a skill the build's rules (core's tree-rules.ts) refuse. */
function refusedSkill(what: string, problems: readonly string[]): DocumentProblem {
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
  return { code: "invalid_skill", message: `${what} describes what skillshelf build refuses: ${problems.slice(0, 5).join("; ")}${more}; nothing was stored` };
}

function issues(error: { issues: readonly { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".")}: ${i.message}`)
    .join("; ");
}

/**
 * Parses an uploaded document against its kind's schema (invalid_document otherwise); a
 * record must describe a skill the build would write and a shard list each skill once, in order
 * (invalid_skill: the build's own rules), and a shard's skills must belong in it by name.
 * @example parseDocument("record", JSON.parse(text)) // => { kind: "record", record } or a DocumentProblem
 */
export function parseDocument(kind: DocumentKind, json: unknown): UploadedDocument | DocumentProblem {
  if (kind === "record") {
    const parsed = SkillRecordSchema.safeParse(json);
    if (!parsed.success) return invalid(`not a skill record: ${issues(parsed.error)}`);
    const problems = describedSkillProblems(parsed.data);
    if (problems.length) return refusedSkill("the record", problems);
    return { kind, record: parsed.data };
  }
  if (kind === "shard") {
    const parsed = ShardSchema.safeParse(json);
    if (!parsed.success) return invalid(`not a shard: ${issues(parsed.error)}`);
    const shard = parsed.data;
    const problems = skillListProblems(shard.skills.map((entry) => entry.name));
    if (problems.length) return refusedSkill(`shard ${shard.index}`, problems);
    for (const entry of shard.skills) {
      if (shardOf(entry.name, shard.shard_count) !== shard.index)
        return invalid(`skill ${entry.name} does not belong in shard ${shard.index} of ${shard.shard_count}`);
    }
    return { kind, shard };
  }
  const parsed = GenerationManifestSchema.safeParse(json);
  if (!parsed.success) return invalid(`not a generation manifest: ${issues(parsed.error)}`);
  return { kind, manifest: parsed.data };
}

/**
 * A record's `tree_hash` and `content_hash` recomputed from the files it lists (their digests and
 * sizes are what the blob uploads verified): a record whose hashes are not its files' would bind
 * trust records and signatures to content it does not hold, so it is refused (422 invalid_skill,
 * naming the field); null when they are.
 */
export async function checkRecordHashes(record: SkillRecord): Promise<DocumentProblem | null> {
  const problems: string[] = [];
  const tree = await treeHash(record.files);
  if (tree !== record.tree_hash) problems.push(`tree_hash is ${record.tree_hash}, but the files hash to ${tree}`);
  const skillMd = record.files.find((f) => f.path === "SKILL.md");
  if (skillMd && skillMd.sha256 !== record.content_hash) problems.push(`content_hash is ${record.content_hash}, but SKILL.md's SHA-256 is ${skillMd.sha256}`);
  return problems.length ? refusedSkill("the record", problems) : null;
}

/**
 * A record's published audit checked against the record itself, never by rescanning (that would
 * read every blob): findings for this tree hash, acknowledgements its validation records make, and
 * a verdict that says what the findings imply (422 invalid_document naming each mismatch); null when consistent.
 */
export function checkRecordAudit(record: SkillRecord): DocumentProblem | null {
  const problems = recordAuditProblems(record);
  if (!problems.length) return null;
  return invalid(`the record's audit does not match the record: ${problems.slice(0, 3).join("; ")}; nothing was stored. Rebuild it with skillshelf build`);
}

/**
 * The stored objects a document references with the sizes it gives them (a shard's blob list
 * carries no sizes; its records vouch for those blobs, see checkShardAgainstRecords).
 */
export function childrenOf(document: UploadedDocument): Child[] {
  const refs =
    document.kind === "record"
      ? recordReferences(document.record)
      : document.kind === "shard"
        ? shardReferences(document.shard)
        : generationReferences(document.manifest);
  return refs.filter((ref) => ref.size !== null).map((ref) => ({ key: r2Key(ref.kind, ref.sha256), size: ref.size! }));
}

/**
 * Checks a shard against its records, which readers would otherwise trust blindly: its blob
 * list is exactly the blobs they reference (gc keeps what it lists), and each entry is exactly
 * what `entryFor` derives from its record, field by field (listings, indexes, digests, MCP entries
 * and trust verdicts are served from the entries without reading the records; an entry without
 * `listing`, as older builds wrote, is checked without it). Returns the first problem, or null.
 */
export function checkShardAgainstRecords(shard: Shard, recordOf: (entry: SkillEntry) => SkillRecord): DocumentProblem | null {
  const expected = new Set<string>();
  for (const entry of shard.skills) for (const blob of recordBlobs(recordOf(entry))) expected.add(blob.sha256);
  const listed = new Set(shard.blobs);
  if (listed.size !== shard.blobs.length || listed.size !== expected.size || [...expected].some((sha) => !listed.has(sha))) {
    return invalid(`shard ${shard.index}'s blob list is not exactly the blobs its records reference; rebuild it with skillshelf build`);
  }
  const text = new TextDecoder();
  const same = (a: unknown, b: unknown) => text.decode(canonicalJson(a)) === text.decode(canonicalJson(b));
  for (const entry of shard.skills) {
    let derived: SkillEntry;
    try {
      derived = entryFor(recordOf(entry), entry.record);
    } catch (err) {
      return invalid(`shard ${shard.index}'s entry for ${entry.name}: ${(err as Error).message}`);
    }
    // An entry built before `listing` existed may leave it out (readers then read the record);
    // one that has it must carry exactly the record's.
    if (entry.listing === undefined) delete derived.listing;
    if (!same(derived, entry)) {
      const fields = (Object.keys(derived) as (keyof SkillEntry)[]).filter((k) => !same(derived[k], entry[k]));
      return invalid(`shard ${shard.index}'s entry for ${entry.name} differs from its record in ${fields.join(", ")}; rebuild it with skillshelf build`);
    }
  }
  return null;
}

/**
 * Checks what a manifest says about its shards, which readers trust without re-reading them:
 * refs sorted by index and unique, each below shard_count, each naming its shard's index and
 * skill count, one shard_count throughout, and the skill, file and byte totals. `shards[i]` is
 * the shard `manifest.shards[i]` names. Returns the first problem, or null.
 */
export function checkManifestAgainstShards(manifest: GenerationManifest, shards: readonly Shard[]): DocumentProblem | null {
  const fail = (message: string) => invalid(`${message}; rebuild it with skillshelf build`);
  const refs = manifest.shards;
  let skills = 0;
  let files = 0;
  let bytes = 0;
  for (const [i, ref] of refs.entries()) {
    const shard = shards[i]!;
    if (i > 0 && refs[i - 1]!.index >= ref.index) return fail(`the manifest's shard refs are not sorted by index and unique (${ref.index})`);
    if (ref.index >= manifest.shard_count) return fail(`the manifest's shard ref ${ref.index} is not below its shard_count ${manifest.shard_count}`);
    if (shard.index !== ref.index) return fail(`the manifest's shard ref ${ref.index} names shard ${shard.index}`);
    if (shard.shard_count !== manifest.shard_count)
      return fail(`shard ${shard.index} was built for ${shard.shard_count} shards, the manifest says ${manifest.shard_count}`);
    if (shard.skills.length !== ref.count) return fail(`the manifest says shard ${ref.index} holds ${ref.count} skill(s), it holds ${shard.skills.length}`);
    skills += shard.skills.length;
    for (const entry of shard.skills) {
      files += entry.file_count;
      bytes += entry.total_bytes;
    }
  }
  // The audit: every record was scanned with the rule set the manifest names (entries carry it,
  // checked against their records when each shard was stored), or none carries an audit at all.
  const ruleSet = manifest.audit?.rule_set ?? null;
  for (const shard of shards) {
    for (const entry of shard.skills) {
      const entrySet = entry.audit?.rule_set ?? null;
      if (entrySet === ruleSet) continue;
      return fail(
        ruleSet === null
          ? `the manifest names no audit rule set, but ${entry.name}'s record has findings at ${entrySet}`
          : `the manifest's audit rule set is ${ruleSet}, but ${entry.name}'s record has ${entrySet === null ? "no audit findings" : `findings at ${entrySet}`}: the audit document does not match the records`,
      );
    }
  }
  if (skills !== manifest.skill_count || files !== manifest.file_count || bytes !== manifest.total_bytes) {
    return fail(
      `the manifest's totals (${manifest.skill_count} skills, ${manifest.file_count} files, ${manifest.total_bytes} bytes) are not its shards' (${skills}, ${files}, ${bytes})`,
    );
  }
  return null;
}
