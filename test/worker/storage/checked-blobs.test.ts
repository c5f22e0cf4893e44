// src/worker/storage/checked-blobs.ts: a small blob's bytes are kept in the isolate only once they
// hashed to their digest, served from memory after that, and never kept when R2 held other bytes,
// failed or held nothing; a blob over 64 KiB is checked on every read and never kept.
import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { HASHED_BLOB_MAX_BYTES, readCheckedBlob, resetCheckedBlobs } from "../../../src/worker/storage/checked-blobs.ts";
import type { StorageBindings } from "../../../src/worker/storage/index.ts";
import { MissingObjectError, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";

/** An R2 bucket of blobs that counts its reads; `held` may be changed between reads. */
function bucket(held: Map<string, Uint8Array>, reads: string[], fail = { now: false }): StorageBindings {
  const SHELF_BUCKET = {
    async get(key: string) {
      reads.push(key);
      if (fail.now) throw new Error("R2 is down");
      const bytes = held.get(key);
      return bytes === undefined ? null : { arrayBuffer: async () => bytes.slice().buffer };
    },
  };
  return { SHELF_BUCKET, SHELF_KV: {} } as unknown as StorageBindings;
}

const encode = (text: string) => new TextEncoder().encode(text);

beforeEach(() => resetCheckedBlobs());

describe("readCheckedBlob", () => {
  it("reads a small blob once, then serves the checked bytes from memory", async () => {
    const bytes = encode("# A skill\n");
    const sha = await sha256Hex(bytes);
    const reads: string[] = [];
    const env = bucket(new Map([[r2Key("blob", sha), bytes]]), reads);
    expect(await readCheckedBlob(env, sha, bytes.byteLength)).toEqual(bytes);
    expect(await readCheckedBlob(env, sha, bytes.byteLength)).toEqual(bytes);
    expect(reads).toEqual([r2Key("blob", sha)]);
    // The size is part of the check: the same digest asked with another size is read (and refused).
    await expect(readCheckedBlob(env, sha, bytes.byteLength + 1)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(reads).toHaveLength(2);
  });

  it("keeps nothing when R2 holds other bytes, fails or holds nothing; reads again next time", async () => {
    const bytes = encode("the named bytes\n");
    const sha = await sha256Hex(bytes);
    const held = new Map([[r2Key("blob", sha), encode("substituted bytes")]]);
    const reads: string[] = [];
    const fail = { now: false };
    const env = bucket(held, reads, fail);
    await expect(readCheckedBlob(env, sha, bytes.byteLength)).rejects.toBeInstanceOf(StorageUnavailableError);
    fail.now = true;
    await expect(readCheckedBlob(env, sha, bytes.byteLength)).rejects.toBeInstanceOf(StorageUnavailableError);
    fail.now = false;
    held.delete(r2Key("blob", sha));
    await expect(readCheckedBlob(env, sha, bytes.byteLength)).rejects.toBeInstanceOf(MissingObjectError);
    held.set(r2Key("blob", sha), bytes);
    expect(await readCheckedBlob(env, sha, bytes.byteLength)).toEqual(bytes);
    expect(reads).toHaveLength(4);
  });

  it("checks a blob over 64 KiB on every read and keeps none of it", async () => {
    const bytes = new Uint8Array(HASHED_BLOB_MAX_BYTES + 1).fill(7);
    const sha = await sha256Hex(bytes);
    const reads: string[] = [];
    const env = bucket(new Map([[r2Key("blob", sha), bytes]]), reads);
    await readCheckedBlob(env, sha, bytes.byteLength);
    await readCheckedBlob(env, sha, bytes.byteLength);
    expect(reads).toHaveLength(2);
  });
});
