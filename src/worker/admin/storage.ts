// R2 and KV as the admin API uses them. Every R2 call that fails (and every body read) becomes
// 503 storage_unavailable with Retry-After here, in one place, so no admin route leaks a 500.
// KV is only a cache: a failed KV write or delete is logged and tolerated (readers fall back to R2).
import { mapLimit } from "../../core/publish/map-limit.ts";
import type { StorageBindings } from "../storage/index.ts";
import { incompleteBody } from "./body.ts";
import { adminError, adminStorageUnavailable } from "./errors.ts";
import { ShelfError } from "../errors.ts";

/** Parallel R2 heads and reads while verifying uploads. */
export const HEAD_CONCURRENCY = 50;

/** The 503 message when nothing was written before R2 failed. */
export const NOTHING_CHANGED = "R2 did not answer; nothing changed. Retry shortly";

/** A stored JSON document read back, with the etag to replace it conditionally. */
export interface StoredJson {
  json: unknown;
  etag: string;
}

/**
 * The adapter boundary where R2's refusal of a put whose bytes do not hash to the given SHA-256
 * is told from a storage failure: R2 says so only in its message, so this is the one place it is read.
 * @example isDigestMismatch(new Error("put: The SHA-256 checksum you specified did not match")) // => true
 */
export function isDigestMismatch(error: unknown): boolean {
  return /sha-?256|checksum|digest|hash/i.test(String((error as Error | undefined)?.message ?? error));
}

/**
 * The admin API's view of the bindings. `failure` is the 503's message: say what did not happen.
 * @example const storage = new AdminStorage(c.env); await storage.head(r2Key("blob", sha))
 */
export class AdminStorage {
  readonly #env: StorageBindings;

  constructor(env: StorageBindings) {
    this.#env = env;
  }

  async #r2<T>(failure: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof ShelfError) throw err;
      console.error("R2 failed:", failure, err);
      throw adminStorageUnavailable(failure);
    }
  }

  /** The object's metadata, or null when it is not stored. */
  head(key: string, failure = NOTHING_CHANGED): Promise<R2Object | null> {
    return this.#r2(failure, () => this.#env.SHELF_BUCKET.head(key));
  }

  /** Heads many keys, HEAD_CONCURRENCY at a time. */
  heads(keys: readonly string[], failure = NOTHING_CHANGED): Promise<(R2Object | null)[]> {
    return this.#r2(failure, () => mapLimit(keys, HEAD_CONCURRENCY, (key) => this.#env.SHELF_BUCKET.head(key)));
  }

  /**
   * A stored JSON document, or null when it is not stored or (with `size`) has another size,
   * in which case its body is not read.
   */
  getJson(key: string, options: { size?: number; failure?: string } = {}): Promise<StoredJson | null> {
    return this.#r2(options.failure ?? NOTHING_CHANGED, async () => {
      const object = await this.#env.SHELF_BUCKET.get(key);
      if (!object) return null;
      if (options.size !== undefined && object.size !== options.size) {
        await object.body.cancel();
        return null;
      }
      return { json: await object.json(), etag: object.etag };
    });
  }

  /** Stores an object; null when an `onlyIf` condition failed (someone else wrote first). */
  put(key: string, value: ReadableStream | ArrayBuffer | Uint8Array | string, options: R2PutOptions, failure: string): Promise<R2Object | null> {
    return this.#r2(failure, () => this.#env.SHELF_BUCKET.put(key, value, options));
  }

  /**
   * Stores a blob, R2 checking as it stores that the bytes hash to `sha256` (a mismatch stores
   * nothing and is 422 digest_mismatch, not a storage failure). When `clientFailed` says the
   * client's body broke off, R2's refusal is the client's doing: 400 incomplete_body, not logged.
   */
  async putBlob(key: string, value: ReadableStream | ArrayBuffer, sha256: string, clientFailed: () => boolean = () => false): Promise<void> {
    try {
      await this.#env.SHELF_BUCKET.put(key, value, { sha256 });
    } catch (err) {
      if (clientFailed()) throw incompleteBody("blob");
      if (isDigestMismatch(err)) {
        throw adminError("digest_mismatch", `the body's SHA-256 is not ${sha256}; nothing was stored. Re-read the file and upload it again`);
      }
      console.error("R2 put failed", key, err);
      throw adminStorageUnavailable("R2 did not store the blob; retry shortly");
    }
  }

  /** Deletes up to 1,000 keys. */
  delete(keys: string | string[], failure: string): Promise<void> {
    return this.#r2(failure, () => this.#env.SHELF_BUCKET.delete(keys));
  }

  /** One page (up to 1,000 keys) of the objects under `prefix`. */
  list(prefix: string, cursor: string | undefined, failure: string): Promise<R2Objects> {
    return this.#r2(failure, () => this.#env.SHELF_BUCKET.list({ prefix, cursor }));
  }

  /** Writes a KV cache copy; a failure is logged, never fatal (readers fall back to R2). */
  async kvPut(key: string, value: string): Promise<void> {
    try {
      await this.#env.SHELF_KV.put(key, value);
    } catch (err) {
      console.warn("KV cache write failed", key, err);
    }
  }

  /** Deletes a KV cache copy; a failure is logged (an orphaned copy is harmless: nothing references it). */
  async kvDelete(key: string): Promise<void> {
    try {
      await this.#env.SHELF_KV.delete(key);
    } catch (err) {
      console.warn("KV delete failed", key, err);
    }
  }
}
