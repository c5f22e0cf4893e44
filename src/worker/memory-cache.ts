// The in-isolate memory cache in front of KV: a least-recently-used map bounded by bytes, so a
// warm isolate answers from memory and a 10,000-skill shelf cannot exhaust the 128 MB isolate.

/**
 * A byte-bounded LRU map. Sizes are what the caller says a value costs (its JSON length). A hit
 * moves its entry to the newest end only once it has drifted into the older half (more than half
 * the entry count of insertions and moves ago): a hot entry, read on every request, stays in the
 * newer half without a delete and an insert per read, and eviction, oldest first, reaches it last.
 */
export class MemoryCache<V> {
  readonly #entries = new Map<string, { value: V; size: number; at: number }>();
  #bytes = 0;
  /** Counts insertions and moves; an entry's `at` is its count when it last reached the newest end. */
  #tick = 0;
  readonly maxBytes: number;
  readonly #onEvict: (() => void) | undefined;

  /** `onEvict` runs after `set` evicted entries to stay within the budget (not on delete or clear). */
  constructor(maxBytes: number, onEvict?: () => void) {
    this.maxBytes = maxBytes;
    this.#onEvict = onEvict;
  }

  /** The cached value, kept in the newer half of the eviction order; undefined on a miss. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#tick - entry.at > this.#entries.size >> 1) {
      this.#entries.delete(key);
      entry.at = ++this.#tick;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores a value, evicting the least recently used entries beyond the byte budget. */
  set(key: string, value: V, size: number): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.size;
      this.#entries.delete(key);
    }
    if (size > this.maxBytes) return;
    this.#entries.set(key, { value, size, at: ++this.#tick });
    this.#bytes += size;
    let evicted = false;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.size;
      evicted = true;
    }
    if (evicted) this.#onEvict?.();
  }

  /** Forgets one entry. */
  delete(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#bytes -= old.size;
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  get bytes(): number {
    return this.#bytes;
  }
}
