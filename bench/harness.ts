// What every benchmark that runs the Worker in Node shares: in-memory stand-ins for the R2 and
// KV bindings (what the read path calls: get with ranges, head; KV that holds nothing, so every
// read falls back to R2, as on a shelf whose KV copies expired), optionally counting each call,
// and the CPU-per-call measurement every table reports.

/** A storage call the read path makes, as the counting benchmarks name it. */
export type StorageCall = "R2.get" | "R2.head" | "KV.get";

const encoder = new TextEncoder();

/** In-memory R2: get (with ranges) and head as the read path calls them; put seeds it, uncounted. */
export class MemoryBucket {
  readonly objects = new Map<string, Uint8Array>();
  readonly #onCall: (call: StorageCall) => void;

  constructor(onCall: (call: StorageCall) => void = () => {}) {
    this.#onCall = onCall;
  }

  async put(key: string, value: Uint8Array | string): Promise<void> {
    this.objects.set(key, typeof value === "string" ? encoder.encode(value) : value);
  }

  async get(key: string, options: { range?: { offset: number; length: number } } = {}) {
    this.#onCall("R2.get");
    const stored = this.objects.get(key);
    if (stored === undefined) return null;
    const bytes = options.range ? stored.slice(options.range.offset, options.range.offset + options.range.length) : stored;
    return {
      key,
      size: stored.byteLength,
      text: async () => new TextDecoder().decode(bytes),
      arrayBuffer: async () => bytes.slice().buffer,
      get body() {
        return new Response(bytes).body;
      },
    };
  }

  async head(key: string) {
    this.#onCall("R2.head");
    const stored = this.objects.get(key);
    return stored === undefined ? null : { key, size: stored.byteLength, checksums: {} };
  }
}

/** In-memory KV that holds nothing: every read falls back to R2. */
export function emptyKv(onCall: (call: StorageCall) => void = () => {}) {
  return {
    async get(key: string | string[]) {
      onCall("KV.get");
      return Array.isArray(key) ? new Map(key.map((k) => [k, null])) : null;
    },
  };
}

/** Mean CPU milliseconds per call: the whole process (GC threads included) and the main thread. */
export interface Cpu {
  process: number;
  thread: number;
}

/**
 * Mean CPU per call over `runs` sequential calls, after warm-up and one full GC; `before` runs
 * inside the timed loop (it only clears a cache). GC during the loop is counted: it is part of
 * the cost. Each call awaits its own promise, and the bindings answer from memory, so no call
 * waits on I/O.
 * @example row("GET, hit", await cpuPerCall(() => request(path), 100))
 */
export async function cpuPerCall(fn: () => unknown, runs: number, before: () => void = () => {}): Promise<Cpu> {
  for (let i = 0; i < 3; i++) {
    before();
    await fn();
  }
  (globalThis as { gc?: () => void }).gc?.();
  const processStart = process.cpuUsage();
  const threadStart = process.threadCpuUsage();
  for (let i = 0; i < runs; i++) {
    before();
    await fn();
  }
  const processUsed = process.cpuUsage(processStart);
  const threadUsed = process.threadCpuUsage(threadStart);
  return { process: (processUsed.user + processUsed.system) / 1000 / runs, thread: (threadUsed.user + threadUsed.system) / 1000 / runs };
}
