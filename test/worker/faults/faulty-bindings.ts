// Storage bindings that misbehave on purpose, for the fault suite: R2 and KV wrapped so that the
// calls a rule picks fail, answer late, answer other or truncated bytes, or lose their writes.

/** One binding call, as a rule sees it. */
export interface BindingCall {
  method: string;
  key: string;
}

/**
 * What a wrapped R2 call does instead of (or on top of) its real answer. "bytes" alters the
 * object inside R2 (at rest): its size follows the bytes but its checksums stay the real
 * object's, as R2 recorded them at upload ("none": an object stored without checksums).
 * "swap" answers another stored object (`to` names its key) as R2 would hold it, with its own
 * size and checksums: a substituted object.
 */
export type R2Fault =
  | { kind: "reject" }
  | { kind: "delay"; ms: number }
  | { kind: "missing" }
  | { kind: "bytes"; alter: (bytes: Uint8Array, key: string) => Uint8Array; checksums?: "kept" | "none" }
  | { kind: "swap"; to: (key: string) => string }
  | { kind: "lose" };

/** What a wrapped KV call does instead of its real answer. */
export type KvFault =
  | { kind: "reject" }
  | { kind: "delay"; ms: number }
  | { kind: "missing" }
  | { kind: "value"; alter: (text: string | null, key: string) => string | null }
  | { kind: "lose" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checksums of an object stored without any. */
const NO_CHECKSUMS = { toJSON: () => ({}) } as unknown as R2Checksums;

/**
 * An R2 object body answering `bytes` (the requested range of an object of `size` bytes altered
 * at rest), with the real one's key, etag and checksums (or none).
 */
function objectBody(real: R2Object, bytes: Uint8Array, size: number, checksums: "kept" | "none"): R2ObjectBody {
  const copy = () => bytes.slice();
  const body = {
    key: real.key,
    version: real.version,
    etag: real.etag,
    httpEtag: real.httpEtag,
    uploaded: real.uploaded,
    checksums: checksums === "kept" ? real.checksums : NO_CHECKSUMS,
    httpMetadata: real.httpMetadata,
    customMetadata: real.customMetadata,
    size,
    body: new Response(copy()).body!,
    bodyUsed: false,
    arrayBuffer: async () => copy().buffer,
    bytes: async () => copy(),
    text: async () => new TextDecoder().decode(bytes),
    json: async () => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
    blob: async () => new Blob([copy()]),
    writeHttpMetadata: (headers: Headers) => real.writeHttpMetadata(headers),
  };
  return body as unknown as R2ObjectBody;
}

/**
 * R2 with faults: `rule` sees every call (method and key) and picks a fault or none. A "bytes"
 * fault alters the whole object and then applies the requested range, like a damaged object.
 * @example faultyBucket(env.SHELF_BUCKET, ({ method, key }) => (method === "get" && key.startsWith("blobs/") ? { kind: "missing" } : undefined))
 */
export function faultyBucket(bucket: R2Bucket, rule: (call: BindingCall) => R2Fault | undefined): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      const real = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      return async (...args: unknown[]) => {
        const fault = rule({ method: String(prop), key: String(args[0]) });
        if (!fault) return real(...args);
        switch (fault.kind) {
          case "reject":
            throw new Error(`R2 ${String(prop)} failed (injected)`);
          case "delay":
            await sleep(fault.ms);
            return real(...args);
          case "missing":
            return prop === "get" || prop === "head" ? null : real(...args);
          case "lose":
            return prop === "put" ? null : real(...args);
          case "bytes": {
            if (prop !== "get") return real(...args);
            const object = (await real(args[0])) as R2ObjectBody | null;
            if (object === null) return null;
            const altered = fault.alter(new Uint8Array(await object.arrayBuffer()), String(args[0]));
            const range = (args[1] as { range?: { offset: number; length: number } } | undefined)?.range;
            const answered = range ? altered.slice(range.offset, range.offset + range.length) : altered;
            return objectBody(object, answered, altered.byteLength, fault.checksums ?? "kept");
          }
          case "swap":
            return prop === "get" || prop === "head" ? real(fault.to(String(args[0])), ...args.slice(1)) : real(...args);
        }
      };
    },
  });
}

/**
 * KV with faults: `rule` sees every call, and each key of a bulk get on its own. A "value" fault
 * replaces what a get answers (text gets only, which is all the Worker asks for).
 * @example faultyKv(env.SHELF_KV, () => ({ kind: "reject" }))
 */
export function faultyKv(kv: KVNamespace, rule: (call: BindingCall) => KvFault | undefined): KVNamespace {
  return new Proxy(kv, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      const real = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      return async (...args: unknown[]) => {
        const method = String(prop);
        const keys = Array.isArray(args[0]) ? (args[0] as string[]) : [String(args[0])];
        const faults = keys.map((key) => rule({ method, key }));
        if (faults.every((f) => f === undefined)) return real(...args);
        if (faults.some((f) => f?.kind === "reject")) throw new Error(`KV ${method} failed (injected)`);
        const delay = Math.max(0, ...faults.map((f) => (f?.kind === "delay" ? f.ms : 0)));
        if (delay > 0) await sleep(delay);
        if (method === "put" && faults[0]?.kind === "lose") return undefined;
        if (method !== "get") return real(...args);
        const answer = await real(...args);
        const alter = (text: string | null, key: string, fault: KvFault | undefined) =>
          fault?.kind === "missing" ? null : fault?.kind === "value" ? fault.alter(text, key) : text;
        if (answer instanceof Map) {
          const out = new Map<string, string | null>();
          for (const [i, key] of keys.entries()) out.set(key, alter((answer.get(key) as string | null) ?? null, key, faults[i]));
          return out;
        }
        return alter(answer as string | null, keys[0]!, faults[0]);
      };
    },
  });
}

/** A copy of `bytes` with one byte changed (in the middle, or the last one). */
export function flipByte(bytes: Uint8Array, at: "middle" | "last" = "middle"): Uint8Array {
  const out = bytes.slice();
  const i = at === "last" ? out.length - 1 : Math.floor(out.length / 2);
  if (i >= 0) out[i] = out[i]! ^ 0x01;
  return out;
}

/** Deterministic pseudo-random bytes (xorshift32), so large fixtures neither compress nor vary. */
export function pseudoRandomBytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
