// Search over one request's shelf: the generation's stored index (src/core/search), read once per
// isolate and kept decoded in memory, ranked for a query, with the skills an advisory in force
// blocks left out. A generation published before the index existed is indexed from its shard
// entries (no section titles) once per isolate instead.
import { lifecycleOf } from "../../core/changes/lifecycle.ts";
import {
  buildSearchIndex,
  prepareSearchIndex,
  searchIndex,
  SearchIndexError,
  type PreparedSearchIndex,
  type SearchHit,
  type SearchQuery,
} from "../../core/search/bm25.ts";
import { MemoryCache } from "../memory-cache.ts";
import { StorageUnavailableError } from "../storage/errors.ts";
import type { ServedSkill, ShelfService } from "./service.ts";

/**
 * Decoded indexes one isolate keeps, in estimated heap bytes. A 1,000-skill index is a few
 * hundred KB of JSON, so this holds the current generation's and a few pinned ones.
 */
const INDEX_CACHE_BYTES = 16 * 1024 * 1024;
/** Estimated heap bytes per character of index JSON once parsed (number arrays; a used term's postings decoded besides). */
const HEAP_BYTES_PER_INDEX_CHAR = 3;

const indexes = new MemoryCache<PreparedSearchIndex>(INDEX_CACHE_BYTES);

/** Forgets every decoded index (tests that count storage reads start cold). */
export function resetSearchIndexCache(): void {
  indexes.clear();
}

/**
 * The request's generation's index, decoded: from memory, else its stored blob (one R2 read,
 * checked against the manifest's digest), else, for a manifest without one, built from the
 * shard entries. Cached by the blob's digest, or by generation id for a built one.
 * @throws StorageUnavailableError when the stored index is unreadable or malformed
 */
export async function searchIndexOf(shelf: ShelfService): Promise<PreparedSearchIndex> {
  const generation = await shelf.generation();
  const ref = generation.manifest.search;
  const key = ref ? `blob:${ref.sha256}` : `entries:${generation.id}`;
  const cached = indexes.get(key);
  if (cached) return cached;
  let prepared: PreparedSearchIndex;
  let size: number;
  if (ref) {
    const text = await generation.readJsonBlob(ref);
    try {
      prepared = prepareSearchIndex(JSON.parse(text));
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof SearchIndexError)
        throw new StorageUnavailableError(`the search index of ${generation.id} is malformed`, { cause: err });
      throw err;
    }
    size = text.length * HEAP_BYTES_PER_INDEX_CHAR;
  } else {
    const entries = await generation.listSkills();
    const document = buildSearchIndex(
      entries.map((e) => ({ name: e.name, description: e.description, tags: e.tags, when_to_use: e.when_to_use, sections: [] })),
    );
    prepared = prepareSearchIndex(document);
    size = JSON.stringify(document).length * HEAP_BYTES_PER_INDEX_CHAR;
  }
  indexes.set(key, prepared, size);
  return prepared;
}

/** One ranked, servable skill. */
export interface RankedSkill {
  skill: ServedSkill;
  score: number;
}

/**
 * The servable skills best matching a query, best first (ties by name), deprecated ones after
 * all others (or omitted), at most `limit`. Reads the index and the shards of the skills it ranks,
 * not every shard: only a skill an advisory in force matches can be unservable, and one advisory
 * matches at most two of a generation's skills (one by tree hash, one by name and source; two
 * skills cannot share a tree hash, whose files include SKILL.md and its name), so ranking that many
 * more than `limit` and dropping the blocked ones gives what ranking only servable skills would.
 * A query with no terms (only common words) matches nothing and reads nothing.
 * @example const ranked = await searchShelf(c.get("shelf"), parseQuery("flaky test in CI"), 10)
 */
export async function searchShelf(
  shelf: ShelfService,
  query: SearchQuery,
  limit: number,
  /** Skills lifecycle.yaml deprecates: ranked after every other match ("last"), or left out ("omit", as `skills find` wants). */
  deprecated: "last" | "omit" = "last",
): Promise<RankedSkill[]> {
  if (query.terms.length === 0) return [];
  const [index, lifecycle, generation] = await Promise.all([searchIndexOf(shelf), shelf.lifecycle(), shelf.generation()]);
  // Only an active advisory blocks (evaluateTrust passes over the others).
  const blockable = 2 * generation.advisories.filter((a) => a.status === "active").length;
  const isDeprecated = (name: string) => lifecycleOf(lifecycle, name).deprecated !== null;
  let hits: SearchHit[];
  try {
    hits = searchIndex(index, query.terms, { limit: limit + blockable, accept: (name) => !isDeprecated(name) });
    // Fewer than asked for: every match is in, and deprecated ones may fill what is left.
    if (deprecated === "last" && lifecycle && hits.length < limit + blockable) {
      hits.push(...searchIndex(index, query.terms, { limit: limit + blockable - hits.length, accept: (name) => isDeprecated(name) }));
    }
  } catch (err) {
    // A term's postings are checked when first used: a malformed stored index is a storage inconsistency.
    if (err instanceof SearchIndexError) throw new StorageUnavailableError(`the search index of ${generation.id} is malformed`, { cause: err });
    throw err;
  }
  if (hits.length === 0) return [];
  // The ranked skills as served (blocked ones absent), from the shards they live in alone.
  const names = new Set(hits.map((hit) => hit.name));
  const served = new Map((await shelf.skillsInShelfOrder(undefined, names.size, names)).skills.map((s) => [s.name, s]));
  return hits
    .filter((hit) => served.has(hit.name))
    .slice(0, limit)
    .map((hit) => ({ skill: served.get(hit.name)!, score: hit.score }));
}
