// Every route family against the Workers plans' per-request budgets, in workerd, at 1,000 and
// 10,000 skills: for each route of test/worker/budget/routes.ts (the counting test's table), on a
// cold isolate and a warm one, the isolate's CPU from workerd's V8 profiler (bench/budget/inspector.ts),
// storage operations by service (R2, KV, Cache API, counted at the bindings by bench/budget/worker.ts),
// bytes read and the isolate's heap after the request; then the same published state as a private
// shelf with OAuth on, its routes (routes.ts privateBudgetRoutes) read with an OAuth access token
// (obtained through the whole flow first, uncounted) and with a static read token; then an admin
// publish of one changed skill.
// Shelves (bench/shelf-gen.ts's lean skills), their builds and the published Miniflare state are
// cached under ~/.cache/skillshelf/bench-budget, so a second run starts in seconds.
// Run: npm run bench -- --only budget (--quick: 200 skills only; SKILLSHELF_BENCH_BUDGET_SIZES=1000: those sizes only;
// SKILLSHELF_BENCH_BUDGET_ROWS=private or public: only those rows).
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, homedir, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Pool } from "undici";
import { type BudgetRoute, budgetRoutes, type PrivateSignIn, privateBudgetRoutes } from "../test/worker/budget/routes.ts";
import { KV_POINTER_KEY, R2_POINTER_KEY } from "../src/worker/storage/keys.ts";
import { type StorageOps, sum, totalOps } from "../test/worker/budget/storage-ops.ts";
import { accessTokenFor, type FetchFn } from "../test/worker/oauth/headless.ts";
import { Inspector } from "./budget/inspector.ts";
import { benchBudgetSubject } from "./budget/subject.ts";
import type { CountedRequest } from "./budget/worker.ts";
import { pool, send } from "./http/load.ts";
import {
  benchPublishToken,
  benchScratch,
  publishBuild,
  runNode,
  runWorkerdBench,
  skillshelfConfig,
  startWorkerd,
  type Workerd,
  type WorkerdPlan,
} from "./http/workerd.ts";
import { median, ms, QUICK, reportSection, table } from "./report.ts";
import { benchSkillName, writeBenchShelf, writeBenchSkill } from "./shelf-gen.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
/** SKILLSHELF_BENCH_BUDGET_SIZES=1000 (comma-separated) measures only those shelf sizes. */
const SIZES = process.env.SKILLSHELF_BENCH_BUDGET_SIZES
  ? process.env.SKILLSHELF_BENCH_BUDGET_SIZES.split(",").map((n) => Number.parseInt(n, 10))
  : QUICK
    ? [200]
    : [1_000, 10_000];
/** Timed repetitions of each warm request (after one untimed warm-up); their mean is reported. */
const WARM_RUNS = QUICK ? 4 : 10;
/** Cold isolates per route (each its own copy of the Worker); the median is reported. */
const COLD_RUNS = 1;
/** Cold copies per workerd: one workerd holds this many never-used isolates, then is replaced (each costs ~0.3 s of CPU to load). */
const COPIES_PER_WORKERD = 28;
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "skillshelf", "bench-budget");
const SKILLSHELF_CLI = path.join(ROOT, "bin/skillshelf.js");
/** The plans' per-request limits (Cloudflare's limits page and changelog, 2026-02-11). */
const FREE = { cpuMs: 10, ops: 1_000, heapBytes: 128 * 1024 * 1024 };
const PAID = { cpuMs: 30_000, ops: 10_000, heapBytes: 128 * 1024 * 1024 };
/**
 * The private shelf's OAuth issuer: the resource its tokens are bound to, checked against the
 * Worker's own setting only, so every copy (each on its own port) accepts the one token. Grants and
 * clients land in the cached state's OAuth namespace, one small client and grant per run.
 */
const OAUTH_ISSUER = "http://localhost";
/** SKILLSHELF_BENCH_BUDGET_ROWS=private measures only the private shelf's rows (and the publish); public only the public ones. */
const ROWS = process.env.SKILLSHELF_BENCH_BUDGET_ROWS ?? "all";
/** The changed skill of the publish row. */
const CHANGED = 2;

/** One measurement of one request. */
interface Sample {
  /** workerd's CPU time (every thread's on-core time): the isolate plus the storage simulators it called. */
  cpuMs: number;
  /** The isolate's busy time from V8's profiler (wall-clock samples, so inflated by a loaded machine). */
  profilerMs: number;
  ops: StorageOps;
  heapBytes: number;
}

/** A route's figures: medians of CPU, and the ops and heap of the last sample. */
interface Measured {
  route: BudgetRoute;
  cold: Sample;
  warm: Sample;
}

interface SizeResult {
  skills: number;
  rows: Measured[];
  publish: { requests: number; cpuMs: number; profilerMs: number; maxOps: number; totalOps: number; bytesRead: number; maxOpsRequest: string };
  setup: string;
  /** The cold floor: a Worker with nothing of skillshelf in it making R2 and KV reads as its first request. */
  floor: FloorSample[];
  /** Each warm isolate's live heap after it served every route of its configuration (Inspector.liveHeap). */
  live: { config: "public" | "private"; liveBytes: number; usedBefore: number }[];
}

/** One shape of the cold floor: R2 and KV reads in a never-used bare isolate's first request (medians). */
interface FloorSample {
  r2: number;
  kv: number;
  cpuMs: number;
  profilerMs: number;
}

/** The floor's shapes: nothing, one of each, both, a single-skill row's (SKILL.md: 3 · 2) and a cold listing's at 1,000 skills (8 · 2). */
const FLOOR_SHAPES: readonly [number, number][] = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
  [3, 2],
  [8, 2],
];
/** Never-used copies per floor shape (the median is reported). */
const FLOOR_RUNS = 3;

const tmp = benchScratch("skillshelf-budget-bench-");
const started = performance.now();
const loadAtStart = loadavg()[0]!;
await runWorkerdBench(main, tmp);

async function main(): Promise<void> {
  console.log(`budget: ${SIZES.join(" and ")} skills; ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadAtStart.toFixed(2)}; cache ${CACHE}`);
  const bundle = await bundleBudgetWorker();
  const results: SizeResult[] = [];
  for (const skills of SIZES) {
    const result = await measureSize(skills, bundle);
    results.push(result);
    // Printed as soon as a size is done: the next size can take minutes, and a failure there would lose it.
    console.log(`\n${sizeSection(result, [])}\n`);
  }
  report(results);
}

/** The budget Worker (bench/budget/worker.ts around skillshelf's app), bundled as a deploy is. */
async function bundleBudgetWorker(): Promise<{ dir: string; main: string }> {
  const dir = path.join(tmp, "bundle");
  await runNode([path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "bench/budget/worker.ts", "--dry-run", "--outdir", dir], {
    cwd: ROOT,
    env: { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn" },
  });
  if (!existsSync(path.join(dir, "worker.js"))) throw new Error(`wrangler deploy --dry-run wrote no worker.js to ${dir}`);
  return { dir, main: "worker.js" };
}

/** The shelf of `skills` lean skills, generated once per version of shelf-gen.ts, and built (incrementally) into the cache. */
async function preparedShelf(skills: number): Promise<{ shelf: string; build: string; state: string; note: string }> {
  const generator = createHash("sha256")
    .update(readFileSync(path.join(ROOT, "bench/shelf-gen.ts")))
    .digest("hex")
    .slice(0, 12);
  const home = path.join(CACHE, `lean-${skills}`);
  const shelf = path.join(home, "shelf");
  const marker = path.join(home, `generated-${generator}`);
  let note = "cached";
  if (!existsSync(marker)) {
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    const t0 = performance.now();
    writeBenchShelf(shelf, skills, "lean");
    writeFileSync(marker, "");
    note = `generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`;
  }
  // The publish row leaves one skill changed: put it back before building (the build is incremental).
  writeBenchSkill(shelf, CHANGED, 0, [], "lean");
  const build = path.join(home, "build");
  const built = await runNode([SKILLSHELF_CLI, "build", shelf, "--out", build], { cwd: ROOT });
  return { shelf, build, state: path.join(home, "state"), note: `shelf ${note}, build ${built.seconds.toFixed(0)} s` };
}

async function measureSize(skills: number, bundle: { dir: string; main: string }): Promise<SizeResult> {
  const t0 = performance.now();
  const { shelf, build, state, note } = await preparedShelf(skills);
  const { token, vars } = benchPublishToken();
  const config = skillshelfConfig(ROOT);
  const base: WorkerdPlan = {
    stateDir: state,
    inspector: true,
    skillshelf: {
      bundle,
      config,
      // The Cache API off, as on workers.dev where a Free-plan team starts: Miniflare keeps its
      // cache in the cached state across runs, so a "cold" listing would otherwise be a cache hit.
      extraVars: { ...vars, SHELF_LIVE_TTL_MS: "30000", SHELF_EDGE_CACHE: "off" },
    },
  };
  const subject = benchBudgetSubject(build, token);

  let setup = note;
  // The public shelf: the warm isolate first publishes the build (uploading only what the cached state lacks).
  const publicRun = await measureRoutes(base, async (main) => {
    const published = await publishBuild(main.skillshelf!, build, token);
    setup = `${note}, publish ${published.seconds.toFixed(0)} s`;
    console.log(`  ${skills} skills: ${setup}`);
    return ROWS === "private" ? [] : budgetRoutes(subject);
  });
  // The same published state as a private shelf with OAuth on: the warm isolate first signs in
  // through the whole OAuth flow (uncounted, as a host does once an hour), then every private route
  // sends that access token, or the static read token.
  const readToken = randomBytes(24).toString("hex");
  const privatePlan: WorkerdPlan = {
    ...base,
    skillshelf: {
      ...base.skillshelf!,
      config: { ...config, kv: [...config.kv, "OAUTH_KV"] },
      extraVars: {
        ...base.skillshelf!.extraVars,
        SHELF_VISIBILITY: "private",
        READ_TOKEN_SHA256: createHash("sha256").update(readToken).digest("hex"),
        SHELF_OAUTH_ISSUER: OAUTH_ISSUER,
        SHELF_SESSION_KEY: randomBytes(32).toString("hex"),
      },
    },
  };
  const privateRun =
    ROWS === "public"
      ? undefined
      : await measureRoutes(privatePlan, async (main) => {
          const bearer: Record<PrivateSignIn, string> = {
            oauth: await accessTokenFor(asIssuer(main.skillshelf!), { origin: main.skillshelf!.origin, resource: OAUTH_ISSUER, readToken }),
            "read-token": readToken,
          };
          return privateBudgetRoutes(subject).map((route) => ({ ...route, headers: { ...route.headers, Authorization: `Bearer ${bearer[route.signIn!]}` } }));
        });
  const floor = await measureStorageFloor(base);
  // Last, as it changes the shelf (and so the ETags the cold 304s send): a warmed isolate takes a publish.
  const last = await startWorkerd(base);
  let publish: SizeResult["publish"];
  const publishInspector = await Inspector.connect(last.inspector!, "skillshelf");
  try {
    const warmUp = pool(last.skillshelf!, 1);
    for (const path of ["/skills/index.json", `/skills/${benchSkillName(CHANGED)}/SKILL.md`]) await send(warmUp, { path, status: 200 });
    await send(warmUp, { path: "/admin/v1/pointer", headers: { Authorization: `Bearer ${token}` }, status: 200 });
    await warmUp.destroy();
    publish = await measurePublish(shelf, build, token, last, publishInspector);
  } finally {
    publishInspector.close();
    await last.stop();
  }
  console.log(`  ${skills} skills measured in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const live = [
    ...(ROWS === "private" ? [] : [{ config: "public" as const, ...publicRun.live }]),
    ...(privateRun ? [{ config: "private" as const, ...privateRun.live }] : []),
  ];
  return { skills, rows: [...publicRun.rows, ...(privateRun?.rows ?? [])], publish, setup, live, floor };
}

/**
 * Routes on one configuration of the shelf: a warm isolate (where `prepare` first publishes or signs
 * in, uncounted, and returns the routes) serves each route in turn; then each route is the first
 * request of a never-used copy of the Worker.
 */
async function measureRoutes(
  plan: WorkerdPlan,
  prepare: (main: Workerd) => Promise<BudgetRoute[]>,
): Promise<{ rows: Measured[]; live: { liveBytes: number; usedBefore: number } }> {
  const main = await startWorkerd(plan);
  let live = { liveBytes: 0, usedBefore: 0 };
  const warm = new Map<string, Sample>();
  /** A 304 route's conditional headers: the ETag the warm isolate answered, and its Host (the marketplace names the host it is served from, so a copy on another port sends the same Host to get the same document). */
  const etags = new Map<string, Record<string, string>>();
  let routes: BudgetRoute[];
  // Every isolate of a deployment answers one hostname: the cold copies (each on its own port) send
  // the warm isolate's, so a document naming its origin (the marketplace) is the same document.
  const host = { Host: main.skillshelf!.host };
  try {
    routes = await prepare(main);
    const warmPool = pool(main.skillshelf!, 1);
    const warmInspector = await Inspector.connect(main.inspector!, "skillshelf");
    try {
      for (const route of routes) {
        if (route.conditional) {
          const plain = await send(warmPool, { path: route.path, headers: route.headers, status: 200 });
          etags.set(route.label, { "If-None-Match": String(plain.headers.etag), Host: main.skillshelf!.host });
        }
        warm.set(route.label, await measureWarm(main, warmPool, warmInspector, main.skillshelf!, route, etags.get(route.label)));
      }
      // What the warm isolate holds once every route has filled its caches, garbage collected.
      live = await warmInspector.liveHeap();
    } finally {
      warmInspector.close();
      await warmPool.destroy();
    }
  } finally {
    await main.stop();
  }

  // Cold isolates: each route's request is the first its copy of the Worker ever serves.
  const coldSamples = new Map<string, Sample[]>();
  const jobs = routes.flatMap((route) => Array.from({ length: COLD_RUNS }, () => route));
  for (let i = 0; i < jobs.length; i += COPIES_PER_WORKERD) {
    const batch = jobs.slice(i, i + COPIES_PER_WORKERD);
    const copies = batch.map((_r, j) => `cold-${j}`);
    const workerd = await startWorkerd({ ...plan, skillshelf: { ...plan.skillshelf!, copies } });
    try {
      for (const [j, route] of batch.entries()) {
        const sample = await measureCold(workerd, copies[j]!, route, { ...host, ...etags.get(route.label) });
        coldSamples.set(route.label, [...(coldSamples.get(route.label) ?? []), sample]);
      }
    } finally {
      await workerd.stop();
    }
  }
  return { rows: routes.map((route) => ({ route, warm: warm.get(route.label)!, cold: medianSample(coldSamples.get(route.label)!) })), live };
}

/**
 * A fetch into the Worker at `origin` that names the OAuth issuer's host in every request: the
 * library answers its endpoints only at the issuer's own origin, and workerd takes a request's
 * URL from its Host header (Node's fetch will not send another Host, so this goes through undici).
 */
function asIssuer(origin: URL): FetchFn {
  const host = new URL(OAUTH_ISSUER).host;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init?.headers)), host };
    const target = pool(origin, 1);
    try {
      const answer = await target.request({
        method: (init?.method ?? "GET") as "GET",
        path: url.pathname + url.search,
        headers,
        body: init?.body as string | undefined,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      const out = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) for (const v of [value ?? []].flat()) out.append(name, v);
      return new Response(body.byteLength ? body : null, { status: answer.statusCode, headers: out });
    } finally {
      await target.destroy();
    }
  };
}

function requestOf(route: BudgetRoute, conditional: Record<string, string> | undefined) {
  return { ...route, headers: { ...route.headers, ...conditional } };
}

/** What the Worker counted for the requests since the last read. */
async function countedSince(origin: URL): Promise<CountedRequest[]> {
  const response = await fetch(new URL("/__budget/ops", origin));
  return (await response.json()) as CountedRequest[];
}

async function measureWarm(
  workerd: Workerd,
  target: Pool,
  inspector: Inspector,
  origin: URL,
  route: BudgetRoute,
  conditional: Record<string, string> | undefined,
): Promise<Sample> {
  const request = requestOf(route, conditional);
  await send(target, request);
  let nanos = 0n;
  const profilerMs = await inspector.busyMs(async () => {
    // Inside the profiled span, so starting and stopping the profiler (workerd serialises the profile) is not counted.
    const before = workerd.cpuNanos();
    for (let i = 0; i < WARM_RUNS; i++) await send(target, request);
    nanos = workerd.cpuNanos() - before;
  });
  const cpuMs = Number(nanos) / 1e6 / WARM_RUNS;
  const counted = await countedSince(origin);
  return { cpuMs, profilerMs: profilerMs / WARM_RUNS, ops: counted.at(-1)!.ops, heapBytes: await inspector.heapUsed() };
}

async function measureCold(workerd: Workerd, name: string, route: BudgetRoute, headers: Record<string, string>): Promise<Sample> {
  const origin = workerd.copies[name]!;
  const inspector = await Inspector.connect(workerd.inspector!, name);
  const target = pool(origin, 1);
  try {
    let nanos = 0n;
    const profilerMs = await inspector.busyMs(async () => {
      const before = workerd.cpuNanos();
      await send(target, requestOf(route, headers));
      nanos = workerd.cpuNanos() - before;
    });
    const cpuMs = Number(nanos) / 1e6;
    const counted = await countedSince(origin);
    if (counted.length !== 1) throw new Error(`cold ${route.label}: the copy served ${counted.length} requests, expected 1`);
    return { cpuMs, profilerMs, ops: counted[0]!.ops, heapBytes: await inspector.heapUsed() };
  } finally {
    inspector.close();
    await target.destroy();
  }
}

/**
 * The cold floor under the cold rows: each shape's reads as the first request of never-used copies
 * of bench/budget/storage-floor-worker.js in one workerd over the same state, measured as a cold
 * row is (workerd's CPU and the isolate's profiler).
 */
async function measureStorageFloor(plan: WorkerdPlan): Promise<FloorSample[]> {
  const jobs = FLOOR_SHAPES.flatMap((shape) => Array.from({ length: FLOOR_RUNS }, () => shape));
  const copies = jobs.map((_s, i) => `floor-${i}`);
  const workerd = await startWorkerd({
    stateDir: plan.stateDir,
    inspector: true,
    storageFloor: { copies, compatibilityDate: plan.skillshelf!.config.compatibilityDate, r2Key: R2_POINTER_KEY, kvKey: KV_POINTER_KEY },
  });
  const samples: (FloorSample & { shape: string })[] = [];
  try {
    for (const [i, [r2, kv]] of jobs.entries()) {
      const inspector = await Inspector.connect(workerd.inspector!, copies[i]!);
      const target = pool(workerd.copies[copies[i]!]!, 1);
      try {
        let nanos = 0n;
        const profilerMs = await inspector.busyMs(async () => {
          const before = workerd.cpuNanos();
          await send(target, { path: `/?r2=${r2}&kv=${kv}`, status: 200 });
          nanos = workerd.cpuNanos() - before;
        });
        samples.push({ shape: `${r2}·${kv}`, r2, kv, cpuMs: Number(nanos) / 1e6, profilerMs });
      } finally {
        inspector.close();
        await target.destroy();
      }
    }
  } finally {
    await workerd.stop();
  }
  return FLOOR_SHAPES.map(([r2, kv]) => {
    const of = samples.filter((s) => s.r2 === r2 && s.kv === kv);
    return { r2, kv, cpuMs: median(of.map((s) => s.cpuMs)), profilerMs: median(of.map((s) => s.profilerMs)) };
  });
}

function medianSample(samples: Sample[]): Sample {
  const byCpu = [...samples].sort((a, b) => a.cpuMs - b.cpuMs);
  return { ...byCpu[byCpu.length >> 1]!, cpuMs: median(samples.map((s) => s.cpuMs)), profilerMs: median(samples.map((s) => s.profilerMs)) };
}

/** One skill changed, rebuilt, and published through the admin API to the warm isolate: CPU over the whole publish, operations per request. */
async function measurePublish(shelf: string, build: string, token: string, workerd: Workerd, inspector: Inspector): Promise<SizeResult["publish"]> {
  // A revision no earlier run published (the cached state keeps every revision uploaded before), so the publish uploads the change.
  const revision = 1 + (Math.floor(Date.now() / 1000) % 1_000_000);
  writeBenchSkill(shelf, CHANGED, revision, [], "lean");
  await runNode([SKILLSHELF_CLI, "build", shelf, "--out", build], { cwd: ROOT });
  await countedSince(workerd.skillshelf!);
  let nanos = 0n;
  const profilerMs = await inspector.busyMs(async () => {
    const before = workerd.cpuNanos();
    await publishBuild(workerd.skillshelf!, build, token);
    nanos = workerd.cpuNanos() - before;
  });
  const cpuMs = Number(nanos) / 1e6;
  const counted = await countedSince(workerd.skillshelf!);
  const heaviest = counted.reduce((a, b) => (totalOps(b.ops) > totalOps(a.ops) ? b : a));
  return {
    requests: counted.length,
    cpuMs,
    profilerMs,
    maxOps: totalOps(heaviest.ops),
    maxOpsRequest: `${heaviest.method} ${heaviest.path.replace(/[0-9a-f]{64}/g, "…")}`,
    totalOps: counted.reduce((n, c) => n + totalOps(c.ops), 0),
    bytesRead: counted.reduce((n, c) => n + c.ops.bytesRead, 0),
  };
}

function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} B`;
}

/** "R2 3 · KV 2 · Cache 0". */
function opsCell(ops: StorageOps): string {
  return `${sum(ops.r2)} · ${sum(ops.kv)} · ${sum(ops.cache)}`;
}

/** Which of a sample's figures exceed a plan's limits. */
function over(sample: Sample, plan: typeof FREE): string[] {
  const out: string[] = [];
  if (sample.cpuMs > plan.cpuMs) out.push(`CPU ${ms(sample.cpuMs)}`);
  if (totalOps(sample.ops) > plan.ops) out.push(`${count(totalOps(sample.ops))} ops`);
  // Not the heap: a row's figure includes garbage V8 collects before it would reach the limit; the
  // live heap of each warm isolate (sizeSection) is what the 128 MB bounds.
  return out;
}

function verdict(row: Measured): string {
  const free = [...over(row.cold, FREE).map((x) => `cold ${x}`), ...over(row.warm, FREE).map((x) => `warm ${x}`)];
  const paid = [...over(row.cold, PAID), ...over(row.warm, PAID)];
  if (paid.length) return `**over Paid** (${paid.join(", ")})`;
  return free.length ? `**over Free** (${free.join(", ")})` : "ok";
}

function report(results: SizeResult[]): void {
  const seconds = (performance.now() - started) / 1000;
  const loadEnd = loadavg()[0]!;
  const sections: string[] = [];
  const overFree: string[] = [];
  for (const result of results) sections.push(sizeSection(result, overFree));
  const markdown = [
    `Every route of \`test/worker/budget/routes.ts\` (the counting test's table) against skillshelf's deploy bundle, wrapped by \`bench/budget/worker.ts\` to count storage operations at the bindings, in workerd (Miniflare, the simulator \`wrangler dev\` runs), over \`bench/shelf-gen.ts\`'s lean skills (~10 KiB in five files each) built with \`skillshelf build\` and published with \`skillshelf publish\` through the admin API, so KV holds its copies as in production.`,
    "",
    `- **CPU:** workerd's CPU time during the request: the on-core nanoseconds of all its threads (/proc/<pid>/task/*/schedstat), which a loaded machine does not inflate, but which include the R2 and KV simulators the request called (Miniflare runs them in the same process; about 1 ms per warm operation, the http section's bare Worker) and the inspector's sampling, so it is an upper bound of the isolate's own. In brackets, the isolate's busy time from workerd's V8 sampling profiler over its inspector (\`bench/budget/inspector.ts\`, 1 ms samples, non-idle ones): the isolate alone, but wall-clock, so time the thread waited for a core counts too, and a request shorter than a sample can show none. Cold: ${COLD_RUNS === 1 ? "one never-used isolate" : `the median of ${COLD_RUNS} never-used isolates`} per route (a copy of the Worker in a workerd of up to ${COPIES_PER_WORKERD}, its module evaluated at start-up as on Cloudflare, where that is not request CPU, sent with the warm isolate's Host as every isolate of a deployment is), after the warm isolate served every route, so a shelf-wide listing is the one that isolate kept in R2 (\`src/worker/read/rendered.ts\`: the common cold isolate; the first build after a publish costs what \`SKILLSHELF_BENCH_RENDERED=off\` measures, plus one R2 get and one put); warm: the mean of ${WARM_RUNS} repetitions after one warm-up, on an isolate that has served every route above it. The verdict uses workerd's CPU time.`,
    "- **ops:** binding calls per request, R2 · KV · Cache API (a KV bulk get is one call; KV counts the shelf's namespace and OAuth's); **read:** bytes those calls returned; **heap:** V8's used heap of the isolate after the request (Runtime.getHeapUsage): live objects and garbage not yet collected, so an upper bound, and not what the verdict judges: each warm isolate's live heap, measured once after every route (below each table), is. The Cache API is off (`SHELF_EDGE_CACHE=off`, as on workers.dev, where a Free-plan team starts), so a cold listing reads its shards, or the copy another isolate kept in R2 (above).",
    "- **private** rows: the same published state served as a private shelf with OAuth on (`SHELF_VISIBILITY=private`, `SHELF_OAUTH_ISSUER`, an `OAUTH_KV` namespace), each request signed in with an OAuth access token (`OAuth …`, obtained through registration, sign-in, consent and the PKCE code exchange before the rows, not counted in any) or with a static read token held as `READ_TOKEN_SHA256` (`read token …`). A private shelf never uses the Cache API (a cached answer would skip read access).",
    `- **Free plan:** 10 ms CPU, 1,000 operations on Cloudflare services, 128 MB per isolate; Paid defaults 30 s, 10,000, 128 MB. A row is **over Free** when either its cold or its warm figure exceeds one of these.`,
    `- **Run:** ${QUICK ? "quick mode (figures indicative only), " : ""}${seconds.toFixed(0)} s in all; load average ${loadAtStart.toFixed(2)} at the start, ${loadEnd.toFixed(2)} at the end, on ${cpus().length} cores.`,
    "",
    ...sections.flatMap((s) => [s, ""]),
    overFree.length
      ? `**Over the Free plan's budgets:**\n\n${overFree.map((line) => `- ${line}`).join("\n")}`
      : "**Every route is within the Free plan's budgets.**",
  ].join("\n");
  reportSection("budget", markdown);
}

/** One shelf size's table and publish line; its rows over the Free plan are added to `overFree`. */
function sizeSection(result: SizeResult, overFree: string[]): string {
  const rows = result.rows.map((row) => {
    const v = verdict(row);
    if (v !== "ok") overFree.push(`${count(result.skills)} skills: ${row.route.label} (${v.replace(/\*\*/g, "")})`);
    return [
      row.route.family,
      `\`${row.route.label}\``,
      `${ms(row.cold.cpuMs)} (${ms(row.cold.profilerMs)})`,
      opsCell(row.cold.ops),
      bytes(row.cold.ops.bytesRead),
      bytes(row.cold.heapBytes),
      `${ms(row.warm.cpuMs)} (${ms(row.warm.profilerMs)})`,
      opsCell(row.warm.ops),
      bytes(row.warm.ops.bytesRead),
      bytes(row.warm.heapBytes),
      v,
    ];
  });
  const liveLines = result.live.map((l) => {
    const over = l.liveBytes > FREE.heapBytes;
    if (over) overFree.push(`${count(result.skills)} skills: the warm ${l.config} isolate's live heap ${bytes(l.liveBytes)}`);
    return `- the ${l.config} shelf's warm isolate: **${bytes(l.liveBytes)} live** (${bytes(l.usedBefore)} used before the collection)${over ? " — **over the 128 MB an isolate may use**" : ", within 128 MB"}`;
  });
  const p = result.publish;
  const publishOver = p.cpuMs > FREE.cpuMs || p.maxOps > FREE.ops;
  if (publishOver)
    overFree.push(
      `${count(result.skills)} skills: admin publish of one changed skill (CPU ${ms(p.cpuMs)} over ${p.requests} requests, at most ${p.maxOps} ops in one)`,
    );
  return [
    `**${count(result.skills)} skills** (${result.setup}):`,
    "",
    table(
      [
        "Family",
        "Route",
        "cold CPU (profiler)",
        "cold ops R2 · KV · Cache",
        "cold read",
        "cold heap",
        "warm CPU (profiler)",
        "warm ops R2 · KV · Cache",
        "warm read",
        "warm heap",
        "Free plan",
      ],
      rows,
    ),
    "",
    `Cold floor under these rows (\`bench/budget/storage-floor-worker.js\`: a Worker with nothing of skillshelf in it, over the same state, its first request making R2 · KV reads of the pointer; the median of ${FLOOR_RUNS} never-used copies each; workerd CPU, profiler in brackets): ${result.floor
      .map((f) => `${f.r2} · ${f.kv}: ${ms(f.cpuMs)} (${ms(f.profilerMs)})`)
      .join("; ")}. A cold row's CPU above the floor of its operations is skillshelf's own (and the counting wrapper's).`,
    "",
    "Live heap after the warm isolate served every route above, its caches full (a V8 heap snapshot collects all garbage first; `Inspector.liveHeap`):",
    "",
    ...liveLines,
    "",
    `Admin publish of one changed skill (\`skillshelf publish\` to the warm isolate, ${p.requests} requests): ${ms(p.cpuMs)} of workerd CPU for all of them together (profiler ${ms(p.profilerMs)}; the CLI's build is not in it), ${count(p.totalOps)} storage operations in all, at most ${count(p.maxOps)} in one request (${p.maxOpsRequest}), ${bytes(p.bytesRead)} read${publishOver ? " — **over the Free plan's per-request budget if one request took it all**" : ""}.`,
  ].join("\n");
}
