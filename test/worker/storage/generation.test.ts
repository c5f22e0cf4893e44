// One generation per request (src/worker/storage/generation.ts): fixed while the pointer moves,
// and StorageUnavailableError when R2 cannot answer.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { openGeneration, resetStorageMemory, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { failingKv, publishShelf } from "./helpers.ts";

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

describe("openGeneration", () => {
  it("throws StorageUnavailableError when R2 fails", async () => {
    await publishShelf(["alpha"]);
    resetStorageMemory();
    const brokenR2 = {
      get: async () => {
        throw new Error("R2 is down");
      },
      head: async () => {
        throw new Error("R2 is down");
      },
    } as unknown as R2Bucket;
    await expect(openGeneration({ SHELF_BUCKET: brokenR2, SHELF_KV: failingKv() })).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it("keeps one generation for the whole request while the pointer moves", async () => {
    const v1 = await publishShelf(["alpha", "beta"]);
    const gen = await openGeneration(env);
    await publishShelf(["alpha", "gamma"]);
    expect(gen!.id).toBe(v1.id);
    expect((await gen!.listSkills()).map((s) => s.name)).toEqual(["alpha", "beta"]);
    expect(await gen!.findSkill("gamma")).toBeUndefined();
  });
});

describe("a JSON blob the manifest references (the search index)", () => {
  /** A JSON blob over 64 KiB, and its reference. */
  async function largeJson() {
    const text = JSON.stringify({ filler: "x".repeat(70 * 1024) });
    const bytes = new TextEncoder().encode(text);
    return { text, bytes, ref: { sha256: await sha256Hex(bytes), size: bytes.byteLength } };
  }

  it("over 64 KiB: believed on R2's checksum, hashed when the object has none, refused when either says other bytes", async () => {
    await publishShelf(["alpha"]);
    const gen = (await openGeneration(env))!;
    const { text, bytes, ref } = await largeJson();
    const key = r2Key("blob", ref.sha256);
    // Uploaded as the admin API does, with its checksum.
    await env.SHELF_BUCKET.put(key, bytes, { sha256: ref.sha256 });
    expect(await gen.readJsonBlob(ref)).toBe(text);
    // No checksum, the same bytes: hashed, and believed.
    await env.SHELF_BUCKET.put(key, bytes);
    expect(await gen.readJsonBlob(ref)).toBe(text);
    // No checksum, other bytes of the same size: the hash refuses them.
    const other = bytes.slice();
    other[10] = other[10]! ^ 1;
    await env.SHELF_BUCKET.put(key, other);
    await expect(gen.readJsonBlob(ref)).rejects.toBeInstanceOf(StorageUnavailableError);
    // Another object substituted (R2 gives its own checksum): refused before its body is read.
    await env.SHELF_BUCKET.put(key, other, { sha256: await sha256Hex(other) });
    await expect(gen.readJsonBlob(ref)).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it("over 64 KiB, bytes altered at rest under the reference's checksum are believed (the named, accepted risk); up to 64 KiB they are hashed", async () => {
    await publishShelf(["alpha"]);
    const large = await largeJson();
    const smallBytes = new TextEncoder().encode(JSON.stringify({ small: true }));
    const small = { bytes: smallBytes, ref: { sha256: await sha256Hex(smallBytes), size: smallBytes.byteLength } };
    // R2 as it would answer if its storage changed an object's bytes but kept its checksum.
    const altered = (bytes: Uint8Array) => {
      const copy = bytes.slice();
      copy[2] = copy[2]! ^ 1;
      return copy;
    };
    const atRest = new Map([large, small].map((b) => [r2Key("blob", b.ref.sha256), b]));
    const bucket = new Proxy(env.SHELF_BUCKET, {
      get(target, prop) {
        if (prop !== "get") return Reflect.get(target, prop);
        return async (key: string, options?: R2GetOptions) => {
          const held = atRest.get(key);
          if (held === undefined) return target.get(key, options);
          const hex = held.ref.sha256.match(/../g)!.map((h) => Number.parseInt(h, 16));
          return { body: new Response(altered(held.bytes)).body, size: held.ref.size, checksums: { sha256: new Uint8Array(hex).buffer } };
        };
      },
    });
    const gen = (await openGeneration({ ...env, SHELF_BUCKET: bucket } as typeof env))!;
    expect(await gen.readJsonBlob(large.ref)).toBe(new TextDecoder().decode(altered(large.bytes)));
    await expect(gen.readJsonBlob(small.ref)).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
