// CPU cost of GET /v1/search (and the find contract, GET /api/search), through the whole Worker
// app (routing, read access, query validation, the computed-answer cache, the stored index) in
// Node's V8 over in-memory R2 and KV bindings, side by side with the baseline the stored index
// avoids: building the index from the entries on every request. Then the growth from 1,000 to
// 10,000 skills, the two shelves measured in alternating rounds. The issue's budget is under
// 5 ms CPU on a cache miss and on a hit at 1,000. Run: npm run bench -- --only search. Not a
// test: nothing here asserts.
import { canonicalDocument } from "../src/core/generation/canonical-json.ts";
import { GenerationManifestSchema } from "../src/core/generation/manifest.ts";
import { buildSearchIndex, parseQuery, prepareSearchIndex, searchIndex } from "../src/core/search/bm25.ts";
import { resetComputedCache } from "../src/worker/read/respond.ts";
import app from "../src/worker/index.ts";
import { resetSearchIndexCache, searchShelf } from "../src/worker/shelf/search.ts";
import { ShelfService } from "../src/worker/shelf/service.ts";
import { resetStorageMemory, type StorageBindings } from "../src/worker/storage/index.ts";
import { r2Key } from "../src/worker/storage/keys.ts";
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
  pointTo,
  publishInMemory,
  shardFootprint,
  storageNote,
  type Cpu,
  type StorageCall,
} from "./harness.ts";
import { QUICK, reportSection, table } from "./report.ts";

const encoder = new TextEncoder();
const fmt = (n: number) => n.toLocaleString("en-US");
/** The detailed tables' shelf and the growth's two: 1,000 and 10,000 skills (200 and 2,000 in quick mode, which only indicates). */
const [SMALL, LARGE] = QUICK ? [200, 2_000] : [1_000, 10_000];
const ROUNDS = QUICK ? 3 : 5;
const RUNS = QUICK ? 15 : 50;
const SLOW_RUNS = QUICK ? 3 : 10;
const growthRuns = (n: number) => (n >= 10_000 ? 5 : n >= 2_000 ? 10 : 30);

// A vocabulary of 2,000 pseudo-words (deterministic syllable pairs), so the index has the spread
// of terms real descriptions give it, plus a few hundred common English words.
const SYLLABLES =
  "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo fu ga ge gi go gu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu".split(" ");
const RARE = Array.from(
  { length: 2_000 },
  (_v, i) => `${SYLLABLES[i % 45]}${SYLLABLES[Math.floor(i / 45) % 45]}${i % 7 === 0 ? "ing" : i % 5 === 0 ? "s" : "r"}`,
);
const COMMON =
  "review change deploy release test build incident database migration security upgrade api design write commit branch merge pipeline service team production alert error cache queue schema index table column version package library".split(
    " ",
  );
const word = (i: number, k: number) => (k % 3 === 0 ? COMMON[(i * 31 + k * 7) % COMMON.length]! : RARE[(i * 131 + k * 977) % RARE.length]!);
const words = (i: number, from: number, count: number) => Array.from({ length: count }, (_v, k) => word(i, from + k)).join(" ");

/** A SKILL.md of typical size: a ~200-character description, two when_to_use cases, three tags, a dozen headings. */
function skillMd(i: number): string {
  const id = String(i).padStart(5, "0");
  const sections = Array.from({ length: 12 }, (_v, s) => `## ${words(i, 100 + s * 3, 3)}\n\nStep ${s}.\n`).join("\n");
  return [
    "---",
    `name: skill-${id}`,
    `description: ${JSON.stringify(`Handle the ${words(i, 0, 14)} for the team, and say when an agent should use it: ${words(i, 20, 8)}.`)}`,
    "when_to_use:",
    `  - ${JSON.stringify(`When the request mentions ${words(i, 40, 5)}`)}`,
    `  - ${JSON.stringify(`When ${words(i, 50, 4)} is needed`)}`,
    "metadata:",
    `  tags: "${word(i, 60)}, ${word(i, 61)}, ${word(i, 63)}"`,
    "---",
    "",
    `# Skill ${id}`,
    "",
    "Follow the steps.",
    "",
    sections,
  ].join("\n");
}

type Bindings = StorageBindings & { SHELF_VISIBILITY: string };

/** One stored shelf: its bindings (storage calls counted), its generation, its index's size, and the id of the same shelf without an index. */
interface Shelf {
  n: number;
  bucket: MemoryBucket;
  bindings: Bindings;
  id: string;
  indexBytes: number;
  legacyId: string;
  shards: { count: number; bytes: number };
  /** Storage calls by kind ("R2.get", "KV.get", …) since the last reset. */
  calls: Map<StorageCall, number>;
}

async function seedShelf(n: number): Promise<Shelf> {
  const inputs = [];
  for (let i = 0; i < n; i++) {
    inputs.push((await benchSkill(`skill-${String(i).padStart(5, "0")}`, [{ path: "SKILL.md", bytes: encoder.encode(skillMd(i)) }])).input);
  }
  const calls = new Map<StorageCall, number>();
  const count = (call: StorageCall) => void calls.set(call, (calls.get(call) ?? 0) + 1);
  const bucket = new MemoryBucket(count);
  const built = await publishInMemory(bucket, inputs);
  // The same shelf as published before search existed: its manifest without the index.
  const { search: _none, ...older } = GenerationManifestSchema.parse(built.manifest);
  const legacy = await canonicalDocument(older);
  await bucket.put(r2Key("generation", legacy.sha256), legacy.bytes);
  const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(count), SHELF_VISIBILITY: "public" } as unknown as Bindings;
  return { n, bucket, bindings, id: built.id, indexBytes: built.manifest.search!.size, legacyId: legacy.sha256, shards: shardFootprint(built), calls };
}

let current: Shelf;
/** Makes `shelf` the one requests go to, on a fresh isolate (module memory is per isolate, not per binding). */
function use(shelf: Shelf): void {
  resetComputedCache();
  resetStorageMemory();
  resetSearchIndexCache();
  current = shelf;
}
const coldIsolate = () => use(current);
const indexCold = () => {
  resetComputedCache();
  resetSearchIndexCache();
};

/** One request through the whole Worker app, its body read as bytes. */
async function request(path: string, init: RequestInit = {}): Promise<Uint8Array> {
  const res = await app.request(`https://shelf.test${path}`, init, current.bindings);
  if (res.status !== 200 && res.status !== 304) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const started = Date.now();
const small = await seedShelf(SMALL);
const large = await seedShelf(LARGE);
console.log(`seeded ${SMALL} and ${LARGE} skills in ${((Date.now() - started) / 1000).toFixed(0)} s; ${machineLine()}; the Worker app, in-memory R2, empty KV`);

const QUERY = `${word(7, 0)} ${word(7, 1)} review the ${word(7, 5)} before we deploy to production`;
const path = `/v1/search?q=${encodeURIComponent(QUERY)}`;
const find = `/api/search?q=${encodeURIComponent(QUERY)}&limit=20`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

// --- The detailed tables, on the smaller shelf.
use(small);
const answer = JSON.parse(new TextDecoder().decode(await request(path))) as { terms: string[]; results: Array<{ name: string }> };
if (answer.results.length === 0) throw new Error(`${path} found nothing`);
console.log(`${path}\n  terms ${answer.terms.join(" ")}; ${answer.results.length} results, first ${answer.results[0]!.name}`);

const entries = async () => (await new ShelfService(small.bindings).generation()).listSkills();
const etag = (await app.request(`https://shelf.test${path}`, {}, small.bindings)).headers.get("ETag")!;
const detail: Array<[string, Cpu, Cpu | undefined]> = [
  [
    "baseline: build the index from the entries, then rank",
    await cpuPerCall(async () => {
      const list = await entries();
      const index = prepareSearchIndex(buildSearchIndex(list.map((e) => ({ ...e, sections: [] }))));
      return searchIndex(index, parseQuery(QUERY).terms, { limit: 10 });
    }, SLOW_RUNS),
    undefined,
  ],
  [
    "view: `searchShelf`, index and shards in memory",
    await cpuPerCall(() => searchShelf(new ShelfService(small.bindings), parseQuery(QUERY), 10), RUNS),
    undefined,
  ],
  ["GET, miss, warm isolate", await cpuPerCall(() => request(path), RUNS, resetComputedCache), await cpuPerCall(() => request(find), RUNS, resetComputedCache)],
  ["GET, hit", await cpuPerCall(() => request(path), RUNS), await cpuPerCall(() => request(find), RUNS)],
  ["GET with its `ETag` (304)", await cpuPerCall(() => request(path, { headers: { "If-None-Match": etag } }), RUNS), undefined],
  [`GET, miss, index cold (the ${kib(small.indexBytes)} blob read, hashed, parsed)`, await cpuPerCall(() => request(path), SLOW_RUNS, indexCold), undefined],
  ["GET, miss, cold isolate (pointer, manifest, shards, the index)", await cpuPerCall(() => request(path), SLOW_RUNS, coldIsolate), undefined],
];
for (const [label, v1, api] of detail) console.log(`${label}: ${cpuCell(v1)}${api ? `, /api/search ${cpuCell(api)}` : ""}`);

await pointTo(small.bucket, small.legacyId);
use(small);
const legacy: Array<[string, Cpu]> = [
  ["GET, miss, cold isolate: the index built from the shards' entries, then kept", await cpuPerCall(() => request(path), SLOW_RUNS, coldIsolate)],
  ["GET, miss, warm isolate (that index in memory)", await cpuPerCall(() => request(path), RUNS, resetComputedCache)],
];
for (const [label, cpu] of legacy) console.log(`before the index: ${label}: ${cpuCell(cpu)}`);
await pointTo(small.bucket, small.id);

// --- Growth: every row at both sizes, the shelves alternating round by round.
type GrowthRow = [label: string, fn: () => unknown, before?: () => void, runs?: (n: number) => number];
const growthRows: GrowthRow[] = [
  ["view: `searchShelf`, index and shards in memory", () => searchShelf(new ShelfService(current.bindings), parseQuery(QUERY), 10)],
  ["GET `/v1/search`, miss, warm isolate", () => request(path), resetComputedCache],
  ["GET `/api/search` (limit 20), miss, warm isolate", () => request(find), resetComputedCache],
  ["GET `/v1/search`, hit", () => request(path)],
  ["GET `/v1/search`, miss, index cold (read, hashed, parsed)", () => request(path), indexCold, (n) => Math.max(3, growthRuns(n) / 5)],
];
const samples = new CpuSamples();
const reads = new Map<string, string>();
for (let round = 0; round < ROUNDS; round++) {
  for (const shelf of round % 2 === 0 ? [small, large] : [large, small]) {
    use(shelf);
    for (const [label, fn, before, runs = growthRuns] of growthRows) {
      samples.add(`${label}|${shelf.n}`, await cpuPerCall(fn, runs(shelf.n), before));
      if (round === 0 && before === resetComputedCache) {
        // Storage calls of one more warm miss: a warm isolate should read nothing at either size.
        shelf.calls.clear();
        before();
        await fn();
        reads.set(`${label}|${shelf.n}`, callsCell(shelf.calls));
      }
    }
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
const warmReads = reads.get(`${growthRows[1]![0]}|${LARGE}`);
growth.push(["stored index (bytes)", kib(small.indexBytes), kib(large.indexBytes), `${(large.indexBytes / small.indexBytes).toFixed(2)}×`]);

reportSection(
  "search",
  [
    `${fmt(SMALL)} skills through the whole Worker app in Node (in-memory R2, empty KV), stored index ${kib(small.indexBytes)}; a six-term query, three of them common; ${machineLine()}${QUICK ? "; **quick mode: indicative only**" : ""}.`,
    `CPU per request, mean of ${RUNS} sequential calls (${SLOW_RUNS} for the baseline and cold rows) after warm-up and a forced GC: whole process / main thread.`,
    "",
    table(
      [`${fmt(SMALL)} skills`, "`/v1/search`", "`/api/search` (limit 20)"],
      detail.map(([label, v1, api]) => [label, cpuCell(v1), api ? cpuCell(api) : ""]),
    ),
    "",
    table(
      ["A generation published before the index (no `manifest.search`)", "CPU (process / main thread)"],
      legacy.map(([label, cpu]) => [label, cpuCell(cpu)]),
    ),
    "",
    `**Growth from ${fmt(SMALL)} to ${fmt(LARGE)} skills.** Median over ${ROUNDS} rounds; each round measures both shelves (order alternating). The query's terms have about 10× the postings on the larger shelf, so ranking grows with it; the last column is the growth for 10× the skills (linear is 10×).`,
    "",
    table(["Work", `${fmt(SMALL)} skills`, `${fmt(LARGE)} skills`, `${fmt(LARGE)}/${fmt(SMALL)}`], growth),
    ...(warmReads && warmReads !== "0" ? ["", storageNote("search miss", warmReads, large.shards)] : []),
  ].join("\n"),
);
