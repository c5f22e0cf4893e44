// Storage operations of one request, counted at the bindings: every R2 and KV binding call (each
// counts against a plan's subrequests to Cloudflare services; OAuth's KV namespace too), every Cache
// API call, and the bytes those reads returned. Shared by the counting test and the budget bench's Worker wrapper.

/** One request's storage operations, by service and method, and the bytes they read. */
export interface StorageOps {
  r2: Record<string, number>;
  kv: Record<string, number>;
  cache: Record<string, number>;
  /** Bytes returned by R2 gets (the range when one was asked for), KV gets (UTF-8) and Cache API matches. */
  bytesRead: number;
}

export function noOps(): StorageOps {
  return { r2: {}, kv: {}, cache: {}, bytesRead: 0 };
}

/** Calls of one service, all methods. */
export function sum(calls: Record<string, number>): number {
  return Object.values(calls).reduce((a, b) => a + b, 0);
}

/** Every storage operation of a request: what a plan's per-request limit counts. */
export function totalOps(ops: StorageOps): number {
  return sum(ops.r2) + sum(ops.kv) + sum(ops.cache);
}

const encoder = new TextEncoder();

function bump(calls: Record<string, number>, method: string): void {
  calls[method] = (calls[method] ?? 0) + 1;
}

/** Bytes an R2 get returned: the object's size, or the part a range asked for. */
function r2BytesOf(object: { size: number }, options: unknown): number {
  const range = (options as { range?: { offset?: number; length?: number; suffix?: number } } | undefined)?.range;
  if (!range || range instanceof Headers) return object.size;
  if (range.suffix !== undefined) return Math.min(range.suffix, object.size);
  const from = Math.min(range.offset ?? 0, object.size);
  return range.length === undefined ? object.size - from : Math.min(range.length, object.size - from);
}

function kvBytesOf(value: unknown): number {
  if (typeof value === "string") return encoder.encode(value).length;
  if (value instanceof Map) {
    let n = 0;
    for (const v of value.values()) n += kvBytesOf(v);
    return n;
  }
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (value !== null && typeof value === "object") return encoder.encode(JSON.stringify(value)).length;
  return 0;
}

/**
 * R2 that counts every call into `ops.r2` and the bytes each get returned.
 * @example const bucket = countingBucket(env.SHELF_BUCKET, ops)
 */
export function countingBucket(bucket: R2Bucket, ops: StorageOps): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        bump(ops.r2, String(prop));
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop !== "get" || !(result instanceof Promise)) return result;
        return result.then((object: unknown) => {
          if (object !== null && typeof object === "object" && "body" in object) ops.bytesRead += r2BytesOf(object as unknown as { size: number }, args[1]);
          return object;
        });
      };
    },
  });
}

/**
 * KV that counts every call into `ops.kv` (a bulk get is one call) and the bytes each get returned.
 * @example const kv = countingKv(env.SHELF_KV, ops)
 */
export function countingKv(kv: KVNamespace, ops: StorageOps): KVNamespace {
  return new Proxy(kv, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        bump(ops.kv, String(prop));
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!String(prop).startsWith("get") || !(result instanceof Promise)) return result;
        return result.then((answer: unknown) => {
          const text = prop === "getWithMetadata" ? (answer as { value: unknown } | null)?.value : answer;
          ops.bytesRead += kvBytesOf(text);
          return answer;
        });
      };
    },
  });
}

/** The request the Cache API's calls are counted for (a Worker's `caches` is global, not a binding). */
let cacheOps: StorageOps | undefined;
let cachePatched = false;

/**
 * Counts Cache API calls (match, put, delete on any cache) into `ops` until the next call; pass
 * undefined to stop. Patches Cache.prototype once per isolate: only the counting test's runtime
 * and the bench's Worker do this. Requests are counted one at a time; calls made while two
 * requests overlap go to the later one.
 */
export function countCacheCalls(ops: StorageOps | undefined): void {
  cacheOps = ops;
  if (cachePatched || typeof Cache === "undefined") return;
  cachePatched = true;
  for (const method of ["match", "put", "delete"] as const) {
    const original = Cache.prototype[method] as (...a: unknown[]) => Promise<unknown>;
    Object.defineProperty(Cache.prototype, method, {
      configurable: true,
      writable: true,
      value: function counted(this: Cache, ...args: unknown[]) {
        const into = cacheOps;
        if (into) bump(into.cache, method);
        const result = original.apply(this, args);
        if (method !== "match" || !into) return result;
        return result.then((answer) => {
          const length = answer instanceof Response ? Number(answer.headers.get("Content-Length") ?? 0) : 0;
          into.bytesRead += length;
          return answer;
        });
      },
    });
  }
}

/**
 * The Worker's bindings with R2 and KV counting into `ops`: the shelf's bucket and namespace, and
 * OAuth's namespace where the Worker has one (its token reads count against the same per-request
 * limit, so they are KV calls like the shelf's).
 * @example await app.fetch(request, countingEnv(env, ops), ctx)
 */
export function countingEnv<E extends { SHELF_BUCKET: R2Bucket; SHELF_KV: KVNamespace }>(env: E, ops: StorageOps): E {
  const oauthKv = (env as { OAUTH_KV?: KVNamespace }).OAUTH_KV;
  return {
    ...env,
    SHELF_BUCKET: countingBucket(env.SHELF_BUCKET, ops),
    SHELF_KV: countingKv(env.SHELF_KV, ops),
    ...(oauthKv ? { OAUTH_KV: countingKv(oauthKv, ops) } : {}),
  };
}

/**
 * The Worker's bindings with the key of every R2 and KV call recorded into `log`, as "r2 get
 * <key>", "r2 put <key>", "kv get <key>" (a KV bulk get: one line per key), for a test that says
 * which objects a request touched rather than how many calls it made.
 * @example const log: string[] = []; await app.request(url, {}, keyRecordingEnv(env, log))
 */
export function keyRecordingEnv<E extends { SHELF_BUCKET: R2Bucket; SHELF_KV: KVNamespace }>(env: E, log: string[]): E {
  const recording = <T extends object>(target: T, service: string): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const value = Reflect.get(t, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const keys = Array.isArray(args[0]) ? (args[0] as unknown[]) : [args[0]];
          for (const key of keys) log.push(`${service} ${String(prop)} ${String(key)}`);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return { ...env, SHELF_BUCKET: recording(env.SHELF_BUCKET, "r2"), SHELF_KV: recording(env.SHELF_KV, "kv") };
}
