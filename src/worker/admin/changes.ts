// Writing the change document of a history entry: read what the two sides of the entry differ in
// (the shards they do not share, the names their lifecycles and advisories speak of, the records
// of changed skills), build the document with core (src/core/changes) and store it
// content-addressed, before the history entry that names it is written.
import { z } from "zod";
import { buildChangeDocument, changedNames, type ChangeDocument, type ChangeEntry, type ChangeSide, type ChangeSkill } from "../../core/changes/document.ts";
import { LifecycleSchema, type Lifecycle } from "../../core/changes/lifecycle.ts";
import type { TreeSnapshot } from "../../core/generation/diff.ts";
import { canonicalDocument } from "../../core/generation/canonical-json.ts";
import { shardOf, SkillRecordSchema, type AdvisoriesRecord, type GenerationManifest } from "../../core/generation/manifest.ts";
import { AdvisoryEntrySchema, type AdvisoryEntry } from "../../core/trust/records.ts";
import { changesKey, r2Key } from "../storage/keys.ts";
import { adminError } from "./errors.ts";
import type { AdminStorage } from "./storage.ts";

/** The entries of any stored shard version, as far as a change document reads them. */
const ShardEntriesSchema = z.looseObject({
  skills: z.array(
    z.looseObject({
      name: z.string(),
      version: z.string().nullable(),
      tree_hash: z.string(),
      has_scripts: z.boolean(),
      record: z.looseObject({ sha256: z.string() }),
      trust: z.looseObject({ source: z.string().nullable() }),
    }),
  ),
});
type ShardEntry = z.infer<typeof ShardEntriesSchema>["skills"][number];

/** A generation as one side of an entry: its id and manifest. */
export interface StoredGeneration {
  id: string;
  manifest: GenerationManifest;
}

/** The stored advisories (dict form) as core's entries; one that does not parse is left out (it cannot match). */
export function advisoryEntries(record: AdvisoriesRecord): AdvisoryEntry[] {
  return record.advisories.flatMap((raw) => {
    const parsed = AdvisoryEntrySchema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Reads shards and records once each (by digest), so two sides sharing them cost one read. */
class SideReader {
  readonly #storage: AdminStorage;
  readonly #shards = new Map<string, Promise<ShardEntry[]>>();
  constructor(storage: AdminStorage) {
    this.#storage = storage;
  }

  shard(sha256: string): Promise<ShardEntry[]> {
    let read = this.#shards.get(sha256);
    if (!read) {
      read = this.#storage.getJson(r2Key("shard", sha256)).then((stored) => {
        if (!stored) throw adminError("missing_references", `shard ${sha256} is not stored; rerun publish to upload it`);
        return ShardEntriesSchema.parse(stored.json).skills;
      });
      this.#shards.set(sha256, read);
    }
    return read;
  }

  async lifecycle(manifest: GenerationManifest): Promise<Lifecycle | null> {
    const ref = manifest.shelf.lifecycle;
    if (!ref) return null;
    const stored = await this.#storage.getJson(r2Key("blob", ref.sha256));
    if (!stored) throw adminError("missing_references", `the lifecycle blob ${ref.sha256} is not stored; rerun publish to upload it`);
    return LifecycleSchema.parse(stored.json);
  }

  async tree(entry: ShardEntry): Promise<TreeSnapshot> {
    const stored = await this.#storage.getJson(r2Key("record", entry.record.sha256));
    if (!stored) throw adminError("missing_references", `record ${entry.record.sha256} is not stored; rerun publish to upload it`);
    const record = SkillRecordSchema.parse(stored.json);
    return { name: record.name, tree_hash: record.tree_hash, files: record.files.map((f) => ({ path: f.path, sha256: f.sha256 })) };
  }
}

/**
 * The skills of a side that can differ from the other side: every skill in a shard the other side
 * does not share (same digest: same entries), plus `names` wherever they are.
 */
async function sideSkills(
  reader: SideReader,
  manifest: GenerationManifest,
  shared: ReadonlySet<string>,
  names: Iterable<string>,
): Promise<Map<string, ShardEntry>> {
  const wanted = new Set(manifest.shards.filter((s) => !shared.has(s.sha256)).map((s) => s.index));
  for (const name of names) wanted.add(shardOf(name, manifest.shard_count));
  const skills = new Map<string, ShardEntry>();
  const refs = manifest.shards.filter((s) => wanted.has(s.index));
  for (const entries of await Promise.all(refs.map((s) => reader.shard(s.sha256)))) for (const e of entries) skills.set(e.name, e);
  return skills;
}

const asChangeSkills = (entries: Map<string, ShardEntry>): Map<string, ChangeSkill> => new Map([...entries].map(([n, e]) => [n, e as ChangeSkill]));

/**
 * The change document of a move (publish, rollback) from `before` (null: the first publish) to
 * `after`, under the advisories in force. Reads the shards the two do not share, the lifecycle
 * blobs, and both records of up to MAX_FILE_DETAIL_SKILLS changed skills: proportional to the change.
 */
export async function moveChanges(
  storage: AdminStorage,
  entry: ChangeEntry,
  before: StoredGeneration | null,
  after: StoredGeneration,
  advisories: readonly AdvisoryEntry[],
): Promise<ChangeDocument> {
  const reader = new SideReader(storage);
  const [oldLifecycle, newLifecycle] = await Promise.all([before ? reader.lifecycle(before.manifest) : null, reader.lifecycle(after.manifest)]);
  const shared = new Set(before?.manifest.shards.map((s) => s.sha256).filter((sha) => after.manifest.shards.some((s) => s.sha256 === sha)) ?? []);
  // Deprecation and rename are judged by name wherever the skill sits, so those names are read on both sides.
  const named = [...Object.keys(oldLifecycle?.skills ?? {}), ...Object.keys(newLifecycle?.skills ?? {})];
  for (const r of Object.values(newLifecycle?.skills ?? {})) if (r.replaced_by) named.push(r.replaced_by);
  const [oldEntries, newEntries] = await Promise.all([
    before ? sideSkills(reader, before.manifest, shared, named) : Promise.resolve(new Map<string, ShardEntry>()),
    sideSkills(reader, after.manifest, shared, named),
  ]);
  const oldSide: ChangeSide | null = before ? { generation: before.id, skills: asChangeSkills(oldEntries), lifecycle: oldLifecycle, advisories } : null;
  const newSide: ChangeSide = { generation: after.id, skills: asChangeSkills(newEntries), lifecycle: newLifecycle, advisories };
  const trees = new Map<string, { before: TreeSnapshot; after: TreeSnapshot }>();
  await Promise.all(
    changedNames(oldSide, newSide).map(async (name) => {
      const [b, a] = await Promise.all([reader.tree(oldEntries.get(name)!), reader.tree(newEntries.get(name)!)]);
      trees.set(name, { before: b, after: a });
    }),
  );
  return buildChangeDocument(entry, oldSide, newSide, trees);
}

/**
 * The change document of an advisories change on `current`: which of its skills became blocked
 * or unblocked. Reads every shard of the generation once (an advisory may match by tree hash
 * under any name); advisory changes are rare and the shard count is bounded.
 */
export async function advisoryChanges(
  storage: AdminStorage,
  entry: ChangeEntry,
  current: StoredGeneration,
  before: readonly AdvisoryEntry[],
  after: readonly AdvisoryEntry[],
): Promise<ChangeDocument> {
  const reader = new SideReader(storage);
  const lifecycle = await reader.lifecycle(current.manifest);
  const skills = asChangeSkills(await sideSkills(reader, current.manifest, new Set(), []));
  const side = (advisories: readonly AdvisoryEntry[]): ChangeSide => ({ generation: current.id, skills, lifecycle, advisories });
  return buildChangeDocument(entry, side(before), side(after));
}

/**
 * Stores a change document content-addressed (the same document twice is one object) and gives
 * its digest for the history entry. Written before the pointer, so an entry never names a
 * document that is not stored.
 */
export async function storeChanges(storage: AdminStorage, doc: ChangeDocument): Promise<string> {
  const { sha256, bytes } = await canonicalDocument(doc);
  await storage.put(
    changesKey(sha256),
    bytes,
    { httpMetadata: { contentType: "application/json" } },
    "R2 did not store the change document; nothing changed. Retry shortly",
  );
  return sha256;
}
