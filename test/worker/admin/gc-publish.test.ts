// gc during a publish (issue 11 item 9), as interleavings inside workerd: `gc --apply
// --grace-hours 0` run between a publish's blob uploads and its records. gc's minimum grace
// (MIN_GC_GRACE_SECONDS, measured from upload time) keeps what the publish has uploaded so far,
// so it completes without uploading anything twice; and when gc does collect an old object the
// publish was told is stored (an orphan it reuses), the client uploads it again and completes.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { walkGeneration } from "../../../src/core/generation/graph.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { MIN_GC_GRACE_SECONDS, type GcReport } from "../../../src/core/publish/contract.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, clockedBucket, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const noSleep = async () => {};

/** A fetch that runs `before` once, just ahead of the first request matching `when`. */
function interleaved(call: (r: Request) => Promise<Response>, when: (r: Request) => boolean, before: () => Promise<void>) {
  let done = false;
  return async (request: Request) => {
    if (!done && when(request)) {
      done = true;
      await before();
    }
    return call(request);
  };
}

const firstRecordUpload = (r: Request) => r.method === "PUT" && new URL(r.url).pathname.includes("/records/");

/** Every object the current generation reaches is stored (the pointer never names a half generation). */
async function currentIsComplete(bucket: R2Bucket): Promise<string> {
  const pointer = (await (await bucket.get(R2_POINTER_KEY))!.json()) as { generation: string };
  const walk = await walkGeneration({
    roots: { generation: [pointer.generation] },
    select: (_kind, shas) => shas,
    read: async (kind, sha) => {
      const object = await bucket.get(r2Key(kind, sha));
      if (!object) throw new Error(`${kind} ${sha} is missing under the current generation`);
      return object.json();
    },
  });
  for (const [sha] of walk.reached.blob) expect(await bucket.head(r2Key("blob", sha)), `blob ${sha}`).not.toBeNull();
  return pointer.generation;
}

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("gc --apply --grace-hours 0 in the middle of a publish", () => {
  it("deletes nothing the publish uploaded, and the publish completes without uploading anything again", async () => {
    const call = workerFetch(await adminEnv());
    const v1 = await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/guide.md": "# Guide\n" })]);
    const v2 = await buildGeneration([
      await skillInput("alpha"),
      await skillInput("beta", { "references/guide.md": "# Guide, rewritten\n", "assets/new.txt": "new\n" }),
    ]);
    await publishGeneration(memorySource(v1), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep });

    let gc: GcReport | undefined;
    const fetch = interleaved(call, firstRecordUpload, async () => {
      // v2's new blobs are stored by now, and nothing stored references them yet.
      const newBlobs = v2.objects.filter((o) => o.kind === "blob" && !v1.objects.some((p) => p.sha256 === o.sha256));
      expect(newBlobs.length).toBeGreaterThan(0);
      for (const blob of newBlobs) expect(await env.SHELF_BUCKET.head(r2Key("blob", blob.sha256))).not.toBeNull();
      const res = await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }));
      expect(res.status).toBe(200);
      gc = (await res.json()) as GcReport;
    });
    const result = await publishGeneration(memorySource(v2), { url: WORKER_URL, token: TOKEN, fetch, sleep: noSleep });

    expect(gc!.applied).toBe(true);
    expect(gc!.deleted).toEqual({ generation: 0, shard: 0, record: 0, blob: 0 });
    expect(result.generation).toBe(v2.id);
    expect(result.reuploaded).toBe(0);
    expect(gc!.grace_seconds).toBe(MIN_GC_GRACE_SECONDS);
    expect(await currentIsComplete(env.SHELF_BUCKET)).toBe(v2.id);
    resetStorageMemory();
    const guide = await call(new Request(`${WORKER_URL}/skills/beta/references/guide.md`));
    expect(await guide.text()).toBe("# Guide, rewritten\n");
  });

  it("still collects what is older than the minimum grace; a publish that reused such an object uploads it again and completes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const bucket = clockedBucket(env.SHELF_BUCKET);
    const call = workerFetch({ ...(await adminEnv()), SHELF_BUCKET: bucket });
    const publish = (built: Awaited<ReturnType<typeof buildGeneration>>, fetch = call) =>
      publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch, sleep: noSleep, onLog: () => {} });
    const beta = await skillInput("beta", { "references/guide.md": "# Guide\n\nThe first edition.\n" });
    const v1 = await buildGeneration([await skillInput("alpha"), beta]);
    const v2 = await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/guide.md": "# Guide\n\nThe second edition.\n" })]);
    // v3 brings v1's beta back (same record, same guide blob) and adds a skill.
    const v3 = await buildGeneration([await skillInput("alpha"), beta, await skillInput("delta", { "references/d.md": "# D\n" })]);
    await publish(v1);
    await publish(v2);

    // Two hours on, v1's own objects are old orphans: v3's presence query still finds them stored.
    vi.setSystemTime(Date.now() + 2 * 3600 * 1000);
    let gc: GcReport | undefined;
    const fetch = interleaved(call, firstRecordUpload, async () => {
      gc = (await (await call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }))).json()) as GcReport;
    });
    const result = await publish(v3, fetch);

    // gc collected v1's manifest, shard, beta's record and its guide (all older than the grace)…
    expect(gc!.deleted.generation).toBe(1);
    expect(gc!.deleted.record).toBe(1);
    expect(gc!.deleted.blob).toBeGreaterThan(0);
    // …but none of delta's fresh uploads, and the publish put back what it reused.
    expect(result.generation).toBe(v3.id);
    expect(result.reuploaded).toBeGreaterThanOrEqual(2);
    expect(await currentIsComplete(env.SHELF_BUCKET)).toBe(v3.id);
    resetStorageMemory();
    expect(await (await call(new Request(`${WORKER_URL}/skills/beta/references/guide.md`))).text()).toBe("# Guide\n\nThe first edition.\n");
    expect((await call(new Request(`${WORKER_URL}/skills/delta/references/d.md`))).status).toBe(200);
  });
});
