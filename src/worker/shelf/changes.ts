// What changed on the shelf, for /v1/changes and the feeds: the pointer's history entries after a
// generation, a seq or a time, oldest first, a page at a time, each with its change document.
// Reads the pointer from R2 (the KV copy has no history) and one document per entry on the page.
import type { ChangesPage } from "../../core/api/changes.ts";
import type { FeedEntry } from "../../core/changes/atom.ts";
import type { HistoryEntry, Pointer } from "../../core/generation/manifest.ts";
import { readChangeDocument, readPointerHistory, type StorageBindings } from "../storage/index.ts";
import { NotOnShelfError } from "./errors.ts";

/**
 * The entries of `pointer`'s history after `since`, oldest first, at most `limit`, and where the
 * next page starts. A generation id starts after its newest entry; one the history does not
 * remember is a 404 (the client should start over from a seq or a time).
 * @example pageOf(pointer, "12", 20).entries[0].seq // 13
 */
export function pageOf(
  pointer: Pointer | null,
  since: string | undefined,
  limit: number,
): { entries: HistoryEntry[]; complete: boolean; next_since: number | null } {
  const ascending = [...(pointer?.history ?? [])].sort((a, b) => a.seq - b.seq);
  const oldest = ascending[0]?.seq ?? null;
  let after: (h: HistoryEntry) => boolean;
  let complete = true;
  if (since === undefined) {
    after = () => true;
    complete = oldest === null || oldest === 1;
  } else if (/^[0-9a-f]{64}$/.test(since)) {
    const newest = ascending.filter((h) => h.generation === since).at(-1);
    if (!newest) throw NotOnShelfError.historyGeneration(since);
    after = (h) => h.seq > newest.seq;
  } else if (/^\d+$/.test(since)) {
    const seq = Number(since);
    after = (h) => h.seq > seq;
    complete = oldest === null || oldest <= seq + 1;
  } else {
    const time = Date.parse(since);
    after = (h) => Date.parse(h.at) > time;
    complete = oldest === null || oldest === 1 || Date.parse(ascending[0]!.at) <= time;
  }
  const matching = ascending.filter(after);
  const entries = matching.slice(0, limit);
  return { entries, complete, next_since: matching.length > limit ? entries.at(-1)!.seq : null };
}

/** The pointer with its whole history (one R2 read); null when nothing has been published. */
export function shelfHistory(env: StorageBindings): Promise<Pointer | null> {
  return readPointerHistory(env);
}

/**
 * What names a history state in an ETag or a cache key: its seq, and its newest entry's time and
 * generation. The seq alone does not: a bucket restored from a backup, or another shelf served by
 * the same isolate (tests), can reach the same seq with other entries.
 * @example historyTag(pointer) // => "7-miz3k2x0-2f7c3fd1dbf3"
 */
export function historyTag(pointer: Pointer | null): string {
  const newest = pointer?.history[0];
  if (pointer === null || newest === undefined) return String(pointer?.seq ?? 0);
  const at = Date.parse(newest.at);
  return `${pointer.seq}-${Number.isNaN(at) ? "t" : at.toString(36)}-${newest.generation.slice(0, 12)}`;
}

/**
 * A page of /v1/changes: the history after `since`, with each entry's change document.
 * @example await changesPage(env, await shelfHistory(env), "2026-12-01T00:00:00Z", 20)
 */
export async function changesPage(env: StorageBindings, pointer: Pointer | null, since: string | undefined, limit: number): Promise<ChangesPage> {
  const page = pageOf(pointer, since, limit);
  const entries = await Promise.all(
    page.entries.map(async (h) => ({
      seq: h.seq,
      action: h.action,
      at: h.at,
      generation: h.generation,
      changes: h.changes ? await readChangeDocument(env, h.changes) : null,
    })),
  );
  const oldest = pointer?.history.at(-1)?.seq ?? null;
  return {
    current: pointer ? { generation: pointer.generation, seq: pointer.seq } : null,
    oldest_seq: oldest,
    complete: page.complete,
    entries,
    next_since: page.next_since,
  };
}

/** History entries a feed reads at most: each may cost one change-document read when cold. */
export const FEED_ENTRIES = 50;

/**
 * The newest `limit` history entries with their change documents, newest first (the feeds, and
 * the home page's "what's new").
 * @example await recentChanges(env, await shelfHistory(env), 5)
 */
export async function recentChanges(env: StorageBindings, pointer: Pointer | null, limit: number = FEED_ENTRIES): Promise<FeedEntry[]> {
  return Promise.all(
    newestEntries(pointer, limit).map(async (h) => ({
      seq: h.seq,
      action: h.action,
      at: h.at,
      generation: h.generation,
      changes: h.changes ? await readChangeDocument(env, h.changes) : null,
    })),
  );
}

/** The newest `limit` history entries, newest first: the ones {@link recentChanges} reads. */
function newestEntries(pointer: Pointer | null, limit: number): HistoryEntry[] {
  return [...(pointer?.history ?? [])].sort((a, b) => b.seq - a.seq).slice(0, limit);
}

/**
 * A string naming everything {@link recentChanges} returns for `pointer`, without reading a change
 * document: each entry's seq, action, time, generation and its change document's digest (the
 * documents are stored under their digest, so the digest names the content). For cache keys of
 * what is rendered from them (the feeds).
 * @example recentChangesKey(pointer) // '[[3,"publish","2026-12-02T09:00:00Z","9f2c…","a41b…"],…]'
 */
export function recentChangesKey(pointer: Pointer | null, limit: number = FEED_ENTRIES): string {
  return JSON.stringify(newestEntries(pointer, limit).map((h) => [h.seq, h.action, h.at, h.generation, h.changes ?? null]));
}
