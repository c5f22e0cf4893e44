// The ShelfView the routes read, over src/worker/storage's Generation. The current generation
// comes from openGeneration; a pinned one (/g/<id>/…) is the manifest stored under that id,
// read through memory, KV, then R2 like every immutable document, and served with the
// advisories in force now, so a rollback or an old URL never resurrects a blocked skill.
import { GenerationManifestSchema, type GenerationManifest } from "../../core/manifest.ts";
import { Generation, openGeneration, StorageUnavailableError, type StorageBindings } from "../storage/index.ts";
import { kvKey, r2Key } from "../storage/keys.ts";
import { KV_REQUEST_BYTE_BUDGET } from "../storage/reader.ts";
import type { OpenShelfView, ShelfView } from "./shelf-view.ts";

// Generation manifests are immutable and small; an isolate keeps the few pinned ones it serves.
const pinnedManifests = new Map<string, GenerationManifest>();
const PINNED_MANIFEST_LIMIT = 16;

/** Reads a pinned generation's manifest; null when no generation has that id. */
async function readPinnedManifest(env: StorageBindings, id: string): Promise<GenerationManifest | null> {
  const cached = pinnedManifests.get(id);
  if (cached) return cached;
  let text: string | null = null;
  try {
    text = await env.SHELF_KV.get(kvKey("generation", id), { type: "text", cacheTtl: 86_400 });
  } catch (err) {
    console.warn("KV read of a pinned generation failed; falling back to R2", err);
  }
  if (text === null) {
    let object: R2ObjectBody | null;
    try {
      object = await env.SHELF_BUCKET.get(r2Key("generation", id));
      text = object === null ? null : await object.text();
    } catch (err) {
      throw new StorageUnavailableError(`R2 read of generation ${id} failed`, { cause: err });
    }
  }
  if (text === null) return null;
  const parsed = GenerationManifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new StorageUnavailableError(`generation ${id} does not match its schema`);
  if (pinnedManifests.size >= PINNED_MANIFEST_LIMIT) pinnedManifests.delete(pinnedManifests.keys().next().value!);
  pinnedManifests.set(id, parsed.data);
  return parsed.data;
}

function asView(gen: Generation, current: boolean): ShelfView {
  return {
    generation: gen.id,
    publishedAt: current ? gen.publishedAt : null,
    manifest: gen.manifest,
    advisories: { advisories: gen.advisories, seq: gen.advisoriesSeq },
    entries: () => gen.listSkills(),
    entry: async (name) => (await gen.findSkill(name)) ?? null,
    record: (entry) => gen.readRecord(entry),
    openBlob: (sha256, range) => gen.openBlob(sha256, range),
  };
}

/**
 * Opens the current generation, or the pinned one when `generation` is given (null when that id
 * is unknown or nothing is published).
 * @example const view = await openStorageView(c.env, c.req.param("generation"))
 */
export const openStorageView: OpenShelfView<StorageBindings> = async (env, generation) => {
  const current = await openGeneration(env);
  if (!current) return null;
  if (generation === undefined || generation === current.id) return asView(current, generation === undefined);
  const manifest = await readPinnedManifest(env, generation);
  if (!manifest) return null;
  // The Generation class is the storage layer's reader; only the manifest differs.
  // A per-request KV budget like the reader's own, so a pinned listing stays under 2 MB of KV.
  const budget = {
    bytes: 0,
    fits(size: number): boolean {
      return this.bytes + size <= KV_REQUEST_BYTE_BUDGET;
    },
  };
  const pinned = new Generation(
    env,
    budget,
    { generation, seq: 0, published_at: "" },
    manifest,
    { advisories: [...current.advisories], seq: current.advisoriesSeq },
  );
  return asView(pinned, false);
};
