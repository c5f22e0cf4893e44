// CPU cost of GET /v1/catalog and GET /v1/fast-path, as requests through the whole Worker app
// (src/worker/index.ts: CORS, the read path's guard, the request's shelf service, the contract's
// query validation, the computed-answer cache, the core's renderCatalog) in Node's V8 over
// in-memory R2 and KV bindings, side by side with the baseline the CLI pays: renderCatalog over
// the same skills' metadata alone. Then the growth from 1,000 to 10,000 skills, the two shelves
// measured in alternating rounds. The budget is under 5 ms CPU on a miss and a hit at 1,000.
// Run: npm run bench -- --only catalog. Not a test: nothing here asserts.
import { PerformanceObserver } from "node:perf_hooks";
import { renderCatalog, type CatalogOptions } from "../src/core/disclosure/catalog.ts";
import type { SkillMetadata } from "../src/core/skill/skill.ts";
import {
  benchSkill,
  callsCell,
  cpuCell,
  cpuPerCall,
  CpuSamples,
  emptyKv,
  growthCell,
  machineLine,
  MemoryBucket,
  publishInMemory,
  shardFootprint,
  storageNote,
  type Cpu,
  type StorageCall,
} from "./harness.ts";
import { ms, QUICK, ratio, reportSection, table } from "./report.ts";

/**
 * A Worker module, loaded untyped: its sources use the Workers types (R2Bucket, FixedLengthStream),
 * which the Node type check that covers bench/ does not have. The shapes used are declared below.
 */
async function workerModule<T>(path: string): Promise<T> {
  const url = new URL(`../src/worker/${path}`, import.meta.url).href;
  return (await import(url)) as T;
}

const { buildCatalog, catalogArgs } = await workerModule<{
  buildCatalog(served: unknown[], args: unknown): unknown;
  catalogArgs(query: Record<string, string>): unknown;
}>("views/api/catalog.ts");
const { resetComputedCache } = await workerModule<{ resetComputedCache(): void }>("read/respond.ts");
const { ShelfService } = await workerModule<{ ShelfService: new (env: object) => { skills(): Promise<unknown[]> } }>("shelf/service.ts");
const { resetStorageMemory } = await workerModule<{ resetStorageMemory(): void }>("storage/index.ts");
const { default: app } = await workerModule<{ default: { request(url: string, init: RequestInit, env: object): Promise<Response> } }>("index.ts");

const encoder = new TextEncoder();
const fmt = (n: number) => n.toLocaleString("en-US");
const decoder = new TextDecoder();
/** The detailed tables' shelf and the growth's two: 1,000 and 10,000 skills (200 and 2,000 in quick mode, which only indicates). */
const [SMALL, LARGE] = QUICK ? [200, 2_000] : [1_000, 10_000];
/** Rounds of the growth table (each measures both shelves), and calls per measurement. */
const ROUNDS = QUICK ? 3 : 5;
const RUNS = QUICK ? 10 : 30;
const COLD_RUNS = QUICK ? 3 : 10;
const growthRuns = (n: number) => (n >= 10_000 ? 4 : n >= 2_000 ? 6 : 20);

/** A SKILL.md of typical size with every catalog field (the same shape bench/disclosure.bench.ts renders). */
function skillMd(i: number): string {
  const id = String(i).padStart(5, "0");
  const lines = [
    `name: skill-${id}`,
    `description: ${JSON.stringify(`Skill ${id} handles <incidents> & reviews for team ${i % 17}: a description of typical length, around one hundred and fifty characters.`)}`,
    ...(i % 3 === 0 ? [`version: 1.${i % 10}.0`] : []),
    "when_to_use:",
    `  - "When the request mentions topic ${i % 23}"`,
    '  - "When a checklist is needed"',
    ...(i % 2 === 0 ? ["when_not_to_use:", '  - "Never for unrelated chores"'] : []),
    "metadata:",
    `  tags: "team-${i % 17}, ${i % 5 === 0 ? "Ops" : "dev"}"`,
  ];
  return `---\n${lines.join("\n")}\n---\n\n# Skill ${id}\n\nFollow the steps.\n`;
}

/** One stored shelf: its bindings (storage calls counted) and its skills' metadata, the CLI's input. */
interface Shelf {
  n: number;
  bindings: { SHELF_BUCKET: MemoryBucket; SHELF_KV: ReturnType<typeof emptyKv>; SHELF_VISIBILITY: string };
  metas: SkillMetadata[];
  shards: { count: number; bytes: number };
  /** Storage calls by kind ("R2.get", "KV.get", …) since the last reset. */
  calls: Map<StorageCall, number>;
}

async function seedShelf(n: number): Promise<Shelf> {
  const skills = [];
  for (let i = 0; i < n; i++) {
    skills.push(await benchSkill(`skill-${String(i).padStart(5, "0")}`, [{ path: "SKILL.md", bytes: encoder.encode(skillMd(i)) }]));
  }
  const calls = new Map<StorageCall, number>();
  const count = (call: StorageCall) => void calls.set(call, (calls.get(call) ?? 0) + 1);
  const bucket = new MemoryBucket(count);
  const built = await publishInMemory(
    bucket,
    skills.map((s) => s.input),
  );
  calls.clear();
  const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(count), SHELF_VISIBILITY: "public" };
  return { n, bindings, metas: skills.map((s) => s.metadata), shards: shardFootprint(built), calls };
}

// The whole Worker app (src/worker/index.ts): the read path's one guard, the read API, the computed-answer cache.

let current: Shelf;
/** Makes `shelf` the one requests go to, on a fresh isolate (module memory is per isolate, not per binding). */
function use(shelf: Shelf): void {
  resetComputedCache();
  resetStorageMemory();
  current = shelf;
}

/** One request through the chain, its body read as bytes. */
async function request(path: string, init: RequestInit = {}): Promise<Uint8Array> {
  const res = await app.request(`https://shelf.test${path}`, init, current.bindings);
  if (res.status !== 200 && res.status !== 304) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const started = Date.now();
const small = await seedShelf(SMALL);
const large = await seedShelf(LARGE);
console.log(`seeded ${SMALL} and ${LARGE} skills in ${((Date.now() - started) / 1000).toFixed(0)} s; ${machineLine()}; the /v1 chain, in-memory R2, empty KV`);

// --- The detailed tables, on the smaller shelf.
const detailStarted = Date.now();
use(small);
const cases: Array<[string, string, CatalogOptions]> = [
  ["xml, all", "", {}],
  ["markdown, all", "?format=markdown", { format: "markdown" }],
  ["xml, max_chars=8000", "?max_chars=8000", { maxChars: 8000 }],
  [
    "tags, total, no hints (md)",
    `?tags=ops,team-3&total=${SMALL}&selection_hints=false&format=markdown`,
    { tags: ["ops", "team-3"], total: SMALL, selectionHints: false, format: "markdown" },
  ],
];
const detailRows = [
  "baseline: `renderCatalog` alone (the CLI)",
  "view: `shelf.skills()` + `buildCatalog`",
  "GET, miss, warm isolate",
  "GET, hit",
  "GET, miss, cold isolate",
];
const detail: string[][] = detailRows.map((label) => [label]);
const sizes: string[] = [];
for (const [label, query, options] of cases) {
  const path = `/v1/catalog${query}`;
  const body = decoder.decode(await request(path));
  if (body !== renderCatalog(small.metas, options)) throw new Error(`${path} differs from renderCatalog`);
  sizes.push(`${label} (${(body.length / 1024).toFixed(0)} KiB)`);
  const args = catalogArgs(Object.fromEntries(new URLSearchParams(query)));
  const measured = [
    await cpuPerCall(() => renderCatalog(small.metas, options), RUNS),
    await cpuPerCall(async () => buildCatalog(await new ShelfService(small.bindings).skills(), args), RUNS),
    await cpuPerCall(() => request(path), RUNS, resetComputedCache),
    await cpuPerCall(() => request(path), RUNS),
    await cpuPerCall(
      () => request(path),
      COLD_RUNS,
      () => use(small),
    ),
  ];
  for (const [i, cpu] of measured.entries()) detail[i]!.push(cpuCell(cpu));
  console.log(`${path}: ${measured.map(cpuCell).join(", ")}`);
}
const etag = (await app.request("https://shelf.test/v1/catalog", {}, small.bindings)).headers.get("ETag")!;
const others: Array<[string, Cpu]> = [
  [
    "opening the same storage alone, cold isolate (`shelf.skills()`)",
    await cpuPerCall(
      () => new ShelfService(small.bindings).skills(),
      COLD_RUNS,
      () => use(small),
    ),
  ],
  ["`/v1/catalog` with its `ETag` (304 from the key alone)", await cpuPerCall(() => request("/v1/catalog", { headers: { "If-None-Match": etag } }), RUNS)],
  [`\`/v1/fast-path\` (${SMALL} in play, no body read), miss`, await cpuPerCall(() => request("/v1/fast-path"), RUNS, resetComputedCache)],
  ["`/v1/fast-path`, hit", await cpuPerCall(() => request("/v1/fast-path"), RUNS)],
  ["`/v1/fast-path?include=<one>` (its body in memory), miss", await cpuPerCall(() => request("/v1/fast-path?include=skill-00007"), RUNS, resetComputedCache)],
];
for (const [label, cpu] of others) console.log(`${label}: ${cpuCell(cpu)}`);

console.log(`detailed tables in ${((Date.now() - detailStarted) / 1000).toFixed(0)} s`);

// --- Growth: every row at both sizes, the shelves alternating round by round.
// V8's GC entries, summed as they arrive (they are delivered asynchronously, after the pause).
let gcPaused = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPaused += entry.duration;
}).observe({ entryTypes: ["gc"] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Calls of `fn` to run for about 200 ms of CPU, so the user/system split (sampled at clock ticks) means something. */
function runsFor(fn: () => unknown): number {
  const start = process.threadCpuUsage();
  fn();
  const used = process.threadCpuUsage(start);
  return Math.min(200, Math.max(3, Math.ceil(200_000 / Math.max(used.user + used.system, 1))));
}

/** Per call of `fn`, after a forced GC: user and system CPU of the main thread, minor page faults, GC pauses (wall). */
async function anatomy(fn: () => unknown): Promise<{ user: number; system: number; faults: number; gc: number }> {
  const runs = runsFor(fn);
  (globalThis as { gc?: () => void }).gc?.();
  await settle();
  const [cpu, usage, paused] = [process.threadCpuUsage(), process.resourceUsage(), gcPaused];
  for (let i = 0; i < runs; i++) fn();
  const used = process.threadCpuUsage(cpu);
  const faults = process.resourceUsage().minorPageFault - usage.minorPageFault;
  await settle();
  return { user: used.user / 1000 / runs, system: used.system / 1000 / runs, faults: faults / runs, gc: (gcPaused - paused) / runs };
}

/** The xml catalog cut into one flat string per entry: joining them again is the least work that yields its bytes. */
function entryPieces(text: string): string[] {
  const starts = [0];
  for (let at = text.indexOf("\n  <skill>"); at >= 0; at = text.indexOf("\n  <skill>", at + 1)) starts.push(at);
  // Decoding a copy gives each piece its own flat string rather than a slice of the catalog's.
  return starts.map((start, k) => decoder.decode(encoder.encode(text.slice(start, starts[k + 1] ?? text.length))));
}
const pieces = new Map([small, large].map((shelf) => [shelf, entryPieces(renderCatalog(shelf.metas))]));
for (const [shelf, list] of pieces)
  if (list.join("") !== renderCatalog(shelf.metas)) throw new Error(`the floor's pieces do not rebuild the ${shelf.n}-skill catalog`);

/** A growth ratio, or a dash when the smaller figure is too small to divide by. */
function grew(large: number, small: number): string {
  return small > 1e-3 ? ratio(large, small) : "–";
}

type GrowthRow = [label: string, fn: (shelf: Shelf) => unknown, before?: () => void];
const growthRows: GrowthRow[] = [
  ["`renderCatalog`, xml (the CLI's work)", (shelf) => renderCatalog(shelf.metas)],
  ["`renderCatalog`, markdown", (shelf) => renderCatalog(shelf.metas, { format: "markdown" })],
  ["floor: one join of the xml catalog's bytes, one flat piece per entry", (shelf) => pieces.get(shelf)!.join("")],
  ["GET `/v1/catalog` (xml), miss, warm isolate", () => request("/v1/catalog"), resetComputedCache],
  ["GET `/v1/catalog?format=markdown`, miss, warm isolate", () => request("/v1/catalog?format=markdown"), resetComputedCache],
  ["GET `/v1/catalog?format=json`, miss, warm isolate", () => request("/v1/catalog?format=json"), resetComputedCache],
  ["GET `/v1/catalog` (xml), hit", () => request("/v1/catalog")],
];
const samples = new CpuSamples();
const anatomies = new Map<Shelf, Array<Awaited<ReturnType<typeof anatomy>>>>();
const reads = new Map<string, string>();
for (let round = 0; round < ROUNDS; round++) {
  for (const shelf of round % 2 === 0 ? [small, large] : [large, small]) {
    use(shelf);
    for (const [label, fn, before] of growthRows) {
      samples.add(`${label}|${shelf.n}`, await cpuPerCall(() => fn(shelf), growthRuns(shelf.n), before));
      if (round === 0 && before) {
        // Storage calls of one more warm miss: a warm isolate should read nothing at either size.
        shelf.calls.clear();
        before();
        await fn(shelf);
        reads.set(`${label}|${shelf.n}`, callsCell(shelf.calls));
      }
    }
    anatomies.set(shelf, [...(anatomies.get(shelf) ?? []), await anatomy(() => renderCatalog(shelf.metas))]);
  }
  console.log(`growth round ${round + 1}/${ROUNDS} done at ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
const growth = growthRows.map(([label]) => {
  const [a, b] = [samples.median(`${label}|${SMALL}`), samples.median(`${label}|${LARGE}`)];
  const storage = reads.has(`${label}|${SMALL}`)
    ? ` (storage calls: ${reads.get(`${label}|${SMALL}`)} at ${fmt(SMALL)}; ${reads.get(`${label}|${LARGE}`)} at ${fmt(LARGE)})`
    : "";
  return [label + storage, cpuCell(a), cpuCell(b), growthCell(a, b)];
});
const medianOf = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]!;
const part = (shelf: Shelf, key: "user" | "system" | "faults" | "gc") => medianOf(anatomies.get(shelf)!.map((a) => a[key]));
const [sysSmall, sysLarge, userSmall, userLarge] = [part(small, "system"), part(large, "system"), part(small, "user"), part(large, "user")];
const [gcSmall, gcLarge] = [part(small, "gc"), part(large, "gc")];
// The xml render's anatomy, right under its row.
growth.splice(
  1,
  0,
  ["  of which user CPU (main thread)", ms(userSmall), ms(userLarge), grew(userLarge, userSmall)],
  ["  of which system CPU (main thread: fresh pages for large strings)", ms(sysSmall), ms(sysLarge), grew(sysLarge, sysSmall)],
  ["  minor page faults per call", part(small, "faults").toFixed(0), part(large, "faults").toFixed(0), grew(part(large, "faults"), part(small, "faults"))],
  ["  GC pauses per call (wall, V8's gc entries)", ms(gcSmall), ms(gcLarge), grew(gcLarge, gcSmall)],
);
const render = [samples.median(`${growthRows[0]![0]}|${SMALL}`), samples.median(`${growthRows[0]![0]}|${LARGE}`)] as const;
const floor = [samples.median(`${growthRows[2]![0]}|${SMALL}`), samples.median(`${growthRows[2]![0]}|${LARGE}`)] as const;

/** The growth in sentences, from the figures: how far from linear, how each of the render's parts grows, and why a warm miss reads storage. */
function growthSentences(): string[] {
  const renderGrowth = render[1].thread / render[0].thread;
  const verdict = renderGrowth <= 11 ? "linear within this machine's noise" : `${((renderGrowth / 10 - 1) * 100).toFixed(0)}% more per skill at ${fmt(LARGE)}`;
  const parts: Array<[string, number, number]> = [
    ["user CPU", userLarge, userSmall],
    ["system CPU", sysLarge, sysSmall],
    ["minor page faults", part(large, "faults"), part(small, "faults")],
    ["GC pauses", gcLarge, gcSmall],
  ];
  const listed = parts.map(([label, l, sm]) => `${label} ${grew(l, sm)}`).join(", ");
  const fastest = parts.filter(([, l, sm]) => sm > 1e-3 && l / sm > 12).map(([label]) => label);
  const excess =
    renderGrowth > 11
      ? ` Each entry is rendered and measured once, so the excess is the cost of holding ${fmt(LARGE)} entries' strings at once${fastest.length > 0 ? ` (${fastest.join(" and ")} grow fastest)` : ""}, not the algorithm.`
      : "";
  const sentences = [
    `The xml render grows ${ratio(render[1].thread, render[0].thread)} (main thread) for 10× the skills: ${verdict}. Copying the same bytes once (the floor) grows ${grew(floor[1].thread, floor[0].thread)}. The render's parts: ${listed}.${excess}`,
  ];
  const warmReads = reads.get(`${growthRows[3]![0]}|${LARGE}`);
  if (warmReads && warmReads !== "0") sentences.push(storageNote("catalog miss", warmReads, large.shards));
  return sentences;
}

reportSection(
  "catalog",
  [
    `${fmt(SMALL)} skills through the \`/v1\` chain in Node (in-memory R2, empty KV); ${machineLine()}${QUICK ? "; **quick mode: indicative only**" : ""}.`,
    `CPU per request, mean of ${RUNS} sequential calls (${COLD_RUNS} cold) after warm-up and a forced GC: whole process / main thread.`,
    "",
    table([`${fmt(SMALL)} skills`, ...sizes], detail),
    "",
    table(
      ["Other requests", "CPU (process / main thread)"],
      others.map(([label, cpu]) => [label, cpuCell(cpu)]),
    ),
    "",
    `**Growth from ${fmt(SMALL)} to ${fmt(LARGE)} skills.** Median over ${ROUNDS} rounds; each round measures both shelves (order alternating), ${growthRuns(SMALL)} and ${growthRuns(LARGE)} calls per figure. The last column is the growth for 10× the skills (linear is 10×).`,
    "",
    table(["Work", `${fmt(SMALL)} skills`, `${fmt(LARGE)} skills`, `${fmt(LARGE)}/${fmt(SMALL)}`], growth),
    "",
    ...growthSentences(),
  ].join("\n"),
);
