// The in-isolate memory cache in front of KV: a least-recently-used map bounded by bytes, so a
// warm isolate answers from memory and a 10,000-skill shelf cannot exhaust the 128 MB isolate.

/** A byte-bounded LRU map. Sizes are what the caller says a value costs (its JSON length). */
export class MemoryCache<V> {
  readonly #entries = new Map<string, { value: V; size: number }>();
  #bytes = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The cached value, marked most recently used; undefined on a miss. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
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
    this.#entries.set(key, { value, size });
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.size;
    }
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
