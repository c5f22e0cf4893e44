// The ShelfView the routes read, over src/worker/storage's Generation. The current generation
// comes from openGeneration; a pinned one (/g/<id>/…) from openGenerationById, which reads the
// manifest stored under that id like every immutable document and serves it with the
// advisories in force now, so a rollback or an old URL never resurrects a blocked skill.
import { Generation, openGeneration, openGenerationById, type StorageBindings } from "../storage/index.ts";
import type { OpenShelfView, ShelfView } from "./shelf-view.ts";

function asView(gen: Generation, current: boolean): ShelfView {
  return {
    generation: gen.id,
    publishedAt: current ? gen.publishedAt : null,
    pointerSeq: current ? gen.seq : null,
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
  const pinned = await openGenerationById(env, generation);
  return pinned ? asView(pinned, false) : null;
};
