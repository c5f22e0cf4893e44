// Builds a fixture generation in workerd from in-memory skill folders and writes it to the
// test's R2 bucket in the layout docs/storage.md documents (blobs, records, shards, manifest,
// pointer, advisories), using the core's inventory, archives and canonical JSON. KV is left
// empty on purpose: the reader must fall back to R2, and tests can count binding calls.
import { tarGzArchive, zipArchive } from "../../../src/core/archive.ts";
import { sha256Hex } from "../../../src/core/hash.ts";
import { canonicalDocument } from "../../../src/core/canonical-json.ts";
import { buildInventory } from "../../../src/core/inventory.ts";
import {
  ADVISORIES_SCHEMA,
  GENERATION_SCHEMA,
  POINTER_SCHEMA,
  SHARD_SCHEMA,
  SKILL_RECORD_SCHEMA,
  shardCountFor,
  shardOf,
  type Advisory,
  type GenerationManifest,
  type SkillEntry,
  type SkillRecord,
} from "../../../src/core/manifest.ts";
import type { SkillFile } from "../../../src/core/skill.ts";
import { R2_ADVISORIES_KEY, R2_POINTER_KEY, r2Key } from "../../../src/worker/storage/keys.ts";

/** One fixture skill: its name, description and files (SKILL.md is generated when absent). */
export interface FixtureSkill {
  name: string;
  description: string;
  files?: Record<string, string | Uint8Array>;
  requiresReview?: boolean;
  source?: string;
}

/** What a published fixture generation holds, for assertions. */
export interface PublishedFixture {
  generation: string;
  entries: Map<string, SkillEntry>;
  records: Map<string, SkillRecord>;
  /** The exact bytes of every file, by skill and path. */
  files: Map<string, Map<string, Uint8Array>>;
  archives: Map<string, { tarGz: Uint8Array; zip: Uint8Array }>;
}

const encoder = new TextEncoder();

/** The SKILL.md a fixture skill gets when it declares none. */
export function fixtureSkillMd(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nFollow the steps.\n`;
}

/** Writes one generation of `skills` to R2 and points the shelf at it. */
export async function publishFixtureShelf(
  env: { SHELF_BUCKET: R2Bucket },
  skills: readonly FixtureSkill[],
  options: { advisories?: Advisory[]; advisoriesSeq?: number; publishedAt?: string; seq?: number } = {},
): Promise<PublishedFixture> {
  const bucket = env.SHELF_BUCKET;
  const out: PublishedFixture = { generation: "", entries: new Map(), records: new Map(), files: new Map(), archives: new Map() };
  const entries: SkillEntry[] = [];
  let fileCount = 0;
  let totalBytes = 0;
  for (const skill of skills) {
    const raw = { "SKILL.md": fixtureSkillMd(skill.name, skill.description), ...(skill.files ?? {}) };
    const files: SkillFile[] = Object.entries(raw).map(([path, v]) => ({ path, bytes: typeof v === "string" ? encoder.encode(v) : v }));
    const inventory = await buildInventory(files);
    for (const f of files) await bucket.put(r2Key("blob", (await canonicalBlob(f.bytes)).sha256), f.bytes);
    const tarGz = tarGzArchive(files);
    const zip = zipArchive(files);
    const tarRef = await canonicalBlob(tarGz);
    const zipRef = await canonicalBlob(zip);
    await bucket.put(r2Key("blob", tarRef.sha256), tarGz);
    await bucket.put(r2Key("blob", zipRef.sha256), zip);
    const requiresReview = skill.requiresReview ?? false;
    const record: SkillRecord = {
      schema: SKILL_RECORD_SCHEMA,
      name: skill.name,
      frontmatter: { name: skill.name, description: skill.description },
      description: skill.description,
      version: null,
      license: null,
      compatibility: null,
      allowed_tools: null,
      tags: [],
      when_to_use: [],
      when_not_to_use: [],
      requires: { mcp: [], tools: [] },
      content_hash: inventory.content_hash,
      tree_hash: inventory.tree_hash,
      files: inventory.files,
      total_bytes: inventory.total_bytes,
      has_scripts: inventory.has_scripts,
      outline: { total_tokens: 0, sections: [] },
      archives: { tar_gz: tarRef, zip: zipRef },
      trust: {
        source: skill.source ?? "first-party",
        validations: [],
        verdict: { level: requiresReview ? "unverified" : "first_party", blocked: false, requires_review: requiresReview, attachable: !requiresReview, reasons: [], warnings: [] },
      },
    };
    const recordDoc = await canonicalDocument(record);
    await bucket.put(r2Key("record", recordDoc.sha256), recordDoc.bytes);
    const skillMd = inventory.files.find((f) => f.path === "SKILL.md")!;
    const entry: SkillEntry = {
      name: skill.name,
      record: { sha256: recordDoc.sha256, size: recordDoc.size },
      description: skill.description,
      version: null,
      tags: [],
      when_to_use: [],
      when_not_to_use: [],
      content_hash: inventory.content_hash,
      tree_hash: inventory.tree_hash,
      has_scripts: inventory.has_scripts,
      file_count: inventory.files.length,
      total_bytes: inventory.total_bytes,
      skill_md: { sha256: skillMd.sha256, size: skillMd.size },
      archives: record.archives,
      trust: { source: record.trust.source, level: record.trust.verdict.level, requires_review: requiresReview, attachable: !requiresReview },
    };
    entries.push(entry);
    fileCount += inventory.files.length;
    totalBytes += inventory.total_bytes;
    out.entries.set(skill.name, entry);
    out.records.set(skill.name, record);
    out.files.set(skill.name, new Map(files.map((f) => [f.path, f.bytes])));
    out.archives.set(skill.name, { tarGz, zip });
  }

  const shardCount = shardCountFor(entries.length);
  const shards: GenerationManifest["shards"] = [];
  for (let index = 0; index < shardCount; index++) {
    const members = entries.filter((e) => shardOf(e.name, shardCount) === index).sort((a, b) => (a.name < b.name ? -1 : 1));
    if (members.length === 0) continue;
    const doc = await canonicalDocument({ schema: SHARD_SCHEMA, index, shard_count: shardCount, skills: members });
    await bucket.put(r2Key("shard", doc.sha256), doc.bytes);
    shards.push({ index, sha256: doc.sha256, size: doc.size, count: members.length });
  }
  const manifest: GenerationManifest = {
    schema: GENERATION_SCHEMA,
    shelf: { catalog_version: null, records: { validations: null, advisories: null, guidance: null, catalog: null }, advisories: null },
    skill_count: entries.length,
    file_count: fileCount,
    total_bytes: totalBytes,
    shard_count: shardCount,
    shards,
  };
  const manifestDoc = await canonicalDocument(manifest);
  out.generation = manifestDoc.sha256;
  await bucket.put(r2Key("generation", manifestDoc.sha256), manifestDoc.bytes);
  const seq = options.seq ?? 1;
  const publishedAt = options.publishedAt ?? "2026-11-30T10:00:00.000Z";
  await bucket.put(
    R2_POINTER_KEY,
    JSON.stringify({
      schema: POINTER_SCHEMA,
      generation: out.generation,
      seq,
      published_at: publishedAt,
      history: [{ seq, generation: out.generation, action: "publish", at: publishedAt }],
    }),
  );
  await setFixtureAdvisories(env, options.advisories ?? [], options.advisoriesSeq ?? 1);
  return out;
}

/** Replaces the advisories in force (the mutable record every route applies). */
export async function setFixtureAdvisories(env: { SHELF_BUCKET: R2Bucket }, advisories: Advisory[], seq: number): Promise<void> {
  await env.SHELF_BUCKET.put(R2_ADVISORIES_KEY, JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories, seq, updated_at: "2026-11-30T10:00:00.000Z" }));
}

async function canonicalBlob(bytes: Uint8Array): Promise<{ sha256: string; size: number }> {
  return { sha256: await sha256Hex(bytes), size: bytes.length };
}
