// Assembling a generation from loaded skills: per-skill records, shards, the search index and the
// manifest, all as canonical JSON under their SHA-256. Pure (Web APIs only) so the same code could run anywhere;
// the CLI's build reads the shelf from disk and hands the pieces here.
import { tarGzArchive, zipArchive } from "./archive.ts";
import { pluginManifest, pluginZip, type PluginSource } from "./claude-plugin.ts";
import { canonicalDocument } from "./canonical-json.ts";
import { recordBlobs } from "./graph.ts";
import { entryAudit } from "../audit/published.ts";
import type { Lifecycle } from "../changes/lifecycle.ts";
import { sha256Hex } from "../skill/hash.ts";
import {
  ADVISORIES_SCHEMA,
  GENERATION_SCHEMA,
  GenerationManifestSchema,
  SHARD_SCHEMA,
  shardCountFor,
  shardOf,
  SKILL_RECORD_SCHEMA,
  type BlobRef,
  type GenerationManifest,
  type Shard,
  type SkillEntry,
  type SkillListing,
  type SkillRecord,
} from "./manifest.ts";
import type { Inventory, Sha256 } from "../skill/inventory.ts";
import { outlineOf } from "../disclosure/outline.ts";
import { buildSearchIndex, SEARCH_INDEX_SCHEMA, type SearchableSkill } from "../search/bm25.ts";
import type { SkillFile, SkillMetadata } from "../skill/skill.ts";
import type { ParsedSkillMd } from "../skill/skill-md.ts";

/** One stored object of a build: its kind decides its storage prefix. */
export interface BuiltObject {
  kind: "blob" | "record" | "shard";
  sha256: string;
  bytes: Uint8Array;
}

/** A built generation held in memory: the manifest, its id, and every object it references. */
export interface BuiltGeneration {
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
  /** Every object, once each, sorted by kind then sha256. */
  objects: BuiltObject[];
}

/** What the build computed for one skill, minus storage: the record without its archives. */
export type SkillRecordInput = Omit<SkillRecord, "schema" | "archives">;

/** A skill's record fields that its files alone decide: the record without its trust section. */
export type DescribedSkill = Omit<SkillRecordInput, "trust">;

/**
 * A skill's record fields from what validation and inventory found, without the trust section
 * (which the shelf's trust records decide): what the CLI's build cache keeps per skill folder.
 */
export function describeSkillFiles(metadata: SkillMetadata, parsed: ParsedSkillMd, inventory: Inventory): DescribedSkill {
  const outline = outlineOf(metadata.name, parsed.body);
  return {
    name: metadata.name,
    // Plain JSON: YAML timestamps become ISO strings, as JSON.stringify writes them.
    frontmatter: JSON.parse(JSON.stringify(parsed.frontmatter)) as Record<string, unknown>,
    description: metadata.description,
    version: metadata.version ?? null,
    license: metadata.license ?? null,
    compatibility: metadata.compatibility ?? null,
    allowed_tools: metadata.allowed_tools ?? null,
    tags: metadata.tags,
    when_to_use: metadata.when_to_use,
    when_not_to_use: metadata.when_not_to_use,
    requires: { mcp: metadata.requires_mcp, tools: metadata.requires_tools },
    content_hash: inventory.content_hash,
    tree_hash: inventory.tree_hash,
    files: inventory.files,
    total_bytes: inventory.total_bytes,
    has_scripts: inventory.has_scripts,
    outline: { ...outline, sections: outline.sections.map((section) => ({ ...section })) },
    ...(parsed.head !== undefined ? { skill_md_head: parsed.head } : {}),
  };
}

/**
 * A skill's record fields from what validation and inventory found, plus its trust section:
 * the one mapping from a valid SKILL.md to the stored record (the build and test fixtures share it).
 */
export function describeSkill(metadata: SkillMetadata, parsed: ParsedSkillMd, inventory: Inventory, trust: SkillRecordInput["trust"]): SkillRecordInput {
  return { ...describeSkillFiles(metadata, parsed, inventory), trust };
}

/** The inputs for one skill: its record fields and its files (bytes, for blobs and archives). */
export interface SkillBuildInput {
  record: SkillRecordInput;
  files: readonly SkillFile[];
}

/** The shelf-level inputs. */
export interface ShelfBuildInput {
  catalogVersion: string | null;
  recordDigests: GenerationManifest["shelf"]["records"];
  /** The build's advisories in their stored (to_dict) form, or null when the shelf has none. */
  advisories: Record<string, unknown>[] | null;
  /** The shelf's lifecycle.yaml as parsed (src/core/changes/lifecycle.ts); null or absent when it has none. */
  lifecycle?: Lifecycle | null;
}

function ref(doc: { sha256: string; size: number }): BlobRef {
  return { sha256: doc.sha256, size: doc.size };
}

/**
 * A skill's shard entry: everything in it is derived from its record (and the record's own
 * reference), so the Worker can re-derive an uploaded entry and refuse one that differs.
 * @example entryFor(record, { sha256, size }).skill_md // SKILL.md's blob
 */
export function entryFor(record: SkillRecord, recordRef: BlobRef): SkillEntry {
  const skillMd = record.files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new Error(`record of ${record.name} has no SKILL.md`);
  return {
    name: record.name,
    record: { sha256: recordRef.sha256, size: recordRef.size },
    description: record.description,
    version: record.version,
    tags: record.tags,
    when_to_use: record.when_to_use,
    when_not_to_use: record.when_not_to_use,
    content_hash: record.content_hash,
    tree_hash: record.tree_hash,
    has_scripts: record.has_scripts,
    file_count: record.files.length,
    paths: record.files.map((f) => f.path),
    total_bytes: record.total_bytes,
    skill_md: { sha256: skillMd.sha256, size: skillMd.size },
    archives: record.archives,
    trust: {
      source: record.trust.source,
      level: record.trust.verdict.level,
      requires_review: record.trust.verdict.requires_review,
      attachable: record.trust.verdict.attachable,
    },
    ...(record.provenance ? { provenance: record.provenance } : {}),
    ...(record.audit ? { audit: entryAudit(record.audit) } : {}),
    listing: listingOf(record),
  };
}

/**
 * What listings need of a record without reading it (SkillEntry `listing`), derived from it alone.
 * @example listingOf(record).file_sha256.length === record.files.length
 */
export function listingOf(record: SkillRecord): SkillListing {
  return {
    file_sha256: record.files.map((f) => f.sha256),
    file_sizes: record.files.map((f) => f.size),
    ...(record.skill_md_head !== undefined ? { skill_md_head: record.skill_md_head } : {}),
    validations: record.trust.validations,
    build_reasons: record.trust.verdict.reasons,
  };
}

/**
 * The one audit rule set a generation's records were scanned with, or null when none carries an
 * audit; throws when they mix rule sets or some lack one (the Worker refuses such a generation).
 */
export function generationRuleSet(records: readonly Pick<SkillRecord, "name" | "audit">[]): string | null {
  const sets = new Set(records.map((r) => r.audit?.rule_set ?? null));
  if (sets.size === 0) return null;
  if (sets.size > 1) {
    const odd = records.find((r) => (r.audit?.rule_set ?? null) !== (records[0]!.audit?.rule_set ?? null))!;
    throw new Error(
      `the records mix audit rule sets (${[...sets].map((s) => s ?? "none").join(", ")}; ${odd.name} differs); rebuild every skill with one skillshelf version`,
    );
  }
  return [...sets][0]!;
}

/**
 * What the search index reads from a record: its listing fields and its section titles (the
 * outline's headings; the text before the first heading has no title of its own).
 * @example buildSearchIndex(records.map(searchableRecord))
 */
export function searchableRecord(record: Pick<SkillRecord, "name" | "description" | "tags" | "when_to_use" | "outline">): SearchableSkill {
  return {
    name: record.name,
    description: record.description,
    tags: record.tags,
    when_to_use: record.when_to_use,
    sections: record.outline.sections.filter((s) => s.level > 0).map((s) => s.title),
  };
}

/** A skill's archives: the bytes and their references, as the record stores them. */
export interface SkillArchives {
  tarGz: Uint8Array;
  zip: Uint8Array;
  /** The Claude Code plugin zip (claude-plugin.ts), made from `zip`. */
  claudePlugin: Uint8Array;
  refs: Required<SkillRecord["archives"]>;
}

/**
 * Compresses a skill's files into its .tar.gz and .zip and makes its Claude Code plugin zip from
 * the .zip and `plugin` (what plugin.json says: the record's name, description, version and tree
 * hash). The expensive part of a build: the CLI runs it on worker threads, and reuses the result
 * while the skill's tree hash is unchanged (the tree hash decides `plugin` too, as SKILL.md does).
 * @example const { refs } = await skillArchives(files, record); refs.claude_plugin?.sha256 // 64 hex
 */
export async function skillArchives(files: readonly SkillFile[], plugin: PluginSource, sha256: Sha256 = sha256Hex): Promise<SkillArchives> {
  const tarGz = tarGzArchive(files);
  const zip = zipArchive(files);
  const claudePlugin = pluginZip(zip, pluginManifest(plugin));
  return {
    tarGz,
    zip,
    claudePlugin,
    refs: {
      tar_gz: { sha256: await sha256(tarGz), size: tarGz.length },
      zip: { sha256: await sha256(zip), size: zip.length },
      claude_plugin: { sha256: await sha256(claudePlugin), size: claudePlugin.length },
    },
  };
}

/**
 * A document's reference, with its canonical bytes, or null bytes when the caller's store already
 * holds it (the incremental build memoizes documents it wrote before; see documentOf below).
 */
export interface StoredDocument {
  sha256: string;
  size: number;
  bytes: Uint8Array | null;
}

/**
 * Turns a record, shard or search index into its stored document: canonical JSON of `build()` by
 * default. `key` is a JSON value that determines the document (the value itself, or for the
 * search index the fields it is built from), so a memo can skip `build()` for a key seen before.
 */
export type DocumentOf = (kind: "record" | "shard" | "search", build: () => unknown, key: unknown) => Promise<StoredDocument>;

/** The generation's documents once every record is known: no file bytes needed. */
export interface AssembledDocuments {
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
  /** The records, shards, advisories and search index (each once, sorted by kind then sha256), except those `documentOf` said are stored. */
  objects: BuiltObject[];
  /** Every document of the generation by kind, stored or not (the build folder keeps exactly these). */
  digests: { record: string[]; shard: string[]; blob: string[] };
  /** Each record with its own digest, in name order (what signing signs). */
  records: { record: SkillRecord; sha256: string }[];
}

const KIND_ORDER = { blob: 0, record: 1, shard: 2 } as const;

function sortObjects(objects: Iterable<BuiltObject>): BuiltObject[] {
  return [...objects].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
}

/**
 * Builds every document above the blobs from the skills' complete records: records, shards, the
 * advisories and search blobs, and the manifest. What the incremental build calls directly (its
 * blobs are already on disk); {@link assembleGeneration} calls it after compressing.
 * @example const { id } = await assembleDocuments(records, shelf)
 */
export async function assembleDocuments(
  skillRecords: readonly SkillRecord[],
  shelf: ShelfBuildInput,
  documentOf: DocumentOf = (_kind, build) => canonicalDocument(build()),
): Promise<AssembledDocuments> {
  const objects = new Map<string, BuiltObject>();
  const digests: AssembledDocuments["digests"] = { record: [], shard: [], blob: [] };
  const addDoc = (kind: BuiltObject["kind"], doc: StoredDocument) => {
    digests[kind].push(doc.sha256);
    const key = `${kind}:${doc.sha256}`;
    if (doc.bytes && !objects.has(key)) objects.set(key, { kind, sha256: doc.sha256, bytes: doc.bytes });
  };

  const sorted = [...skillRecords].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: SkillEntry[] = [];
  const records = new Map<string, SkillRecord>();
  const signed: AssembledDocuments["records"] = [];
  let fileCount = 0;
  let totalBytes = 0;
  for (const record of sorted) {
    if (records.has(record.name)) throw new Error(`two skills named ${record.name}`);
    const recordDoc = await documentOf("record", () => record, record);
    addDoc("record", recordDoc);
    entries.push(entryFor(record, ref(recordDoc)));
    records.set(record.name, record);
    signed.push({ record, sha256: recordDoc.sha256 });
    fileCount += record.files.length;
    totalBytes += record.total_bytes;
  }

  const shardCount = shardCountFor(entries.length);
  // A shard's blob list is what its records reference (the same walk the Worker checks it with).
  const blobsOf = new Map([...records].map(([name, record]) => [name, recordBlobs(record).map((b) => b.sha256)]));
  const buckets = new Map<number, SkillEntry[]>();
  for (const entry of entries) {
    const index = shardOf(entry.name, shardCount);
    const bucket = buckets.get(index) ?? [];
    bucket.push(entry);
    buckets.set(index, bucket);
  }
  const shardRefs: GenerationManifest["shards"] = [];
  for (const index of [...buckets.keys()].sort((a, b) => a - b)) {
    const skillsInShard = buckets.get(index)!;
    const blobs = [...new Set(skillsInShard.flatMap((e) => blobsOf.get(e.name)!))].sort();
    const shard: Shard = { schema: SHARD_SCHEMA, index, shard_count: shardCount, skills: skillsInShard, blobs };
    const doc = await documentOf("shard", () => shard, shard);
    addDoc("shard", doc);
    shardRefs.push({ index, sha256: doc.sha256, size: doc.size, count: skillsInShard.length });
  }

  let advisoriesRef: BlobRef | null = null;
  if (shelf.advisories !== null) {
    const doc = await canonicalDocument({ schema: ADVISORIES_SCHEMA, advisories: shelf.advisories });
    addDoc("blob", doc);
    advisoriesRef = ref(doc);
  }

  let lifecycleRef: BlobRef | null = null;
  if (shelf.lifecycle) {
    const doc = await canonicalDocument(shelf.lifecycle);
    addDoc("blob", doc);
    lifecycleRef = ref(doc);
  }

  // The search index, built once here so no request builds it (src/core/search).
  const searchable = [...records.values()].map(searchableRecord);
  const searchDoc = await documentOf("search", () => buildSearchIndex(searchable), { index: SEARCH_INDEX_SCHEMA, searchable });
  addDoc("blob", searchDoc);

  const ruleSet = generationRuleSet(sorted);
  const manifest: GenerationManifest = GenerationManifestSchema.parse({
    schema: GENERATION_SCHEMA,
    shelf: {
      catalog_version: shelf.catalogVersion,
      records: shelf.recordDigests,
      advisories: advisoriesRef,
      ...(lifecycleRef ? { lifecycle: lifecycleRef } : {}),
    },
    skill_count: entries.length,
    file_count: fileCount,
    total_bytes: totalBytes,
    shard_count: shardCount,
    shards: shardRefs,
    search: ref(searchDoc),
    ...(ruleSet ? { audit: { rule_set: ruleSet } } : {}),
  });
  const manifestDoc = await canonicalDocument(manifest);
  return { id: manifestDoc.sha256, manifest, manifestBytes: manifestDoc.bytes, objects: sortObjects(objects.values()), digests, records: signed };
}

/**
 * Builds every document of a generation from skills held in memory: their blobs and archives,
 * then {@link assembleDocuments}. Deterministic: the same inputs give the same bytes and id on
 * any machine (no time, sorted everything, canonical JSON, pinned compressor).
 * @example const built = await assembleGeneration(skills, shelf); built.id // 64 hex
 */
export async function assembleGeneration(skills: readonly SkillBuildInput[], shelf: ShelfBuildInput): Promise<BuiltGeneration> {
  const blobs = new Map<string, BuiltObject>();
  const add = (sha256: string, bytes: Uint8Array) => {
    if (!blobs.has(sha256)) blobs.set(sha256, { kind: "blob", sha256, bytes });
  };
  const records: SkillRecord[] = [];
  for (const skill of skills) {
    const byPath = new Map(skill.files.map((f) => [f.path, f]));
    for (const file of skill.record.files) {
      const source = byPath.get(file.path);
      if (!source) throw new Error(`record of ${skill.record.name} lists ${file.path} but no bytes were given`);
      add(file.sha256, source.bytes);
    }
    const archives = await skillArchives(skill.files, skill.record);
    add(archives.refs.tar_gz.sha256, archives.tarGz);
    add(archives.refs.zip.sha256, archives.zip);
    add(archives.refs.claude_plugin.sha256, archives.claudePlugin);
    records.push({ schema: SKILL_RECORD_SCHEMA, ...skill.record, archives: archives.refs });
  }
  const documents = await assembleDocuments(records, shelf);
  const objects = new Map<string, BuiltObject>(documents.objects.map((o) => [`${o.kind}:${o.sha256}`, o]));
  for (const blob of blobs.values()) if (!objects.has(`blob:${blob.sha256}`)) objects.set(`blob:${blob.sha256}`, blob);
  return { id: documents.id, manifest: documents.manifest, manifestBytes: documents.manifestBytes, objects: sortObjects(objects.values()) };
}
