// Warm MCP resources/read in process (issue 35): main-thread CPU per request of a GET of SKILL.md
// (the reference), a 2026-07-28 resources/read of references/guide.md answered by read-fast.ts, and
// the same read forced through the SDK's exchange (read-fast.ts's switch), alternated round by
// round on one isolate, over the warm-path bench's skills (bench/warm-path.bench.ts: SKILL.md
// ~1.1 KiB, references/guide.md ~2 KiB) in the in-memory bucket (KV empty).
// Run: node --expose-gc --import ./bench/register-tsx.mjs bench/mcp-read-ab.ts [skills]
// Not part of `npm run bench` (no report section): docs/benchmarks.md quotes its output by hand.
import { createHash } from "node:crypto";
import { actLikeWorkerdCrypto } from "./workerd-shims.ts";
import { cpus, loadavg } from "node:os";
import app from "../src/worker/index.ts";
import { type StorageCall, warmPathShelf, warmPathSkillName } from "./harness.ts";
import { median } from "./report.ts";

actLikeWorkerdCrypto();

// A tree from before read-fast.ts serves every resources/read through the SDK.
const fast = await import("../src/worker/views/mcp/read-fast.ts").catch(() => undefined);
const serveWithSdk = (on: boolean) => fast?.serveResourcesReadWithSdk(on);
const answeredHere = () => fast?.resourcesReadAnsweredHere() ?? 0;

const SKILLS = Number.parseInt(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? "300", 10);
const ROUNDS = 9;
const GETS_PER_ROUND = 1000;
const READS_PER_ROUND = 500;
const BASE = "https://shelf.test";
const name = warmPathSkillName;

const calls: Record<StorageCall, number> = { "R2.get": 0, "R2.head": 0, "KV.get": 0 };
const count = (call: StorageCall) => void calls[call]++;
const { env, ctx } = await warmPathShelf(SKILLS, count);

const target = name(Math.min(SKILLS - 1, 121));
const uri = `skill://${target}/references/guide.md`;
// The client's side, built once: the body text and headers (only the Request is made per call).
const readBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "resources/read",
  params: {
    uri,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const readHeaders = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "Mcp-Protocol-Version": "2026-07-28",
  "Mcp-Method": "resources/read",
  "Mcp-Name": uri,
};
const readInit = (): RequestInit => ({ method: "POST", headers: readHeaders, body: readBody });

async function get(): Promise<void> {
  const res = await app.fetch(new Request(`${BASE}/skills/${target}/SKILL.md`), env, ctx);
  if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
  await res.arrayBuffer();
}
async function read(): Promise<void> {
  const res = await app.fetch(new Request(`${BASE}/mcp`, readInit()), env, ctx);
  if (res.status !== 200) throw new Error(`resources/read answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}
/** One read's whole answer (status, headers, body), to compare the two paths. */
async function readAnswer(): Promise<string> {
  const res = await app.fetch(new Request(`${BASE}/mcp`, readInit()), env, ctx);
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"contents"')) throw new Error(`resources/read answered ${res.status}: ${text.slice(0, 200)}`);
  return `${res.status} ${JSON.stringify([...res.headers])} ${text}`;
}

// Warm-up, and the two answers compared (headers and body).
for (let i = 0; i < 50; i++) await get();
serveWithSdk(true);
const viaSdk = await readAnswer();
for (let i = 0; i < 50; i++) await read();
serveWithSdk(false);
const viaFast = await readAnswer();
for (let i = 0; i < 50; i++) await read();
if (viaFast !== viaSdk) throw new Error("the fast path's answer differs from the SDK's");
const storage = () => calls["R2.get"] + calls["R2.head"] + calls["KV.get"];
const perRead = async (): Promise<number> => {
  const s0 = storage();
  await read();
  return storage() - s0;
};
serveWithSdk(true);
const sdkOps = await perRead();
serveWithSdk(false);
const fastOps = await perRead();
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(
  `${SKILLS} skills; ${cpus().length} CPUs, load ${load()}, Node ${process.versions.node}; answer ${viaSdk.length} chars, sha256 ${createHash("sha256").update(viaSdk).digest("hex").slice(0, 16)}${fast === undefined ? " (no read-fast.ts in this tree: the SDK only)" : `, identical both ways; storage reads per warm read: SDK ${sdkOps}, fast path ${fastOps}`}`,
);

/** Main-thread CPU (user + system) per request, in µs, over `n` requests. */
async function cpuPer(n: number, request: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.();
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await request();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const getCpu: number[] = [];
const fastCpu: number[] = [];
const sdkCpu: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  getCpu.push(await cpuPer(GETS_PER_ROUND, get));
  serveWithSdk(true);
  sdkCpu.push(await cpuPer(READS_PER_ROUND, read));
  if (fast === undefined) continue;
  serveWithSdk(false);
  const before = answeredHere();
  fastCpu.push(await cpuPer(READS_PER_ROUND, read));
  if (answeredHere() - before !== READS_PER_ROUND) throw new Error("the fast path handed reads to the SDK");
}
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" · ");
const ratios = (xs: number[]) => xs.map((x, i) => x / getCpu[i]!);
console.log(`warm, main-thread CPU per request, ${ROUNDS} rounds (${GETS_PER_ROUND} GETs, ${READS_PER_ROUND} reads each way per round), medians:`);
console.log(`  GET SKILL.md:                      ${median(getCpu).toFixed(0)} µs (${fmt(getCpu)})`);
console.log(
  `  resources/read through the SDK:    ${median(sdkCpu).toFixed(0)} µs (${fmt(sdkCpu)}); ${median(ratios(sdkCpu)).toFixed(2)}× the GET (median of the rounds' ratios)`,
);
if (fast !== undefined) {
  console.log(
    `  resources/read, fast path:         ${median(fastCpu).toFixed(0)} µs (${fmt(fastCpu)}); ${median(ratios(fastCpu)).toFixed(2)}× the GET (median of the rounds' ratios)`,
  );
}
console.log(`load at the end: ${load()}`);
