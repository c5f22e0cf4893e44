// The generation graph, written once: which objects a stored document references (manifest →
// shards, the advisories blob and the search index, shard → records and its blob list, record → blobs), and a
// top-down walk over it that the publish client, the upload verifier, gc and the build share.
import type { GenerationManifest, SkillRecord } from "./manifest.ts";
import { GenerationManifestSchema, ShardReferencesSchema, SkillRecordSchema } from "./manifest.ts";

/** The kinds of content-addressed object a generation stores, each under its own prefix. */
export type ObjectKind = "blob" | "record" | "shard" | "generation";
/** The kinds stored as canonical JSON documents (everything but blobs). */
export type DocumentKind = Exclude<ObjectKind, "blob">;

/** Every kind, parents first: the order a walk reads and gc deletes in (uploads go the other way). */
export const OBJECT_KINDS_TOP_DOWN: readonly ObjectKind[] = ["generation", "shard", "record", "blob"];

/** One reference from a document to a stored object; `size` is null when the document does not say. */
export interface ObjectRef {
  kind: ObjectKind;
  sha256: string;
  size: number | null;
}

/** A shard as far as the graph needs it: any stored version (shard/1 had no entry paths, the earliest no blob list). */
export interface ShardLinks {
  skills: readonly { record: { sha256: string; size: number } }[];
  blobs?: readonly string[];
}

/**
 * Every blob a record references: its files, then its archives (.tar.gz, .zip, and the Claude Code
 * plugin zip when the record has one); a blob may repeat when two files have the same bytes.
 * @example recordBlobs(record).map((b) => b.sha256)
 */
export function recordBlobs(record: Pick<SkillRecord, "files" | "archives">): { sha256: string; size: number }[] {
  const { tar_gz: tarGz, zip, claude_plugin: plugin } = record.archives;
  return [
    ...record.files.map((f) => ({ sha256: f.sha256, size: f.size })),
    { sha256: tarGz.sha256, size: tarGz.size },
    { sha256: zip.sha256, size: zip.size },
    ...(plugin ? [{ sha256: plugin.sha256, size: plugin.size }] : []),
  ];
}

/** What a manifest references: its shards, then the build's advisories and lifecycle blobs and the search index blob when it has them. */
export function generationReferences(manifest: Pick<GenerationManifest, "shards" | "shelf" | "search">): ObjectRef[] {
  const refs: ObjectRef[] = manifest.shards.map((s) => ({ kind: "shard", sha256: s.sha256, size: s.size }));
  const advisories = manifest.shelf.advisories;
  if (advisories) refs.push({ kind: "blob", sha256: advisories.sha256, size: advisories.size });
  const lifecycle = manifest.shelf.lifecycle;
  if (lifecycle) refs.push({ kind: "blob", sha256: lifecycle.sha256, size: lifecycle.size });
  if (manifest.search) refs.push({ kind: "blob", sha256: manifest.search.sha256, size: manifest.search.size });
  return refs;
}

/** What a shard references: its records, then its blob list (absent on the earliest shard/1 documents). */
export function shardReferences(shard: ShardLinks): ObjectRef[] {
  const refs: ObjectRef[] = shard.skills.map((s) => ({ kind: "record", sha256: s.record.sha256, size: s.record.size }));
  for (const sha256 of shard.blobs ?? []) refs.push({ kind: "blob", sha256, size: null });
  return refs;
}

/** What a record references: its files' blobs and its archives. */
export function recordReferences(record: Pick<SkillRecord, "files" | "archives">): ObjectRef[] {
  return recordBlobs(record).map((b) => ({ kind: "blob", sha256: b.sha256, size: b.size }));
}

/** Options for {@link walkGeneration}. */
export interface WalkOptions {
  /** Where the walk starts, by kind (publish: the generation; gc: the kept generations and every young object). */
  roots: Partial<Record<ObjectKind, Iterable<string>>>;
  /**
   * Of the objects one level reached, which to take: the walk reads and descends into only
   * these (publish: the ones the Worker lacks, since a stored object is complete; gc: the ones
   * stored). Called once per kind, parents first, blobs included.
   */
  select(kind: ObjectKind, shas: readonly string[]): Promise<Iterable<string>> | Iterable<string>;
  /** The parsed JSON of a stored document. */
  read(kind: DocumentKind, sha256: string): Promise<unknown>;
  /**
   * Take a shard's blob list for its records' blobs instead of reading the records (gc: ~256
   * shards instead of 10,000 records). Records only a listless shard (or no shard) reaches are
   * still read. Publish reads its records anyway, to upload them, and asks only about their blobs.
   */
  trustShardBlobLists?: boolean;
}

/** What a walk found, by kind. */
export interface GenerationWalk {
  /** Every object reached (a root, or referenced by a document read), with its size when known. */
  reached: Record<ObjectKind, Map<string, number | null>>;
  /** The objects `select` took, in the order it gave them. */
  selected: Record<ObjectKind, string[]>;
}

/**
 * Walks generations top-down, one kind at a time (generations, shards, records, blobs), asking
 * `select` which objects of each level to take and reading only the documents it takes.
 * @example
 * const walk = await walkGeneration({ roots: { generation: [id] }, select: missing, read });
 * walk.selected.blob // the blobs to upload
 */
export async function walkGeneration(options: WalkOptions): Promise<GenerationWalk> {
  const reached = { generation: new Map(), shard: new Map(), record: new Map(), blob: new Map() } as GenerationWalk["reached"];
  const selected: GenerationWalk["selected"] = { generation: [], shard: [], record: [], blob: [] };
  const reach = (ref: ObjectRef) => {
    const known = reached[ref.kind].get(ref.sha256);
    if (known === undefined || known === null) reached[ref.kind].set(ref.sha256, ref.size);
  };
  for (const kind of OBJECT_KINDS_TOP_DOWN) for (const sha256 of options.roots[kind] ?? []) reach({ kind, sha256, size: null });
  // Records whose blobs a shard's list already gave, unless some listless shard reaches them too.
  const coveredRecords = new Set<string>();
  const listlessRecords = new Set<string>();

  for (const kind of OBJECT_KINDS_TOP_DOWN) {
    selected[kind] = [...(await options.select(kind, [...reached[kind].keys()]))];
    if (kind === "blob") break;
    for (const sha256 of selected[kind]) {
      if (kind === "record" && options.trustShardBlobLists && coveredRecords.has(sha256) && !listlessRecords.has(sha256)) continue;
      const json = await options.read(kind, sha256);
      if (kind === "generation") generationReferences(GenerationManifestSchema.parse(json)).forEach(reach);
      else if (kind === "record") recordReferences(SkillRecordSchema.parse(json)).forEach(reach);
      else {
        const shard = ShardReferencesSchema.parse(json);
        for (const ref of shardReferences(shard)) {
          if (ref.kind === "blob" && !options.trustShardBlobLists) continue;
          reach(ref);
          if (ref.kind === "record") (shard.blobs && options.trustShardBlobLists ? coveredRecords : listlessRecords).add(ref.sha256);
        }
      }
    }
  }
  return { reached, selected };
}
