// In-process CPU per request of the Worker's warm path, without the storage simulator: the whole
// skillshelf app (`app.fetch`, every route group, header policy and check) against a bare Worker
// written here (a path → R2 key map built once, as a minimal static host needs, the body
// streamed, an ETag), both over the same in-memory R2 objects (bench/harness.ts MemoryBucket,
// near-zero overhead; KV empty), interleaved round by round, medians of the rounds. Also the cost
// of the integrity check (checked-body.ts: every served byte hashed against the manifest's digest)
// on its own, and the storage operations each route makes cold and warm.
// Run: npm run bench -- --only warm-path. Not a test: nothing here asserts a speed.
import { actLikeWorkerdCrypto } from "./workerd-shims.ts";
import { Session } from "node:inspector/promises";
import { cpus, loadavg } from "node:os";
import { resetComputedCache } from "../src/worker/read/respond.ts";
import { checkedBody, hashesTo } from "../src/worker/http/checked-body.ts";
import app from "../src/worker/index.ts";
import { resetSkillMdFacts } from "../src/worker/views/mcp/skill-md.ts";
import { resetBodyCache } from "../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../src/worker/storage/index.ts";
import { r2Key } from "../src/worker/storage/keys.ts";
import { type StorageCall, warmPathShelf, warmPathSkillName } from "./harness.ts";
import { median, QUICK, ratio, reportSection, table } from "./report.ts";

actLikeWorkerdCrypto();

const encoder = new TextEncoder();
const SKILLS = 1_000;
const ROUNDS = QUICK ? 5 : 9;
/** Main-thread CPU time each measurement runs for, at least. */
const TARGET_MS = QUICK ? 60 : 200;
const BASE = "https://shelf.test";
const name = warmPathSkillName;
const BIG = name(7);

/** 1 MiB of deterministic text (compresses quickly at build time, unlike random bytes). */
function mebibyte(): Uint8Array {
  const line = (n: number) => `${String(n).padStart(8, "0")} the quick brown fox jumps over the lazy dog ${(n * 2654435761) % 1_000_003}\n`;
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < 1024 * 1024; n++) {
    const l = line(n);
    parts.push(l);
    size += l.length;
  }
  return encoder.encode(parts.join("").slice(0, 1024 * 1024));
}

// --- the shelf ---------------------------------------------------------------------------------
const calls: Record<StorageCall, number> = { "R2.get": 0, "R2.head": 0, "KV.get": 0 };
let counting = false;
const count = (call: StorageCall) => {
  if (counting) calls[call]++;
};
const { bucket, env, ctx, records } = await warmPathShelf(SKILLS, count, (skill) => (skill === BIG ? [{ path: "assets/big.txt", bytes: mebibyte() }] : []));

function coldStart(): void {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  resetSkillMdFacts();
}

// --- the bare Worker ---------------------------------------------------------------------------
/** A minimal static host's manifest: every path it serves → the R2 key of its bytes, built once. */
const bareKeys = new Map<string, { key: string; etag: string; type: string }>();
for (const record of records) {
  for (const file of record.files) {
    const type = file.path.endsWith(".md") ? "text/markdown; charset=utf-8" : "text/plain; charset=utf-8";
    bareKeys.set(`/skills/${record.name}/${file.path}`, { key: r2Key("blob", file.sha256), etag: `"${file.sha256}"`, type });
  }
}

/** The bare Worker: look the path up, 304 on a matching If-None-Match, else stream the object with its ETag. */
const bare = {
  async fetch(request: Request, bindings: { SHELF_BUCKET: R2Bucket }): Promise<Response> {
    const found = bareKeys.get(new URL(request.url).pathname);
    if (!found) return new Response("not found", { status: 404 });
    if (request.headers.get("If-None-Match") === found.etag) return new Response(null, { status: 304, headers: { ETag: found.etag } });
    const object = await bindings.SHELF_BUCKET.get(found.key);
    if (object === null) return new Response("not found", { status: 404 });
    return new Response(object.body, { headers: { ETag: found.etag, "Content-Type": found.type, "Content-Length": String(object.size) } });
  },
};

/**
 * The bare Worker made to do what a file answer of skillshelf must: send its headers (copied from
 * skillshelf's own answer, one Headers.set each), and, when `checked`, read the object whole and
 * hash it against the digest before answering. What skillshelf costs beyond this is its own code.
 */
function bareWith(answered: Headers, checked: boolean) {
  const extra = [...answered.entries()].filter(([name]) => !["etag", "content-type", "content-length"].includes(name));
  return async (request: Request): Promise<Response> => {
    const found = bareKeys.get(new URL(request.url).pathname)!;
    const object = (await bucket.get(found.key))!;
    const headers = new Headers({ ETag: found.etag, "Content-Type": found.type, "Content-Length": String(object.size) });
    for (const [name, value] of extra) headers.set(name, value);
    if (!checked) return new Response(object.body, { headers });
    const bytes = new Uint8Array(await object.arrayBuffer());
    if (!(await hashesTo(bytes, found.etag.slice(1, -1)))) throw new Error("digest mismatch");
    return new Response(bytes, { headers });
  };
}

/** Stores a document skillshelf generates as a file the bare Worker serves (what a static host would do). */
async function asBareFile(path: string, served: Response): Promise<void> {
  const bytes = new Uint8Array(await served.arrayBuffer());
  const key = `static${path}`;
  await bucket.put(key, bytes);
  bareKeys.set(path, { key, etag: served.headers.get("ETag") ?? '"x"', type: served.headers.get("Content-Type") ?? "application/json" });
}

// --- the requests ------------------------------------------------------------------------------
const target = name(421);
const mcpRead = (): RequestInit => ({
  method: "POST",
  headers: {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2026-07-28",
    "Mcp-Method": "resources/read",
    "Mcp-Name": `skill://${target}/references/guide.md`,
  },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "resources/read",
    params: {
      uri: `skill://${target}/references/guide.md`,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }),
});

interface Route {
  label: string;
  path: string;
  init?: () => RequestInit;
  /** The bare Worker's equivalent path (the same bytes as a stored file). */
  barePath: string;
  bareInit?: () => RequestInit;
  status: number;
}

const skillMdPath = `/skills/${target}/SKILL.md`;
const skillMdEtag = (await app.fetch(new Request(`${BASE}${skillMdPath}`), env, ctx)).headers.get("ETag")!;
const routes: Route[] = [
  { label: "warm SKILL.md GET", path: skillMdPath, barePath: skillMdPath, status: 200 },
  { label: "reference file GET", path: `/skills/${target}/references/guide.md`, barePath: `/skills/${target}/references/guide.md`, status: 200 },
  { label: "1 MiB file GET", path: `/skills/${BIG}/assets/big.txt`, barePath: `/skills/${BIG}/assets/big.txt`, status: 200 },
  {
    label: "304 (SKILL.md, If-None-Match)",
    path: skillMdPath,
    init: () => ({ headers: { "If-None-Match": skillMdEtag } }),
    barePath: skillMdPath,
    bareInit: () => ({ headers: { "If-None-Match": bareKeys.get(skillMdPath)!.etag } }),
    status: 304,
  },
  { label: `v0.2 index 200 (${SKILLS} skills)`, path: "/.well-known/agent-skills/index.json", barePath: "/.well-known/agent-skills/index.json", status: 200 },
  { label: `v0.1 index 200 (${SKILLS} skills)`, path: "/.well-known/skills/index.json", barePath: "/.well-known/skills/index.json", status: 200 },
  { label: "static root index 200", path: "/skills/index.json", barePath: "/skills/index.json", status: 200 },
  { label: "catalog 200 (/v1/catalog)", path: "/v1/catalog", barePath: "/v1/catalog", status: 200 },
  { label: "MCP resources/read (reference file)", path: "/mcp", init: mcpRead, barePath: `/skills/${target}/references/guide.md`, status: 200 },
];

for (const route of routes) {
  const res = await app.fetch(new Request(`${BASE}${route.path}`, route.init?.()), env, ctx);
  if (res.status !== route.status) throw new Error(`${route.path}: ${res.status} ${await res.text()}`);
  if (!bareKeys.has(route.barePath)) await asBareFile(route.barePath, res);
  else await res.arrayBuffer();
}

async function viaApp(route: Route): Promise<void> {
  const res = await app.fetch(new Request(`${BASE}${route.path}`, route.init?.()), env, ctx);
  if (res.status !== route.status) throw new Error(`${route.path}: ${res.status}`);
  await res.arrayBuffer();
}
async function viaBare(route: Route): Promise<void> {
  const res = await bare.fetch(new Request(`${BASE}${route.barePath}`, route.bareInit?.()), env);
  if (res.status !== route.status) throw new Error(`bare ${route.barePath}: ${res.status}`);
  await res.arrayBuffer();
}

/**
 * Main-thread CPU ms per call of `fn`: calls in chunks of `chunk` until at least TARGET_MS of
 * thread CPU has passed (the thread CPU clock moves in ticks of a few ms here, so a window is
 * many ticks long; a wall-clock cap keeps a starved process from looping for long). No forced GC
 * first: a full GC shrinks the young generation and charges the next window with the regrowth,
 * which a warm isolate does not pay; the GC a window's own garbage causes is counted.
 */
async function threadCpu(fn: () => Promise<void>, chunk: number): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const start = process.threadCpuUsage();
  const wallStart = performance.now();
  let calls = 0;
  let used = 0;
  while (used < TARGET_MS && performance.now() - wallStart < TARGET_MS * 20) {
    for (let i = 0; i < chunk; i++) await fn();
    calls += chunk;
    const delta = process.threadCpuUsage(start);
    used = (delta.user + delta.system) / 1000;
  }
  return used / calls;
}

/** Calls per chunk of {@link threadCpu}: about a tenth of TARGET_MS, from a rough wall-clock timing. */
async function calibrate(fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 10; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < 50; i++) await fn();
  const each = (performance.now() - start) / 50;
  return Math.max(1, Math.round(TARGET_MS / 10 / Math.max(each, 0.001)));
}

// --- CPU per request, interleaved ---------------------------------------------------------------
const [load1] = loadavg();
console.log(
  `${SKILLS} skills; node ${process.versions.node} (${process.platform}/${process.arch}, ${cpus().length} CPUs, load ${load1!.toFixed(1)}); ${ROUNDS} rounds, in-memory R2, empty KV`,
);
const answered = (await app.fetch(new Request(`${BASE}${skillMdPath}`), env, ctx)).headers;
const floors = [
  { label: "bare + skillshelf's headers (SKILL.md)", fetch: bareWith(answered, false), samples: [] as number[], chunk: 0 },
  { label: "bare + skillshelf's headers + integrity check (SKILL.md)", fetch: bareWith(answered, true), samples: [] as number[], chunk: 0 },
];
const viaFloor = (floor: (typeof floors)[number]) => async () => {
  const res = await floor.fetch(new Request(`${BASE}${skillMdPath}`));
  await res.arrayBuffer();
};
for (const floor of floors) floor.chunk = await calibrate(viaFloor(floor));
const samples = routes.map(() => ({ app: [] as number[], bare: [] as number[] }));
const chunks: { app: number; bare: number }[] = [];
for (const r of routes) chunks.push({ app: await calibrate(() => viaApp(r)), bare: await calibrate(() => viaBare(r)) });
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, route] of routes.entries()) {
    // Alternate which goes first, so neither always runs right after the other's garbage.
    const first = round % 2 === 0;
    if (first) samples[i]!.bare.push(await threadCpu(() => viaBare(route), chunks[i]!.bare));
    samples[i]!.app.push(await threadCpu(() => viaApp(route), chunks[i]!.app));
    if (!first) samples[i]!.bare.push(await threadCpu(() => viaBare(route), chunks[i]!.bare));
  }
  for (const floor of floors) floor.samples.push(await threadCpu(viaFloor(floor), floor.chunk));
  process.stdout.write(`round ${round + 1}/${ROUNDS}\n`);
}
const cpu = routes.map((route, i) => ({ route, app: median(samples[i]!.app), bare: median(samples[i]!.bare) }));
const fileGet = cpu[0]!.app;

// --- the integrity check on its own ------------------------------------------------------------
// Every 200 of a stored file is checked against the manifest's digest before it completes
// (src/worker/http/file-response.ts): files up to 64 KiB are read in one R2 call and hashed once
// (readChecked, with hashesTo), larger ones hashed as they stream (checkedBody, src/worker/http/checked-body.ts).
// Each row times that read with the check and the same read without it.
async function readSmall(sha256: string, checked: boolean): Promise<void> {
  const object = await bucket.get(r2Key("blob", sha256));
  const bytes = new Uint8Array(await object!.arrayBuffer());
  if (checked && !(await hashesTo(bytes, sha256))) throw new Error("digest mismatch");
  await new Response(bytes).arrayBuffer();
}
async function readStreamed(sha256: string, size: number, checked: boolean): Promise<void> {
  const object = await bucket.get(r2Key("blob", sha256));
  const source = object!.body as ReadableStream<Uint8Array>;
  await new Response(checked ? await checkedBody(source, { sha256, size }, { offset: 0, length: size }) : source).arrayBuffer();
}
const skillMdFile = records[421]!.files.find((f) => f.path === "SKILL.md")!;
const bigFile = records[7]!.files.find((f) => f.path === "assets/big.txt")!;
const integrity: { label: string; checked: number; unchecked: number }[] = [];
for (const [label, read] of [
  [`SKILL.md (${skillMdFile.size.toLocaleString("en")} B): one read, hashed once`, (checked: boolean) => readSmall(skillMdFile.sha256, checked)],
  ["1 MiB file: streamed through checkedBody", (checked: boolean) => readStreamed(bigFile.sha256, bigFile.size, checked)],
] as const) {
  const withCheck: number[] = [];
  const without: number[] = [];
  const n = await calibrate(() => read(true));
  for (let round = 0; round < ROUNDS; round++) {
    withCheck.push(await threadCpu(() => read(true), n));
    without.push(await threadCpu(() => read(false), n));
  }
  integrity.push({ label, checked: median(withCheck), unchecked: median(without) });
}

// --- storage operations per request ------------------------------------------------------------
async function operations(route: Route, cold: boolean): Promise<string> {
  if (cold) coldStart();
  else await viaApp(route);
  for (const k of Object.keys(calls) as StorageCall[]) calls[k] = 0;
  counting = true;
  await viaApp(route);
  counting = false;
  const parts = (Object.entries(calls) as [StorageCall, number][]).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}
const ops: { route: Route; cold: string; warm: string }[] = [];
for (const route of routes) ops.push({ route, cold: await operations(route, true), warm: await operations(route, false) });

// --- report ------------------------------------------------------------------------------------
const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;
const rows = cpu.map(({ route, app: a, bare: b }, i) => [route.label, us(b), us(a), ratio(a, b), ratio(a, fileGet), ops[i]!.cold, ops[i]!.warm]);
for (const floor of floors) {
  const value = median(floor.samples);
  rows.push([floor.label, us(cpu[0]!.bare), us(value), ratio(value, cpu[0]!.bare), ratio(value, fileGet), "", ""]);
}
for (const { label, checked, unchecked } of integrity) {
  rows.push([
    `integrity check, ${label}: the read without vs with it`,
    us(unchecked),
    us(checked),
    ratio(checked, unchecked),
    `+${us(checked - unchecked)}`,
    "",
    "",
  ]);
}
// --- what a miss's profile shows -----------------------------------------------------------------
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The area of the code a profile sample's function belongs to. */
function areaOf(url: string, fn: string): string {
  if (url.includes("/src/worker/")) return "skillshelf's Worker code";
  if (url.includes("/src/core/")) return "skillshelf's core";
  if (url.includes("node_modules/hono/")) return "Hono";
  if (url.includes("@modelcontextprotocol")) return "the MCP SDK";
  if (url.includes("node_modules/zod")) return "zod";
  if (url.includes("undici")) return "Node's Request, Response and Headers (undici)";
  if (url.includes("webstreams") || url.includes("readablestream") || url.includes("writablestream")) return "Node's web streams";
  if (fn === "(garbage collector)") return "garbage collection";
  if (url.includes("/bench/")) return "the bench's in-memory bindings, loop and stand-ins";
  return "other Node internals and native code";
}

/** Main-thread self time of `runs` calls of `fn`, by area, and skillshelf's own top functions. */
async function profileOf(fn: () => Promise<void>, runs: number): Promise<string> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  await session.post("Profiler.start");
  for (let i = 0; i < runs; i++) await fn();
  const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: { nodes: ProfileNode[]; samples: number[] } };
  session.disconnect();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  const own = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    total++;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + 1);
    if (url.includes("/src/")) {
      const where = `${functionName || "(anonymous)"} (${url.slice(url.indexOf("/src/") + 1)}:${lineNumber + 1})`;
      own.set(where, (own.get(where) ?? 0) + 1);
    }
  }
  const percent = (n: number) => `${Math.round((100 * n) / total)}%`;
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((x, y) => y[1] - x[1])
      .slice(0, n)
      .map(([k, v]) => `${k} ${percent(v)}`)
      .join(", ");
  return `The profile of ${runs} of its requests (main-thread self time, node:inspector) puts it in ${top(areas, 6)}; skillshelf's largest own functions are ${top(own, 4)}.`;
}

/** Enough requests for about PROFILE_MS (thousands of samples), from a route's calibrated chunk. */
const PROFILE_MS = QUICK ? 500 : 2_000;
const PROFILE_RUNS = (chunk: number) => Math.max(50, Math.round((chunk * 10 * PROFILE_MS) / TARGET_MS));
const [withHeaders, withCheck] = floors.map((f) => median(f.samples)) as [number, number];
const HEADERS_NOTE =
  `The bare Worker sends 3 headers; skillshelf sends ${[...answered.keys()].length} on this answer (validators, type and length, the four security ` +
  "headers, three CORS headers on a public shelf, Cache-Control, Skillshelf-Generation), each a validated Headers.set in Node's undici where workerd " +
  `runs native code: the bare Worker doing the same costs ${ratio(withHeaders, cpu[0]!.bare)} its plain self, and ${ratio(withCheck, cpu[0]!.bare)} ` +
  `once it also reads the object whole and checks its digest as skillshelf must (the rows above): that is the floor for these answers here. ` +
  `skillshelf's own routing, read access, shelf service and memory lookups are the rest, ${us(cpu[0]!.app - withCheck)} on the SKILL.md GET.`;
const v2 = cpu[4]!;
const misses: string[] = [];
for (const { route, app: a, bare: b } of cpu.slice(0, 3)) {
  if (a / b <= 1.3) continue;
  const profiled = await profileOf(() => viaApp(route), PROFILE_RUNS(chunks[routes.indexOf(route)]!.app));
  const checkCost = integrity[1]!.checked - integrity[1]!.unchecked;
  const streamNote =
    checkCost >= a - b
      ? `The integrity check alone measures ${us(checkCost)} here (its row), at least the whole ${us(a - b)} difference: hashing the stream ` +
        "through the DigestStream stand-in is what this runtime charges for it."
      : `The integrity check accounts for ${us(checkCost)} of the ${us(a - b)} difference (its row); most of the rest is Node's web streams ` +
        "carrying the checked stream through the FixedLengthStream stand-in, where workerd pipes natively.";
  const note = route.label.startsWith("1 MiB") ? streamNote : HEADERS_NOTE;
  misses.push(`- **${route.label}: ${ratio(a, b)} the bare Worker (target ≤ 1.3×).** ${profiled} ${note}`);
}
if (v2.app / fileGet > 3) {
  const profiled = await profileOf(() => viaApp(v2.route), PROFILE_RUNS(chunks[4]!.app));
  const size = bucket.objects.get(bareKeys.get(v2.route.barePath)!.key)!.byteLength;
  misses.push(
    `- **v0.2 index: ${ratio(v2.app, fileGet)} a warm file GET (target ≤ 3×).** ${profiled} Its ${(size / 1024).toFixed(0)} KiB come from the ` +
      `generated-document cache, so skillshelf costs ${ratio(v2.app, v2.bare)} the bare Worker serving the same bytes as a file (its row): what is left ` +
      `is moving ${(size / 1024).toFixed(0)} KiB into a Response and reading them back, which in Node's undici costs per byte, against a ` +
      `${(skillMdFile.size / 1024).toFixed(1)} KiB file.`,
  );
}
const section = [
  `Main-thread CPU per request in Node ${process.versions.node}'s V8, ${SKILLS} skills, bindings answering from memory (bench/harness.ts MemoryBucket, empty KV), ` +
    `median of ${ROUNDS} interleaved rounds of ~${TARGET_MS} ms each. "bare" is a minimal Worker written in the bench: a path → R2 key map built once, ` +
    "the object streamed with its ETag (and a 304 on a matching If-None-Match); for generated documents it serves the same bytes stored as a file, " +
    'and for MCP the same file by path. "vs file GET" is skillshelf\'s CPU over its own warm SKILL.md GET. Storage operations are counted on the same ' +
    "bindings for one request on a cold isolate (every cache reset) and on a warm one.",
  "",
  table(["Request", "bare", "skillshelf", "ratio", "vs file GET", "storage ops, cold", "storage ops, warm"], rows),
  "",
  'The "bare + …" rows are the bare Worker made to send the headers skillshelf\'s SKILL.md answer carries, then also to read the object whole and ' +
    "check its digest: the floor for such an answer in this runtime. The integrity rows time the check on its own, on both paths a 200 of a stored " +
    "file takes (src/worker/http/file-response.ts): up to 64 KiB one R2 read hashed once (`hashesTo`), above that the stream hashed as it passes " +
    "(`checkedBody`, src/worker/http/checked-body.ts), each against the same read unchecked. SHA-256 is node:crypto here, standing in for workerd's " +
    "synchronous native digest (Node's WebCrypto adds a thread-pool round trip per call that no Worker pays), and `crypto.DigestStream` a " +
    "WritableStream over it, far slower than workerd's native one: the 1 MiB row overstates the check.",
  "",
  misses.length === 0 ? "Targets (warm file GET ≤ 1.3× bare; v0.2 index 200 ≤ 3× a warm file GET): met." : misses.join("\n"),
].join("\n");
reportSection("in-process", section);
