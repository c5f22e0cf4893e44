// Every route's storage operations (R2, KV and Cache API calls), on a cold isolate and a warm one,
// on a fixed small shelf published through the admin API (so KV holds its copies, as in
// production), against the counts recorded in storage-ops.json. A change that adds an operation
// to any route fails here; one that removes some, or adds a route (routes.ts), changes the
// recording, which is re-recorded on purpose with `npx vitest run test/worker/budget -u` and
// explained in the commit. Counting, not timing: the budget bench measures CPU (docs/benchmarks.md).
// The same shelf is also counted as a private one (privateBudgetRoutes), read with an OAuth access
// token obtained through the whole flow before anything is counted, and with a static read token.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { adminEnv, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { forgetIsolateMemory } from "../cold-isolate.ts";
import { accessTokenFor, READ_TOKEN } from "../oauth/headless.ts";
import { type BudgetRoute, budgetRoutes, type PrivateSignIn, privateBudgetRoutes } from "./routes.ts";
import recordedCounts from "./storage-ops.json";
import { countCacheCalls, countingEnv, noOps, type StorageOps } from "./storage-ops.ts";

/** What is recorded per route: its status and each service's calls by method, cold and warm. */
interface Counted {
  status: number;
  cold: Omit<StorageOps, "bytesRead">;
  warm: Omit<StorageOps, "bytesRead">;
}
type Recording = Record<string, Counted>;

const RECORDED: Recording = recordedCounts;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
/** The routes over the published shelf (the plugin archive's path names its digest, known once built), public then private. */
let ROUTES: BudgetRoute[] = [];
/** The private shelf's env: the same bindings and published state, SHELF_VISIBILITY private, OAuth on. */
let privateEnv: Cloudflare.Env;
/** The bearer token each private sign-in sends. */
const bearer: Record<PrivateSignIn, string> = { oauth: "", "read-token": READ_TOKEN };

/** Forgets everything the isolate keeps between requests: the next request is a cold isolate's. */
const coldIsolate = forgetIsolateMemory;

function requestOf(route: BudgetRoute, extraHeaders: Record<string, string> = {}): Request {
  return new Request(`${WORKER_URL}${route.path}`, { method: route.method, headers: { ...route.headers, ...extraHeaders }, body: route.body });
}

/** The calls a request made (bytes left out: the bench reports them, and they move with every format change). */
function calls(ops: StorageOps): Omit<StorageOps, "bytesRead"> {
  const sorted = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { r2: sorted(ops.r2), kv: sorted(ops.kv), cache: sorted(ops.cache) };
}

/**
 * One route counted on a cold isolate, then again warm. `wrap` lets a test change the counted
 * bindings the Worker sees, once per request (the planted extra read).
 */
async function count(route: BudgetRoute, wrap: (e: Cloudflare.Env) => Cloudflare.Env = (e) => e): Promise<Counted> {
  const base = route.signIn ? privateEnv : await adminEnv();
  const headers: Record<string, string> = route.signIn ? { Authorization: `Bearer ${bearer[route.signIn]}` } : {};
  if (route.conditional) {
    coldIsolate();
    const first = await workerFetch(base)(requestOf(route));
    await first.arrayBuffer();
    headers["If-None-Match"] = first.headers.get("ETag") ?? "";
  }
  coldIsolate();
  const run = async () => {
    const ops = noOps();
    countCacheCalls(ops);
    try {
      const response = await workerFetch(wrap(countingEnv(base, ops)))(requestOf(route, headers));
      await response.arrayBuffer();
      return { status: response.status, ops };
    } finally {
      countCacheCalls(undefined);
    }
  };
  const cold = await run();
  const warm = await run();
  return { status: cold.status, cold: calls(cold.ops), warm: calls(warm.ops) };
}

/** Each route, isolate and service whose calls grew against the recording, as "label cold R2 get 3 → 4". */
function increases(recorded: Recording, measured: Recording): string[] {
  const out: string[] = [];
  for (const [label, now] of Object.entries(measured)) {
    const before = recorded[label];
    if (!before) continue;
    for (const isolate of ["cold", "warm"] as const) {
      for (const service of ["r2", "kv", "cache"] as const) {
        const was = before[isolate][service];
        for (const [method, n] of Object.entries(now[isolate][service])) {
          if (n > (was[method] ?? 0)) out.push(`${label} ${isolate} ${service.toUpperCase()} ${method} ${was[method] ?? 0} → ${n}`);
        }
      }
    }
  }
  return out;
}

const FAKE_NOW = new Date("2026-11-30T12:00:00.000Z");

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(FAKE_NOW);
  coldIsolate();
  const built = await buildGeneration([
    await skillInput("solo"),
    await skillInput("nested", {
      // A version, so the version index and /v1/resolve have one to answer.
      "SKILL.md": `---\nname: nested\ndescription: A skill with resources, a binary asset and a script.\nversion: "1.2.0"\n---\n\n# nested\n\nRead the guide first.\n`,
      "references/guide.md": "# Guide\n\nRead me.\n",
      "references/deep/more.md": "# More\n",
      "assets/logo.png": PNG,
      "scripts/run.sh": "#!/bin/sh\necho hi\n",
    }),
    await skillInput("third", { "references/x.md": "x\n" }),
  ]);
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: async () => {} });
  const nested = built.objects
    .filter((o) => o.kind === "record")
    .map((o) => SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))))
    .find((r) => r.name === "nested")!;
  const subject = {
    skill: "nested",
    reference: "references/guide.md",
    asset: "assets/logo.png",
    script: "scripts/run.sh",
    section: "nested",
    query: "guide",
    adminToken: TOKEN,
    pluginArchive: `/.claude-plugin/plugins/nested/${nested.archives.claude_plugin!.sha256}.zip`,
  };
  ROUTES = [...budgetRoutes(subject), ...privateBudgetRoutes(subject)];
  privateEnv = {
    ...(await adminEnv()),
    SHELF_VISIBILITY: "private",
    READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN),
    SHELF_OAUTH_ISSUER: WORKER_URL,
    OAUTH_KV: (env as { OAUTH_KV?: KVNamespace }).OAUTH_KV,
  } as Cloudflare.Env;
  // The token is obtained here, uncounted: registration, sign-in, consent and the code exchange.
  const privateFetch = workerFetch(privateEnv);
  bearer.oauth = await accessTokenFor((input, init) => privateFetch(input instanceof Request ? input : new Request(String(input), init)), {
    origin: WORKER_URL,
    resource: WORKER_URL,
    readToken: READ_TOKEN,
  });
});

afterAll(() => {
  vi.useRealTimers();
});

it("every route answers with no more storage operations, cold and warm, than storage-ops.json records", async () => {
  const measured: Recording = {};
  for (const route of ROUTES) {
    if (measured[route.label]) throw new Error(`two routes in routes.ts are labelled "${route.label}"`);
    measured[route.label] = await count(route);
  }
  const wrongStatus = ROUTES.filter((r) => measured[r.label]!.status !== r.status).map((r) => `${r.label}: ${measured[r.label]!.status}, expected ${r.status}`);
  expect(wrongStatus).toEqual([]);
  // Under -u the recording is rewritten instead: fewer or more operations alike, on purpose.
  if (expect.getState().snapshotState.snapshotUpdateState !== "all") {
    expect(increases(RECORDED, measured), "routes with more storage operations than recorded (re-record with -u only if that is intended)").toEqual([]);
  }
  // One route a line, so a diff shows which routes changed.
  const lines = Object.entries(measured).map(([label, counted]) => `  ${JSON.stringify(label)}: ${JSON.stringify(counted)}`);
  await expect(`{\n${lines.join(",\n")}\n}\n`).toMatchFileSnapshot("./storage-ops.json");
});

it("fails a route that makes one more storage read than recorded (a bucket that reads each object twice)", async () => {
  const route = ROUTES.find((r) => r.label === "GET /skills/nested/SKILL.md")!;
  const recorded = RECORDED[route.label];
  expect(recorded, "storage-ops.json records GET /skills/nested/SKILL.md").toBeDefined();
  const doubled = (e: Cloudflare.Env): Cloudflare.Env => {
    // The planted change: the request's first R2 get is made twice (through the counted binding).
    let extraDone = false;
    const bucket = new Proxy(e.SHELF_BUCKET, {
      get(target, prop, receiver) {
        if (prop !== "get") return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<R2Bucket["get"]>) => {
          if (!extraDone) {
            extraDone = true;
            await target.get(args[0]);
          }
          return target.get(...args);
        };
      },
    });
    return { ...e, SHELF_BUCKET: bucket };
  };
  const measured = await count(route, doubled);
  expect(increases(RECORDED, { [route.label]: measured })).not.toEqual([]);
  // And the same route unplanted is within its recording.
  expect(increases(RECORDED, { [route.label]: await count(route) })).toEqual([]);
});

it("fails a private route whose OAuth token costs one more KV read than recorded (the token looked up twice)", async () => {
  const route = ROUTES.find((r) => r.label === "OAuth GET /skills/nested/SKILL.md")!;
  expect(RECORDED[route.label], "storage-ops.json records OAuth GET /skills/nested/SKILL.md").toBeDefined();
  const twice = (e: Cloudflare.Env): Cloudflare.Env => {
    const kv = (e as unknown as { OAUTH_KV: KVNamespace }).OAUTH_KV;
    // The planted change: every OAuth KV get is made twice (through the counted binding).
    const doubled = new Proxy(kv, {
      get(target, prop, receiver) {
        if (prop !== "get") return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<KVNamespace["get"]>) => {
          await target.get(String(args[0]));
          return (target.get as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
    return { ...e, OAUTH_KV: doubled } as Cloudflare.Env;
  };
  const measured = await count(route, twice);
  expect(measured.status).toBe(200);
  expect(increases(RECORDED, { [route.label]: measured })).not.toEqual([]);
  expect(increases(RECORDED, { [route.label]: await count(route) })).toEqual([]);
});
