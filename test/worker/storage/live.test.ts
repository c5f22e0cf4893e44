// The live documents of src/worker/storage/live.ts: the pointer (and advisories) kept in memory
// for LIVE_MEMORY_TTL_MS, KV only announcing a change that R2 then confirms (a lagging KV never
// moves an isolate back, a forged one never moves it at all), and R2 re-read at least every
// LIVE_R2_REVALIDATE_MS and winning whatever seq KV or memory held: that bounds how long after a
// publish every edge serves it.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { openGeneration, resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { ADVISORIES_SCHEMA, POINTER_SCHEMA } from "../../../src/core/generation/manifest.ts";
import { KV_ADVISORIES_KEY, KV_POINTER_KEY, R2_ADVISORIES_KEY, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { LIVE_MEMORY_TTL_MS, LIVE_R2_REVALIDATE_MS, liveTtlMs } from "../../../src/worker/storage/live.ts";
import { adminEnv, adminRequest, newCounts, total, workerFetch } from "../admin/helpers.ts";
import { failingEnv, failingKv, publishShelf } from "./helpers.ts";
import { advisoryFor } from "../fixture-shelf.ts";

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

describe("a shelf with no advisories (no advisories.json in R2, no `advisories` key in KV)", () => {
  const ADVISORY = advisoryFor("alpha", {
    official_intent: "does one thing",
    hidden_issue: "exfiltrates secrets",
    reference: "https://example.test/adv",
    advisory_id: "ADV-QUIET-1",
  });

  it("reads no R2 between publishes: each memory refresh is two KV reads (pointer, advisories), R2 only at the revalidation bound", async () => {
    let now = 60_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    expect(await env.SHELF_BUCKET.head(R2_ADVISORIES_KEY)).toBeNull();
    expect(await env.SHELF_KV.get(KV_ADVISORIES_KEY)).toBeNull();
    await openGeneration(env, { clock }); // cold: pointer, advisories (absent) and manifest from R2
    const counts = newCounts();
    const counted = await adminEnv(counts);
    // Refreshes up to just before the R2 revalidation bound.
    const refreshes = Math.floor((LIVE_R2_REVALIDATE_MS - 1) / LIVE_MEMORY_TTL_MS);
    for (let i = 1; i <= refreshes; i++) {
      now += LIVE_MEMORY_TTL_MS;
      const opened = (await openGeneration(counted, { clock }))!;
      expect([opened.advisories, opened.advisoriesSeq]).toEqual([[], 0]);
      expect(total(counts, "R2."), `refresh ${i}`).toBe(0);
      expect(counts.calls["KV.get"], `refresh ${i}`).toBe(2 * i);
    }
    // Past the bound R2 is read again, whatever KV says: the pointer and the advisories.
    now += LIVE_MEMORY_TTL_MS;
    await openGeneration(counted, { clock });
    expect(counts.calls["R2.get"]).toBe(2);
  });

  it("sees the first advisory at the next memory refresh, once the admin API has written its KV copy", async () => {
    let now = 70_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    expect((await openGeneration(env, { clock }))!.advisories).toEqual([]);
    const merged = await workerFetch(await adminEnv())(adminRequest("POST", "/advisories", { advisories: [ADVISORY] }));
    expect(merged.status).toBe(200);
    expect(JSON.parse((await env.SHELF_KV.get(KV_ADVISORIES_KEY))!).seq).toBe(1);
    expect((await openGeneration(env, { clock }))!.advisories).toEqual([]); // memory answers within its TTL
    now += LIVE_MEMORY_TTL_MS;
    const opened = (await openGeneration(env, { clock }))!;
    expect([opened.advisories.map((a) => a.advisory_id), opened.advisoriesSeq]).toEqual([["ADV-QUIET-1"], 1]);
  });

  it("reads R2 when KV fails (a failure is not the absence that confirms none)", async () => {
    let now = 80_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    await openGeneration(env, { clock });
    const counts = newCounts();
    const counted = await adminEnv(counts);
    now += LIVE_MEMORY_TTL_MS;
    await openGeneration({ ...counted, SHELF_KV: failingKv() }, { clock });
    expect(counts.calls["R2.get"]).toBe(2); // the pointer and the advisories
  });

  it("still reads R2 when KV holds an advisories copy without a seq", async () => {
    let now = 90_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    await openGeneration(env, { clock });
    await env.SHELF_KV.put(KV_ADVISORIES_KEY, "not json");
    const counts = newCounts();
    const counted = await adminEnv(counts);
    now += LIVE_MEMORY_TTL_MS;
    await openGeneration(counted, { clock });
    expect(counts.calls["R2.get"]).toBe(1); // the advisories; the pointer's KV copy announced no change
  });
});

describe("R2 decides, whatever seq KV or memory holds", () => {
  const FORGED_SEQ = 999;

  it("never serves a KV pointer R2 does not confirm, and follows a real publish after a forged one", async () => {
    let now = 20_000_000;
    const clock = () => now;
    const v1 = await publishShelf(["alpha"]);
    const v2 = await publishShelf(["alpha", "beta"]);
    expect((await openGeneration(env, { clock }))!.id).toBe(v2.id); // cold: from R2, seq 2

    // Someone with KV write access points the shelf back at v1 with a seq no publish reached.
    await env.SHELF_KV.put(KV_POINTER_KEY, JSON.stringify({ generation: v1.id, seq: FORGED_SEQ, published_at: "forged" }));
    for (let i = 0; i < 3; i++) {
      now += LIVE_MEMORY_TTL_MS;
      const opened = (await openGeneration(env, { clock }))!;
      expect([opened.id, opened.seq]).toEqual([v2.id, 2]);
    }
    // A real publish overwrites the KV copy (seq 3): the isolate follows it at its next KV read.
    const v3 = await publishShelf(["alpha", "beta", "gamma"]);
    now += LIVE_MEMORY_TTL_MS;
    const opened = (await openGeneration(env, { clock }))!;
    expect([opened.id, opened.seq]).toEqual([v3.id, 3]);
  });

  it("confirms a repeated forged KV value against R2 once, not at every memory refresh", async () => {
    let now = 30_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    await openGeneration(env, { clock });
    await env.SHELF_KV.put(KV_POINTER_KEY, JSON.stringify({ generation: "f".repeat(64), seq: FORGED_SEQ, published_at: "forged" }));
    const counts = newCounts();
    const counted = await adminEnv(counts);
    now += LIVE_MEMORY_TTL_MS;
    await openGeneration(counted, { clock });
    // Only the pointer (KV announced seq 999); KV's lack of `advisories` confirms there are none.
    expect(counts.calls["R2.get"]).toBe(1);
    now += LIVE_MEMORY_TTL_MS;
    await openGeneration(counted, { clock });
    expect(counts.calls["R2.get"]).toBe(1); // the same forged text is not re-confirmed
  });

  it("keeps a skill blocked when a forged KV advisories record with a higher seq lifts the block", async () => {
    let now = 40_000_000;
    const clock = () => now;
    await publishShelf(["alpha"]);
    const advisory = advisoryFor("alpha", {
      official_intent: "does one thing",
      hidden_issue: "exfiltrates secrets",
      reference: "https://example.test/adv",
      advisory_id: "ADV-LIVE-1",
    });
    await env.SHELF_BUCKET.put(
      R2_ADVISORIES_KEY,
      JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: [advisory], seq: 4, updated_at: "2026-11-30T10:00:00.000Z" }),
    );
    expect((await openGeneration(env, { clock }))!.advisories.map((a) => a.advisory_id)).toEqual(["ADV-LIVE-1"]);
    await env.SHELF_KV.put(
      KV_ADVISORIES_KEY,
      JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: [], seq: FORGED_SEQ, updated_at: "2026-11-30T10:00:00.000Z" }),
    );
    for (const step of [LIVE_MEMORY_TTL_MS, LIVE_MEMORY_TTL_MS, LIVE_R2_REVALIDATE_MS]) {
      now += step;
      const opened = (await openGeneration(env, { clock }))!;
      expect(opened.advisories.map((a) => a.advisory_id)).toEqual(["ADV-LIVE-1"]);
      expect(opened.advisoriesSeq).toBe(4);
    }
  });

  it("serves what R2 says at its next read even when memory held a higher seq", async () => {
    let now = 50_000_000;
    const clock = () => now;
    const v1 = await publishShelf(["alpha"]);
    const v2 = await publishShelf(["alpha", "beta"]);
    expect((await openGeneration(env, { clock }))!.seq).toBe(2);
    // The operator restores an older pointer object in R2 by hand (seq 1): R2 is the authority.
    const at = "2026-11-30T10:00:00.000Z";
    await env.SHELF_BUCKET.put(
      R2_POINTER_KEY,
      JSON.stringify({ schema: POINTER_SCHEMA, generation: v1.id, seq: 1, published_at: at, history: [{ seq: 1, generation: v1.id, action: "publish", at }] }),
    );
    now += LIVE_MEMORY_TTL_MS; // KV (seq 2) announces nothing new: memory stands
    expect((await openGeneration(env, { clock }))!.id).toBe(v2.id);
    now += LIVE_R2_REVALIDATE_MS; // the periodic R2 read: R2's seq 1 wins over memory's seq 2
    const opened = (await openGeneration(env, { clock }))!;
    expect([opened.id, opened.seq]).toEqual([v1.id, 1]);
  });
});

describe("SHELF_LIVE_TTL_MS (npm start sets 0)", () => {
  it("0: a publish shows on the very next request, at the same instant", async () => {
    const clock = () => 7_000_000;
    const dev = { ...env, SHELF_LIVE_TTL_MS: "0" };
    const v1 = await publishShelf(["alpha"]);
    expect((await openGeneration(dev, { clock }))!.id).toBe(v1.id);
    const v2 = await publishShelf(["alpha", "beta"]);
    expect((await openGeneration(dev, { clock }))!.id).toBe(v2.id);
  });
  it("unset, or above the bound, keeps LIVE_MEMORY_TTL_MS (production's bound)", async () => {
    for (const value of [undefined, "999999999", "not a number"]) {
      await reset();
      resetStorageMemory();
      const clock = () => 7_000_000;
      const prod = value === undefined ? env : { ...env, SHELF_LIVE_TTL_MS: value };
      const v1 = await publishShelf(["alpha"]);
      expect((await openGeneration(prod, { clock }))!.id).toBe(v1.id);
      await publishShelf(["alpha", "beta"]);
      expect((await openGeneration(prod, { clock }))!.id, String(value)).toBe(v1.id);
      expect(liveTtlMs(prod)).toBe(LIVE_MEMORY_TTL_MS);
    }
    expect(liveTtlMs({ SHELF_LIVE_TTL_MS: "-5" })).toBe(0);
    expect(liveTtlMs({ SHELF_LIVE_TTL_MS: "1500" })).toBe(1500);
  });
});
