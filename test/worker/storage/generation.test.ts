// One generation per request (src/worker/storage/generation.ts): fixed while the pointer moves,
// and StorageUnavailableError when R2 cannot answer.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { openGeneration, resetStorageMemory, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
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
