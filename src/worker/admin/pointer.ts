// The one mutable pointer to the current generation: read, moved by compare-and-swap on its R2
// etag (publish), moved back to a generation its history remembers (rollback), and its history.
// Two publishers cannot both win; the loser changes nothing.
import { generationReferences } from "../../core/generation/graph.ts";
import { isEmptyChange, type ChangeDocument } from "../../core/changes/document.ts";
import {
  GenerationManifestSchema,
  HISTORY_LIMIT,
  POINTER_SCHEMA,
  PointerSchema,
  type AdvisoriesRecord,
  type GenerationManifest,
  type Pointer,
} from "../../core/generation/manifest.ts";
import { POINTER_MOVED, type History } from "../../core/publish/contract.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import type { Clock } from "../storage/index.ts";
import { KV_POINTER_KEY, r2Key, R2_POINTER_KEY } from "../storage/keys.ts";
import { readAdvisories } from "./advisories.ts";
import { advisoryChanges, advisoryEntries, moveChanges, storeChanges } from "./changes.ts";
import { adminError } from "./errors.ts";
import type { ShelfError } from "../errors.ts";
import { assertNoGcRunning } from "./gc-lease.ts";
import { NOTHING_CHANGED, type AdminStorage } from "./storage.ts";
import { missingAmong } from "./uploads.ts";

/** The pointer and its R2 etag, or null when nothing has been published. */
export async function readPointer(storage: AdminStorage): Promise<{ pointer: Pointer; etag: string } | null> {
  const stored = await storage.getJson(R2_POINTER_KEY, { failure: "R2 did not answer; retry shortly" });
  return stored ? { pointer: PointerSchema.parse(stored.json), etag: stored.etag } : null;
}

/** A history entry just written: the pointer as stored, and the entry's change document (null when it could not be written). */
export interface RecordedEntry {
  pointer: Pointer;
  changes: { sha256: string; document: ChangeDocument } | null;
}

/** The history view of the pointer: the current generation, its seq, and its moves, newest first. */
export function historyOf(current: { pointer: Pointer } | null): History {
  return { current: current?.pointer.generation ?? null, seq: current?.pointer.seq ?? 0, history: current?.pointer.history ?? [] };
}

/**
 * Moves the pointer to `generation` if it still names `previous` (null: nothing published
 * yet). Conflicts answer 409 pointer_moved and change nothing; two publishers cannot both win
 * because the R2 write is conditional on the etag read here.
 */
export async function movePointer(
  storage: AdminStorage,
  clock: Clock,
  generation: string,
  previous: string | null,
  action: "publish" | "rollback",
  /** A policy the target must meet once it is known complete (signatures: admin/signatures.ts). */
  policy: (generation: string) => Promise<void> = async () => {},
): Promise<RecordedEntry> {
  if (!isSha256Hex(generation)) throw adminError("invalid_request", "generation must be a 64-character lowercase hex id");
  if (previous !== null && !isSha256Hex(previous)) throw adminError("invalid_request", "previous must be a generation id or null");
  const current = await readPointer(storage);
  const currentId = current?.pointer.generation ?? null;
  if (currentId !== previous) {
    throw adminError(
      POINTER_MOVED,
      `the current generation is ${currentId ?? "none"}, not ${previous ?? "none"}; another publish won. Re-run to publish on top of it`,
      { current: currentId },
    );
  }
  await assertNoGcRunning(storage, clock);
  const sides = await verifyGenerationComplete(storage, generation, current?.pointer ?? null);
  await policy(generation);
  const now = new Date(clock()).toISOString();
  const seq = (current?.pointer.seq ?? 0) + 1;
  const changes = await recordChanges(storage, async () => {
    const advisories = advisoryEntries((await readAdvisories(storage)).record);
    const before = currentId && sides.current ? { id: currentId, manifest: sides.current } : null;
    return moveChanges(storage, { seq, action, at: now }, before, { id: generation, manifest: sides.target }, advisories);
  });
  const pointer: Pointer = {
    schema: POINTER_SCHEMA,
    generation,
    seq,
    published_at: now,
    history: [{ seq, generation, action, at: now, ...(changes ? { changes: changes.sha256 } : {}) }, ...(current?.pointer.history ?? [])].slice(
      0,
      HISTORY_LIMIT,
    ),
  };
  const written = await storage.put(
    R2_POINTER_KEY,
    JSON.stringify(pointer),
    { onlyIf: current ? { etagMatches: current.etag } : { etagDoesNotMatch: "*" }, httpMetadata: { contentType: "application/json" } },
    "R2 did not store the pointer; nothing changed. Retry shortly",
  );
  if (written === null) {
    const now2 = await readPointer(storage);
    throw adminError(POINTER_MOVED, "another publish moved the pointer at the same moment; nothing changed. Re-run to publish on top of it", {
      current: now2?.pointer.generation ?? null,
    });
  }
  await storage.kvPut(KV_POINTER_KEY, JSON.stringify({ generation, seq, published_at: now }));
  return { pointer, changes };
}

/** Rolls back (or forward) to a generation the history remembers. */
export async function rollback(
  storage: AdminStorage,
  clock: Clock,
  generation: string,
  previous: string | null,
  policy?: (generation: string) => Promise<void>,
): Promise<RecordedEntry> {
  const current = await readPointer(storage);
  if (!current) throw adminError("conflict", "nothing has been published yet; there is nothing to roll back");
  if (!current.pointer.history.some((h) => h.generation === generation)) {
    throw adminError("unknown_generation", `generation ${generation} is not in the history; list it with skillshelf history`);
  }
  return movePointer(storage, clock, generation, previous, "rollback", policy);
}

/** 410 for a generation the history remembers but gc has collected, saying how to bring it back. */
function collected(generation: string): ShelfError {
  return adminError(
    "generation_collected",
    `generation ${generation} was collected by gc: the history remembers it, but its objects are no longer stored, so it cannot be made current again as it is. ` +
      "To bring it back, rebuild the shelf as it was then (`skillshelf build <shelf-dir> --out <dir>`; the same shelf always gives the same generation id) " +
      "and run `skillshelf publish --url <worker-url> --dir <dir>`, which uploads what gc removed and makes it current. Nothing changed",
  );
}

/**
 * Checks, just before the pointer moves, that the generation is stored and that every shard it
 * does not share with the current generation still is: present implies complete below it, and
 * gc (which deletes only under its lease, never during a move) may have removed old objects a
 * publish reused. Reads two manifests and heads the changed shards: proportional to the change.
 */
async function verifyGenerationComplete(
  storage: AdminStorage,
  generation: string,
  pointer: Pointer | null,
): Promise<{ target: GenerationManifest; current: GenerationManifest | null }> {
  const currentId = pointer?.generation ?? null;
  const read = async (id: string) => {
    const stored = await storage.getJson(r2Key("generation", id), { failure: NOTHING_CHANGED });
    return stored ? GenerationManifestSchema.parse(stored.json) : null;
  };
  const [target, current] = await Promise.all([read(generation), currentId ? read(currentId) : Promise.resolve(null)]);
  if (!target) {
    // One the history remembers was stored once and made current: gc has collected it since.
    if (pointer?.history.some((h) => h.generation === generation)) throw collected(generation);
    throw adminError("missing_references", `generation ${generation} is not stored; upload its manifest first (or rerun publish)`, {
      missing: [r2Key("generation", generation)],
    });
  }
  const shared = new Set(current?.shards.map((s) => s.sha256) ?? []);
  const changed = generationReferences(target)
    .filter((ref) => ref.kind !== "shard" || !shared.has(ref.sha256))
    .map((ref) => ({ key: r2Key(ref.kind, ref.sha256), size: ref.size! }));
  const missing = await missingAmong(storage, changed, NOTHING_CHANGED);
  if (missing.length) {
    throw adminError(
      "missing_references",
      `generation ${generation} references ${missing.length} object(s) that are no longer stored (collected by gc); rerun publish to upload them again`,
      { missing: missing.slice(0, 50) },
    );
  }
  return { target, current };
}

/**
 * Builds and stores an entry's change document, giving its digest. A failure to build one is
 * logged and the entry is written without it (readers show it as unknown): the document
 * describes the move and must never be the reason a publish, rollback or advisory fails.
 */
async function recordChanges(storage: AdminStorage, build: () => Promise<ChangeDocument>): Promise<RecordedEntry["changes"]> {
  try {
    const document = await build();
    return { sha256: await storeChanges(storage, document), document };
  } catch (error) {
    console.error("change document not written", error);
    return null;
  }
}

/**
 * Adds an `advisory` entry to the history when the advisories in force changed what is blocked
 * on the current generation (nothing published: nothing to record). The generation, its publish
 * time and what readers serve stay as they are; the seq moves, so readers revalidate. Retried
 * when a publish moves the pointer at the same moment; never fails the advisory change itself.
 * Gives the entry written, or null when none was.
 */
export async function recordAdvisoryChange(
  storage: AdminStorage,
  clock: Clock,
  before: AdvisoriesRecord,
  after: AdvisoriesRecord,
): Promise<RecordedEntry | null> {
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await readPointer(storage);
      if (!current) return null;
      const stored = await storage.getJson(r2Key("generation", current.pointer.generation));
      if (!stored) return null;
      const manifest = GenerationManifestSchema.parse(stored.json);
      const now = new Date(clock()).toISOString();
      const seq = current.pointer.seq + 1;
      const doc = await advisoryChanges(
        storage,
        { seq, action: "advisory", at: now },
        { id: current.pointer.generation, manifest },
        advisoryEntries(before),
        advisoryEntries(after),
      );
      if (isEmptyChange(doc)) return null;
      const changes = await storeChanges(storage, doc);
      const pointer: Pointer = {
        ...current.pointer,
        seq,
        history: [{ seq, generation: current.pointer.generation, action: "advisory" as const, at: now, changes }, ...current.pointer.history].slice(
          0,
          HISTORY_LIMIT,
        ),
      };
      const written = await storage.put(
        R2_POINTER_KEY,
        JSON.stringify(pointer),
        { onlyIf: { etagMatches: current.etag }, httpMetadata: { contentType: "application/json" } },
        "R2 did not store the pointer",
      );
      if (written) {
        await storage.kvPut(KV_POINTER_KEY, JSON.stringify({ generation: pointer.generation, seq, published_at: pointer.published_at }));
        return { pointer, changes: { sha256: changes, document: doc } };
      }
    }
    console.error("advisory history entry not written: the pointer moved three times in a row");
  } catch (error) {
    console.error("advisory history entry not written", error);
  }
  return null;
}
