// Fault injection for the admin side (issue 11): R2 and KV wrapped (test/worker/faults) to fail,
// answer late or lose writes while a publish, a rollback or a gc runs. Whatever the fault, no half
// state remains: every stored document has its children (present implies complete), the pointer
// names the old or the new generation and everything it reaches is stored, a fresh reader is
// served exactly that generation's bytes, and the same operation run again without the fault
// completes.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { generationReferences, recordReferences, shardReferences, type ObjectKind } from "../../../src/core/generation/graph.ts";
import { GenerationManifestSchema, ShardSchema, SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { AdminClient, PublishError, publishGeneration } from "../../../src/core/publish/client.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { GC_LEASE_MS } from "../../../src/worker/admin/gc-lease.ts";
import { r2Key, r2Prefix, R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { faultyBucket, faultyKv, type BindingCall, type KvFault, type R2Fault } from "../faults/faulty-bindings.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const noSleep = async () => {};
const GUIDE = "/skills/beta/references/guide.md";

interface Shelves {
  v0: BuiltGeneration;
  v1: BuiltGeneration;
  v2: BuiltGeneration;
  /** The guide's text in each generation, by id. */
  guide: Map<string, string>;
}

async function shelves(): Promise<Shelves> {
  const guide = new Map<string, string>();
  const build = async (edition: string, extra: Record<string, string> = {}) => {
    const text = `# Guide\n\nThe ${edition} edition.\n`;
    const built = await buildGeneration([
      await skillInput("alpha", extra),
      await skillInput("beta", { "references/guide.md": text, "scripts/run.py": `print("${edition}")\n` }),
    ]);
    guide.set(built.id, text);
    return built;
  };
  return { v0: await build("zeroth", { "assets/old.txt": "old\n" }), v1: await build("first"), v2: await build("second"), guide };
}

/** Publishes cleanly (no faults). */
async function publishClean(built: BuiltGeneration): Promise<void> {
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
}

/** Every stored document's children are stored with the sizes it gives them: present implies complete. */
async function presentImpliesComplete(): Promise<void> {
  const listed = async (kind: ObjectKind) => (await env.SHELF_BUCKET.list({ prefix: r2Prefix(kind) })).objects.map((o) => o.key.slice(r2Prefix(kind).length));
  const check = async (key: string, refs: { kind: ObjectKind; sha256: string; size: number | null }[]) => {
    for (const ref of refs) {
      const head = await env.SHELF_BUCKET.head(r2Key(ref.kind, ref.sha256));
      expect(head, `${key} references ${ref.kind} ${ref.sha256}, which is not stored`).not.toBeNull();
      if (ref.size !== null) expect(head!.size, `${key} → ${ref.kind} ${ref.sha256}`).toBe(ref.size);
    }
  };
  const read = async (kind: ObjectKind, sha: string) => (await env.SHELF_BUCKET.get(r2Key(kind, sha)))!.json();
  for (const sha of await listed("generation"))
    await check(`generation ${sha}`, generationReferences(GenerationManifestSchema.parse(await read("generation", sha))));
  for (const sha of await listed("shard")) await check(`shard ${sha}`, shardReferences(ShardSchema.parse(await read("shard", sha))));
  for (const sha of await listed("record")) await check(`record ${sha}`, recordReferences(SkillRecordSchema.parse(await read("record", sha))));
}

/** The current generation, which must be one of `allowed`, whole, and served to a fresh reader as itself. */
async function servedGeneration(s: Shelves, allowed: readonly string[]): Promise<string> {
  const pointer = (await (await env.SHELF_BUCKET.get(R2_POINTER_KEY))!.json()) as { generation: string };
  expect(allowed).toContain(pointer.generation);
  expect(await env.SHELF_BUCKET.head(r2Key("generation", pointer.generation))).not.toBeNull();
  resetStorageMemory(); // a fresh isolate
  const res = await workerFetch(await adminEnv())(new Request(`${WORKER_URL}${GUIDE}`));
  expect(res.status).toBe(200);
  const served = res.headers.get("Skillshelf-Generation");
  expect(served).toBe(pointer.generation);
  expect(await res.text()).toBe(s.guide.get(pointer.generation));
  return pointer.generation;
}

/** An R2 rule that applies `fault` to the `n`-th write (put or delete) and to nothing else. */
function nthWrite(n: number, fault: R2Fault): (call: BindingCall) => R2Fault | undefined {
  let writes = 0;
  return ({ method }) => ((method === "put" || method === "delete") && ++writes === n ? fault : undefined);
}

/** A deterministic 0–3 ms delay on every call (xorshift), so calls overlap in a new order each time. */
function jitter<F>(seed: number): () => F {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return { kind: "delay", ms: (x >>> 0) % 4 } as F;
  };
}

/** The status an admin call ended with: 200, or the refusal's (0: the network gave up). */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof PublishError) return error.status;
    throw error;
  }
}

/**
 * Which R2 writes of `op` to fault, counted on a throwaway run without faults: the first and
 * (when another) the last write of each kind of key (blobs, records, shards, manifests, the
 * pointer, the lease, …), numbered as nthWrite counts them.
 */
async function writesToFault(
  setup: () => Promise<void>,
  op: (bindings: object) => Promise<unknown>,
): Promise<{ first: number[]; last: number[]; puts: Set<number> }> {
  await reset();
  resetStorageMemory();
  await setup();
  const keys: string[] = [];
  const puts = new Set<number>();
  await op({
    SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, ({ method, key }) => {
      if (method === "put" || method === "delete") keys.push(key);
      if (method === "put") puts.add(keys.length);
      return undefined;
    }),
  });
  const byKind = new Map<string, number[]>();
  keys.forEach((key, i) => {
    const kind = key.split("/")[0]!;
    byKind.set(kind, [...(byKind.get(kind) ?? []), i + 1]);
  });
  const firsts = [...byKind.values()].map((ns) => ns[0]!);
  return { first: firsts, last: [...byKind.values()].map((ns) => ns[ns.length - 1]!).filter((n) => !firsts.includes(n)), puts };
}

interface Scenario {
  name: string;
  setup: (s: Shelves) => Promise<void>;
  /**
   * Runs the operation against `bindings` (merged over the test env); resolves with its answer's
   * status. `rerun` is the clean run after a fault (gc runs it once a lease it left has expired).
   */
  op: (s: Shelves, bindings: object, rerun?: boolean) => Promise<number>;
  /** The generations the pointer may name after a faulted run, and after a clean rerun. */
  before: (s: Shelves) => string;
  after: (s: Shelves) => string;
}

const SCENARIOS: Scenario[] = [
  {
    name: "publish v2 over v1",
    setup: (s) => publishClean(s.v1),
    op: async (s, bindings) =>
      statusOf(
        publishGeneration(memorySource(s.v2), {
          url: WORKER_URL,
          token: TOKEN,
          fetch: workerFetch({ ...(await adminEnv()), ...bindings }),
          sleep: noSleep,
          attempts: 2,
        }),
      ),
    before: (s) => s.v1.id,
    after: (s) => s.v2.id,
  },
  {
    name: "rollback from v2 to v1",
    setup: async (s) => {
      await publishClean(s.v1);
      await publishClean(s.v2);
    },
    op: async (s, bindings) => {
      const client = new AdminClient({
        url: WORKER_URL,
        token: TOKEN,
        fetch: workerFetch({ ...(await adminEnv()), ...bindings }),
        sleep: noSleep,
        attempts: 2,
      });
      return statusOf(client.current().then((previous) => client.rollback({ generation: s.v1.id, previous })));
    },
    before: (s) => s.v2.id,
    after: (s) => s.v1.id,
  },
  {
    name: "gc --apply --keep 0 collecting v0 and v1",
    setup: async (s) => {
      await publishClean(s.v0);
      await publishClean(s.v1);
      await publishClean(s.v2);
    },
    op: async (_s, bindings, rerun) => {
      // A gc whose lease release failed leaves the lease to expire by itself (docs/storage.md).
      const res = await pastMinGrace(rerun ? GC_LEASE_MS : 0, async () =>
        workerFetch({ ...(await adminEnv()), ...bindings })(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })),
      );
      await res.body?.cancel();
      return res.status;
    },
    before: (s) => s.v2.id,
    after: (s) => s.v2.id,
  },
];

let s: Shelves;
beforeEach(async () => {
  s ??= await shelves();
});

/** Runs one scenario under one fault, checks there is no half state, then reruns it cleanly. */
async function underFault(scenario: Scenario, bindings: object): Promise<void> {
  await reset();
  resetStorageMemory();
  await scenario.setup(s);
  // The outcome may be a refusal or a 503; a half state or a 500 is what must not happen.
  expect(await scenario.op(s, bindings)).not.toBe(500);
  await presentImpliesComplete();
  await servedGeneration(s, [scenario.before(s), scenario.after(s)]);
  expect(await scenario.op(s, {}, true)).toBe(200);
  await presentImpliesComplete();
  expect(await servedGeneration(s, [scenario.after(s)])).toBe(scenario.after(s));
}

describe.each(SCENARIOS)("$name under faults", (scenario) => {
  it("leaves no half state when any one R2 write fails or is lost, and completes when rerun", async () => {
    const writes = await writesToFault(
      () => scenario.setup(s),
      (bindings) => scenario.op(s, bindings),
    );
    expect(writes.first.length).toBeGreaterThan(0);
    // Each kind's first write fails (or, a put, is lost: R2 answers as if stored); its last write (when another) fails.
    for (const n of writes.first) {
      await underFault(scenario, { SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, nthWrite(n, { kind: "reject" })) });
      if (writes.puts.has(n)) await underFault(scenario, { SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, nthWrite(n, { kind: "lose" })) });
    }
    for (const n of writes.last) await underFault(scenario, { SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, nthWrite(n, { kind: "reject" })) });
  });

  it("leaves no half state when KV rejects or loses every write, or every call answers late", async () => {
    const faults: [string, object][] = [
      ["KV rejects", { SHELF_KV: faultyKv(env.SHELF_KV, () => ({ kind: "reject" })) }],
      ["KV loses writes", { SHELF_KV: faultyKv(env.SHELF_KV, ({ method }) => (method === "put" ? { kind: "lose" } : undefined)) }],
      [
        "every call late",
        { SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, jitter<R2Fault>(0x9e3779b9)), SHELF_KV: faultyKv(env.SHELF_KV, jitter<KvFault>(0x85ebca6b)) },
      ],
    ];
    for (const [, bindings] of faults) await underFault(scenario, bindings);
  });
});

describe("a publish and a gc at once, every call answering late", () => {
  it("the publish completes or is refused cleanly, gc deletes nothing the current generation reaches, and no half state remains", async () => {
    for (const seed of [1, 2, 3]) {
      await reset();
      resetStorageMemory();
      await publishClean(s.v0);
      await publishClean(s.v1);
      const bindings = {
        SHELF_BUCKET: faultyBucket(env.SHELF_BUCKET, jitter<R2Fault>(seed * 0x2545f491)),
        SHELF_KV: faultyKv(env.SHELF_KV, jitter<KvFault>(seed)),
      };
      const call = workerFetch({ ...(await adminEnv()), ...bindings });
      await Promise.allSettled([
        publishGeneration(memorySource(s.v2), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: noSleep, attempts: 2 }),
        call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })),
      ]);
      await presentImpliesComplete();
      await servedGeneration(s, [s.v1.id, s.v2.id]);
      await publishClean(s.v2);
      await presentImpliesComplete();
      expect(await servedGeneration(s, [s.v2.id])).toBe(s.v2.id);
    }
  });
});
