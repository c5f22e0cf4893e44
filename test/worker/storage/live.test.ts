// The live documents of src/worker/storage/live.ts: the pointer (and advisories) kept in memory
// for LIVE_MEMORY_TTL_MS, a lagging KV never moving an isolate back, and R2 re-read at least
// every LIVE_R2_REVALIDATE_MS, which is what bounds how long after a publish every edge serves it.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { openGeneration, resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { KV_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { LIVE_MEMORY_TTL_MS, LIVE_R2_REVALIDATE_MS } from "../../../src/worker/storage/live.ts";
import { adminEnv, newCounts, total } from "../admin/helpers.ts";
import { failingEnv, publishShelf } from "./helpers.ts";

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

describe("the pointer", () => {
  it("answers null before anything is published, and caches that for the memory TTL", async () => {
    const counts = newCounts();
    const counted = await adminEnv(counts);
    let now = 0;
    expect(await openGeneration(counted, { clock: () => now })).toBeNull();
    const reads = total(counts, "R2.") + total(counts, "KV.");
    now += LIVE_MEMORY_TTL_MS - 1;
    expect(await openGeneration(counted, { clock: () => now })).toBeNull();
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(reads);
  });

  it("ignores a lagging KV pointer and re-reads R2 within LIVE_R2_REVALIDATE_MS", async () => {
    let now = 5_000_000;
    const clock = () => now;
    const v1 = await publishShelf(["alpha"]);
    expect((await openGeneration(env, { clock }))!.id).toBe(v1.id); // cold isolate: from R2

    // v2 is published, but this edge's KV still answers with v1's pointer (propagation lag).
    const v2 = await publishShelf(["alpha", "beta"]);
    const staleKv = await env.SHELF_KV.get(KV_POINTER_KEY);
    expect(JSON.parse(staleKv!).generation).toBe(v2.id);
    await env.SHELF_KV.put(KV_POINTER_KEY, JSON.stringify({ generation: v1.id, seq: 1, published_at: "then" }));

    now += LIVE_MEMORY_TTL_MS; // memory expired: KV is asked, and lags
    expect((await openGeneration(env, { clock }))!.id).toBe(v1.id);
    now += LIVE_R2_REVALIDATE_MS; // the periodic R2 read sees the truth
    expect((await openGeneration(env, { clock }))!.id).toBe(v2.id);
    // Once seen, a lagging KV (lower seq) never moves the isolate back.
    now += LIVE_MEMORY_TTL_MS;
    expect((await openGeneration(env, { clock }))!.id).toBe(v2.id);
  });

  it("never moves back when a slow, lagging KV load finishes after a newer one was stored", async () => {
    await publishShelf(["alpha"]);
    const t0 = Date.now();
    await openGeneration(env, { clock: () => t0 }); // cold: from R2, seq 1
    await publishShelf(["alpha", "beta"]);
    const lagging = await env.SHELF_KV.get(KV_POINTER_KEY); // what a lagging KV edge still answers (seq 2)
    const newest = await publishShelf(["alpha", "beta", "gamma"]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowKv = {
      get: async (key: unknown, options: unknown) => {
        if (key === KV_POINTER_KEY) {
          await gate;
          return lagging;
        }
        return (env.SHELF_KV.get as (k: unknown, o: unknown) => Promise<unknown>)(key, options);
      },
    } as unknown as KVNamespace;
    const later = t0 + LIVE_MEMORY_TTL_MS + 1_000;
    // Both requests find the memory copy stale; the slow one started first and waits on KV.
    const slow = openGeneration({ ...env, SHELF_KV: slowKv }, { clock: () => later });
    // The fast one reads KV (seq 3) and stores it.
    expect((await openGeneration(env, { clock: () => later }))!.seq).toBe(3);
    release();
    // The slow load sees seq 2, but seq 3 is already stored: it keeps seq 3.
    expect((await slow)!.id).toBe(newest.id);
    // Nothing went backwards for later requests either (still within the memory TTL, no read).
    const after = await openGeneration(failingEnv(), { clock: () => later + 1_000 });
    expect(after!.id).toBe(newest.id);
    expect(after!.seq).toBe(3);
  });
});
