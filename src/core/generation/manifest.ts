// The published shape of a shelf: a generation manifest that names content-addressed shards, each
// shard listing skill entries that name content-addressed skill records. Every document here is
// plain JSON, stored as canonical JSON (RFC 8785) under its own SHA-256, so the generation id
// (the SHA-256 of the manifest) commits to every byte of the shelf, like a Merkle tree, while an
// edit to one skill changes only that skill's record, one shard and the manifest.
import { z } from "zod";
import { SHA256_HEX_RE } from "../skill/hash.ts";
import { PublishedProvenanceSchema } from "../import/provenance.ts";
import { AdvisoryEntryObjectSchema, TRUST_LEVELS } from "../trust/records.ts";
import { SEVERITIES } from "../audit/rules.ts";

/** Schema identifiers; bump the number when a reader could misread the old shape. */
export const GENERATION_SCHEMA = "skillshelf.generation/1";
/** /2: entries carry `paths` (shards of /1 lack it; republish after upgrading). */
export const SHARD_SCHEMA = "skillshelf.shard/2";
export const SKILL_RECORD_SCHEMA = "skillshelf.skill/1";
export const ADVISORIES_SCHEMA = "skillshelf.advisories/1";
export const POINTER_SCHEMA = "skillshelf.pointer/1";

/** The MCP skills extension (SEP-2640) limits, refused at build (src/core/skill/tree-rules.ts keeps them). */
export { MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL } from "../skill/tree-rules.ts";

/** Shards grow by powers of two so a small shelf is one shard and a 10,000-skill shelf ~256. */
export const TARGET_SKILLS_PER_SHARD = 64;
export const MAX_SHARDS = 256;

/** A SHA-256 as 64 lowercase hex characters: every content address and generation id. */
export const Sha256Schema = z.string().regex(SHA256_HEX_RE, "expected 64 lowercase hex characters (a SHA-256)");
const sha256Hex = Sha256Schema;

/** A stored byte string: its SHA-256 (the storage key) and its size in bytes. */
export const BlobRefSchema = z.strictObject({ sha256: sha256Hex, size: z.number().int().nonnegative() });
export type BlobRef = z.infer<typeof BlobRefSchema>;

/** One file of a skill, SEP-2640 style; `path` is relative to the skill root, POSIX separators. */
export const FileEntrySchema = z.strictObject({
  path: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: sha256Hex,
  media_type: z.string().min(1),
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

/**
 * The deterministic archives of a skill folder: .tar.gz and .zip (files at the archive root), and
 * the Claude Code plugin zip (`.claude-plugin/plugin.json` + `skills/<name>/…`,
 * src/core/generation/claude-plugin.ts). The plugin zip is absent from records built before it;
 * the Worker then derives it from the .zip (src/worker/views/claude).
 */
export const ArchivesSchema = z.strictObject({ tar_gz: BlobRefSchema, zip: BlobRefSchema, claude_plugin: BlobRefSchema.optional() });
export type Archives = z.infer<typeof ArchivesSchema>;

/** One outline section as src/core/disclosure/outline.ts computes it; extra fields are kept as built. */
export const OutlineSectionSchema = z.looseObject({
  key: z.string(),
  level: z.number().int().nonnegative(),
  title: z.string(),
  tokens: z.number().int().nonnegative(),
});
/** The outline of a SKILL.md body (agentskills-core's definition of sections and tokens). */
export const OutlineSchema = z.looseObject({
  total_tokens: z.number().int().nonnegative(),
  sections: z.array(OutlineSectionSchema),
});
export type Outline = z.infer<typeof OutlineSchema>;

/** A trust level (src/core/trust owns the levels and their rank order). */
const TrustLevelSchema = z.enum(TRUST_LEVELS);

/**
 * The build-time verdict, evaluated against the advisories in the build. The Worker re-evaluates
 * against the advisories in force at request time; a build never contains a blocked skill.
 */
export const BuildVerdictSchema = z.strictObject({
  level: TrustLevelSchema,
  blocked: z.boolean(),
  requires_review: z.boolean(),
  attachable: z.boolean(),
  reasons: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type BuildVerdict = z.infer<typeof BuildVerdictSchema>;

/**
 * What the Worker needs to re-evaluate trust per request: the provenance label used for
 * name/source advisory matching, every validation record bound to this tree hash (verbatim as
 * loaded from validations.yaml), and the build-time verdict.
 */
export const SkillTrustSchema = z.strictObject({
  source: z.string().nullable(),
  validations: z.array(z.record(z.string(), z.unknown())),
  verdict: BuildVerdictSchema,
});
export type SkillTrust = z.infer<typeof SkillTrustSchema>;

/** Declared requirements (`metadata.requires_mcp`, `metadata.requires_tools`). */
export const RequiresSchema = z.strictObject({ mcp: z.array(z.string()), tools: z.array(z.string()) });

/**
 * The skill's metadata from its frontmatter, as a record stores it and /v1/skills/{name} shows it
 * (one list, so the two cannot drift).
 */
export const SKILL_METADATA_FIELDS = {
  description: z.string(),
  version: z.string().nullable(),
  license: z.string().nullable(),
  compatibility: z.string().nullable(),
  allowed_tools: z.array(z.string()).nullable(),
  tags: z.array(z.string()),
  when_to_use: z.array(z.string()),
  when_not_to_use: z.array(z.string()),
};

/** One audit finding as published (src/core/audit/scan.ts computes it; `skillshelf audit --json` prints the same fields). */
export const AuditFindingSchema = z.strictObject({
  rule: z.string().min(1),
  severity: z.enum(SEVERITIES),
  file: z.string().min(1),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
  message: z.string(),
  excerpt: z.string(),
});
export type AuditFinding = z.infer<typeof AuditFindingSchema>;

/**
 * A skill's audit as the build computed it: every finding of the rule set for exactly this tree
 * hash, and which of them a validation record bound to the same tree acknowledges (by id,
 * `rule@file:line`). The Worker checks it against the record and never rescans.
 */
export const RecordAuditSchema = z.strictObject({
  rule_set: z.string().min(1),
  tree_hash: sha256Hex,
  findings: z.array(AuditFindingSchema),
  /** Finding ids acknowledged by the record's validation evidence (`audit_accepted`), sorted. */
  acknowledged: z.array(z.string().min(1)),
});
export type RecordAudit = z.infer<typeof RecordAuditSchema>;

const positiveCount = z.number().int().positive().optional();
/** Finding counts per severity; a severity with none is absent, so a clean skill's counts are `{}`. */
export const SeverityCountsSchema = z.strictObject({
  critical: positiveCount,
  high: positiveCount,
  medium: positiveCount,
  low: positiveCount,
  info: positiveCount,
});

/**
 * A shard entry's audit summary, derived from the record's audit (src/core/audit/published.ts):
 * what listings show without reading records. Absent keys are zero.
 */
export const EntryAuditSchema = z.strictObject({
  rule_set: z.string().min(1),
  /** Every finding, acknowledged or not. */
  counts: SeverityCountsSchema,
  /** Critical and high findings no validation record acknowledges (the gating ones); absent when none. */
  unacknowledged: z.strictObject({ critical: positiveCount, high: positiveCount }).optional(),
  /** How many findings are acknowledged; absent when none. */
  acknowledged: positiveCount,
});
export type EntryAudit = z.infer<typeof EntryAuditSchema>;

/**
 * Everything known about one skill, stored once under the SHA-256 of its canonical JSON, so an
 * unchanged skill is the same record in every generation.
 */
export const SkillRecordSchema = z.strictObject({
  schema: z.literal(SKILL_RECORD_SCHEMA),
  name: z.string().min(1),
  /** The SKILL.md frontmatter, verbatim, as JSON (what SEP-2640 hosts compare field by field). */
  frontmatter: z.record(z.string(), z.unknown()),
  ...SKILL_METADATA_FIELDS,
  requires: RequiresSchema,
  /** SHA-256 of the SKILL.md bytes (AbstractSkill content_hash). */
  content_hash: sha256Hex,
  /** AbstractSkill hash_skill_tree of the folder; trust records bind to it. */
  tree_hash: sha256Hex,
  /** The complete file list, sorted bytewise by path, SKILL.md included. */
  files: z.array(FileEntrySchema).min(1),
  total_bytes: z.number().int().nonnegative(),
  has_scripts: z.boolean(),
  outline: OutlineSchema,
  archives: ArchivesSchema,
  trust: SkillTrustSchema,
  /** Where an imported skill came from (the shelf's provenance.yaml); absent for the team's own skills. */
  provenance: PublishedProvenanceSchema.optional(),
  /** The audit's findings for this tree at the manifest's rule set; absent in records built before the audit was published. */
  audit: RecordAuditSchema.optional(),
  /**
   * SKILL.md's text from its start through its closing `---` line (see frontmatterHead in
   * src/core/skill/skill-md.ts): enough for the MCP SDK to read the frontmatter exactly as from the
   * whole file, so MCP listings never read SKILL.md. Absent in records built before it, and when
   * the closing line is not exactly `---`.
   */
  skill_md_head: z.string().optional(),
});
export type SkillRecord = z.infer<typeof SkillRecordSchema>;

/**
 * The part of a shard entry that lets a listing answer without the record: each file's digest and
 * size (parallel to the entry's `paths`: an MCP entry's resources), the SKILL.md head the MCP SDK
 * reads frontmatter from, and what a trust verdict is re-evaluated from per request.
 */
export const SkillListingSchema = z.strictObject({
  /** `files[i].sha256` of the record, in `paths` order. */
  file_sha256: z.array(sha256Hex),
  /** `files[i].size` of the record, in `paths` order. */
  file_sizes: z.array(z.number().int().nonnegative()),
  /** The record's `skill_md_head`, when it has one. */
  skill_md_head: z.string().optional(),
  /** The record's `trust.validations`, verbatim. */
  validations: z.array(z.record(z.string(), z.unknown())),
  /** The record's `trust.verdict.reasons` (named when the build's verdict holds a skill for review). */
  build_reasons: z.array(z.string()),
});
export type SkillListing = z.infer<typeof SkillListingSchema>;

/**
 * A skill's line in a shard: what listings (indexes, catalogs) need without reading the record,
 * plus the record's address.
 */
export const SkillEntrySchema = z.strictObject({
  name: z.string().min(1),
  record: BlobRefSchema,
  description: z.string(),
  version: z.string().nullable(),
  tags: z.array(z.string()),
  when_to_use: z.array(z.string()),
  when_not_to_use: z.array(z.string()),
  content_hash: sha256Hex,
  tree_hash: sha256Hex,
  has_scripts: z.boolean(),
  file_count: z.number().int().positive(),
  /**
   * Every file path of the skill (the record's `files[].path`, sorted bytewise), so the legacy
   * v0.1 index, which lists every skill's files, reads shards only, never 10,000 records.
   */
  paths: z.array(z.string().min(1)).min(1),
  total_bytes: z.number().int().nonnegative(),
  /** SKILL.md's own blob (the well-known `skill-md` digest). */
  skill_md: BlobRefSchema,
  archives: ArchivesSchema,
  trust: z.strictObject({
    source: z.string().nullable(),
    level: TrustLevelSchema,
    requires_review: z.boolean(),
    attachable: z.boolean(),
  }),
  /** The record's provenance, so listings and MCP _meta name an imported skill's source without reading the record. */
  provenance: PublishedProvenanceSchema.optional(),
  /** The record's audit in brief (present exactly when the record has one), so listings show findings without reading records. */
  audit: EntryAuditSchema.optional(),
  /**
   * What the listings that used to read every record need (MCP skills/list, /v1/trust), copied
   * from the record at build. Absent on entries built before it: readers then read the record.
   */
  listing: SkillListingSchema.optional(),
});
export type SkillEntry = z.infer<typeof SkillEntrySchema>;

/** The skills whose name falls in one shard (see shardOf), sorted bytewise by name. */
export const ShardSchema = z.strictObject({
  schema: z.literal(SHARD_SCHEMA),
  index: z.number().int().nonnegative(),
  shard_count: z.number().int().positive(),
  skills: z.array(SkillEntrySchema),
  /**
   * Every blob the shard's skills reference (files and archives), sorted and unique. The
   * Worker checks it against the records when the shard is stored; gc reads it instead of every
   * record, so collecting a 10,000-skill shelf reads ~256 shards, not 10,000 records.
   */
  blobs: z.array(sha256Hex),
});
export type Shard = z.infer<typeof ShardSchema>;

/**
 * What gc needs from a stored shard of any version (`skillshelf.shard/1` had no entry `paths`):
 * the records and blobs it keeps alive, so generations built before an upgrade are still
 * collected correctly.
 */
export const ShardReferencesSchema = z.looseObject({
  schema: z.enum(["skillshelf.shard/1", SHARD_SCHEMA]),
  skills: z.array(z.looseObject({ record: BlobRefSchema })),
  // Absent only on the earliest shard/1 documents; gc then reads the shard's records instead.
  blobs: z.array(sha256Hex).optional(),
});

/** A shard's address in the manifest, with its skill count so listings can plan their reads. */
export const ShardRefSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  sha256: sha256Hex,
  size: z.number().int().nonnegative(),
  count: z.number().int().positive(),
});
export type ShardRef = z.infer<typeof ShardRefSchema>;

/**
 * The generation manifest. Deliberately holds no time: building the same shelf twice, anywhere,
 * gives the same bytes and the same id. Publish time lives in the pointer's history instead.
 */
export const GenerationManifestSchema = z.strictObject({
  schema: z.literal(GENERATION_SCHEMA),
  shelf: z.strictObject({
    /** `catalog.yaml`'s bundle version, when the shelf has one. */
    catalog_version: z.string().nullable(),
    /** SHA-256 of each trust record file as built (null when the file is absent). */
    records: z.strictObject({
      validations: sha256Hex.nullable(),
      advisories: sha256Hex.nullable(),
      guidance: sha256Hex.nullable(),
      catalog: sha256Hex.nullable(),
    }),
    /** The build's advisories as an AdvisoryList blob; publishing merges them into the ones in force. */
    advisories: BlobRefSchema.nullable(),
    /**
     * The shelf's lifecycle.yaml (deprecations, renames) as a `skillshelf.lifecycle/1` blob
     * (src/core/changes/lifecycle.ts); absent when the shelf has none, so older manifests read.
     */
    lifecycle: BlobRefSchema.optional(),
  }),
  skill_count: z.number().int().nonnegative(),
  file_count: z.number().int().nonnegative(),
  total_bytes: z.number().int().nonnegative(),
  shard_count: z.number().int().positive(),
  /** Only non-empty shards, sorted by index. */
  shards: z.array(ShardRefSchema),
  /**
   * The search index (src/core/search, schema "skillshelf.search/1") as a canonical-JSON blob.
   * Optional so manifests built before it still read; the Worker indexes their entries instead.
   */
  search: BlobRefSchema.optional(),
  /**
   * The audit rule set every record of this generation was scanned with (each record's `audit`
   * names it too; the Worker refuses a mix). Absent on generations built before the audit was published.
   */
  audit: z.strictObject({ rule_set: z.string().min(1) }).optional(),
});
export type GenerationManifest = z.infer<typeof GenerationManifestSchema>;

/**
 * One stored advisory: an advisories.yaml entry as src/core/trust loads it (the field rules are
 * trust's). Only the fields every reader relies on are checked here; the rest ride along as stored.
 */
export const AdvisorySchema = AdvisoryEntryObjectSchema.pick({ name: true, source: true, severity: true }).loose();
export type Advisory = z.infer<typeof AdvisorySchema>;

/** An advisories list as a blob (the build's) or as the current record (what is in force). */
export const AdvisoryListSchema = z.strictObject({
  schema: z.literal(ADVISORIES_SCHEMA),
  advisories: z.array(AdvisorySchema),
});
export type AdvisoryList = z.infer<typeof AdvisoryListSchema>;

/** The advisories in force: the only mutable record besides the pointer. */
export const AdvisoriesRecordSchema = AdvisoryListSchema.extend({
  /** Bumped by every change; a KV copy with a higher seq makes a reader confirm against R2, whose record wins. */
  seq: z.number().int().nonnegative(),
  updated_at: z.string(),
});
export type AdvisoriesRecord = z.infer<typeof AdvisoriesRecordSchema>;

/**
 * One entry of the pointer's history: a move (publish, rollback), or a change of the advisories in
 * force (the generation stays; what is blocked changes).
 */
export const HistoryEntrySchema = z.strictObject({
  seq: z.number().int().positive(),
  generation: sha256Hex,
  action: z.enum(["publish", "rollback", "advisory"]),
  at: z.string(),
  /** The entry's change document (src/core/changes/document.ts) under `changes/<sha256>`; absent on entries written before it. */
  changes: sha256Hex.optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** How many pointer moves the pointer remembers (history, rollback targets, gc's keep set). */
export const HISTORY_LIMIT = 100;

/** The one mutable pointer to the current generation, moved by compare-and-swap. */
export const PointerSchema = z.strictObject({
  schema: z.literal(POINTER_SCHEMA),
  generation: sha256Hex,
  seq: z.number().int().positive(),
  published_at: z.string(),
  /** Newest first, at most HISTORY_LIMIT entries; history[0] is this move. */
  history: z.array(HistoryEntrySchema),
});
export type Pointer = z.infer<typeof PointerSchema>;

/** Number of shards for a shelf of `skillCount` skills: a power of two, 1 … MAX_SHARDS. */
export function shardCountFor(skillCount: number): number {
  let count = 1;
  while (count < MAX_SHARDS && count * TARGET_SKILLS_PER_SHARD < skillCount) count *= 2;
  return count;
}

/**
 * The shard a skill name belongs to: FNV-1a (32-bit) of its UTF-8 bytes, modulo the power-of-two
 * shard count. Cheap and synchronous so a route can find a skill's shard without hashing twice.
 * Example: shardOf("code-review", 1) === 0.
 */
export function shardOf(name: string, shardCount: number): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash & (shardCount - 1);
}

/** The entry's type for well-known discovery: a lone SKILL.md is `skill-md`, anything else `archive`. */
export function discoveryType(entry: Pick<SkillEntry, "file_count">): "skill-md" | "archive" {
  return entry.file_count === 1 ? "skill-md" : "archive";
}
