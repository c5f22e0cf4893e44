// Warm MCP skills/list in process (issue 35): main-thread CPU per page of 100 with the SDK's
// skills/list handler and with ours (src/worker/views/mcp/list.ts), alternated round by round on
// one isolate, over bench/shelf-gen.ts's lean skills in the in-memory bucket (KV empty); then the
// storage reads of a warm page after `--records` other skills' records were read (what evicted a
// listing's shards when records and shards shared one memory budget).
// Run: node --expose-gc --import ./bench/register-tsx.mjs bench/mcp-list-ab.ts [skills] [--records N]
// Not part of `npm run bench` (no report section): docs/benchmarks.md quotes its output by hand.
import { createHash } from "node:crypto";
import { actLikeWorkerdCrypto } from "./workerd-shims.ts";
import { cpus, loadavg } from "node:os";
import app from "../src/worker/index.ts";
import { encodeCursor } from "../src/worker/views/mcp/uris.ts";
import { benchSkill, emptyKv, MemoryBucket, publishInMemory, type StorageCall } from "./harness.ts";
import { median } from "./report.ts";
import { benchSkillFiles, benchSkillName } from "./shelf-gen.ts";

actLikeWorkerdCrypto();

// A tree from before list.ts (to measure the code it replaced) serves skills/list with the SDK's handler only.
const list = await import("../src/worker/views/mcp/list.ts").catch(() => undefined);
const serveSkillsListWithSdk = (on: boolean) => list?.serveSkillsListWithSdk(on);
const skillsListAnsweredHere = () => list?.skillsListAnsweredHere() ?? 0;

const args = process.argv.slice(2);
const SKILLS = Number.parseInt(args.find((a) => /^\d+$/.test(a)) ?? "1000", 10);
const RECORDS = args.includes("--records") ? Number.parseInt(args[args.indexOf("--records") + 1]!, 10) : Math.min(SKILLS, 3000);
const ROUNDS = 9;
const PAGES_PER_ROUND = 20;
const BASE = "https://shelf.test";
const encoder = new TextEncoder();

const calls: Record<StorageCall, number> = { "R2.get": 0, "R2.head": 0, "KV.get": 0 };
const bucket = new MemoryBucket((call) => calls[call]++);
const t0 = performance.now();
const inputs = [];
for (let i = 0; i < SKILLS; i++) {
  const files = Object.entries(benchSkillFiles(i, 0, "lean")).map(([path, v]) => ({ path, bytes: typeof v === "string" ? encoder.encode(v) : v }));
  inputs.push((await benchSkill(benchSkillName(i), files)).input);
}
const built = await publishInMemory(bucket, inputs);
inputs.length = 0; // the build's inputs (every file) are not the Worker's: let them go before measuring
const shardBytes = built.objects.filter((o) => o.kind === "shard").reduce((n, o) => n + o.bytes.length, 0);
const recordBytes = built.objects.filter((o) => o.kind === "record").reduce((n, o) => n + o.bytes.length, 0);
built.objects.length = 0;
console.log(
  `${SKILLS} lean skills built in ${((performance.now() - t0) / 1000).toFixed(0)} s: ${built.manifest.shards.length} shards (${(shardBytes / 2 ** 20).toFixed(1)} MiB of JSON), records ${(recordBytes / 2 ** 20).toFixed(1)} MiB of JSON; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(1)}, Node ${process.versions.node}`,
);
const env = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv((call) => calls[call]++), SHELF_VISIBILITY: "public" } as unknown as CloudflareBindings;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

/** A 2026-07-28 skills/list of the page of 100 after the skill `after` (in shelf order since 686cc5a: by shard, then name; before it, name order, where skill 299 ends the third page). */
function listRequest(after: string): Request {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return new Request(`${BASE}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2026-07-28",
      "Mcp-Method": "skills/list",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "skills/list", params: { cursor: encodeCursor(after), _meta: meta } }),
  });
}

const after = benchSkillName(299);
async function page(): Promise<string> {
  const res = await app.fetch(listRequest(after), env, ctx);
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"nextCursor"')) throw new Error(`skills/list answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

// Warm-up: both handlers, so every entry is built and the SDK's verdicts are known.
serveSkillsListWithSdk(true);
const sdkBytes = await page();
serveSkillsListWithSdk(false);
await page();
const oursBytes = await page();
if (oursBytes !== sdkBytes) throw new Error("our skills/list answer differs from the SDK's");
console.log(`page bytes: ${sdkBytes.length}, sha256 ${createHash("sha256").update(sdkBytes).digest("hex").slice(0, 16)}`);

/** Main-thread CPU (user + system) per page, in ms, over PAGES_PER_ROUND pages. */
async function cpuPerPage(): Promise<number> {
  globalThis.gc?.();
  const start = process.cpuUsage();
  for (let i = 0; i < PAGES_PER_ROUND; i++) await page();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / PAGES_PER_ROUND;
}

const sdk: number[] = [];
const ours: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  serveSkillsListWithSdk(true);
  sdk.push(await cpuPerPage());
  if (list === undefined) continue;
  serveSkillsListWithSdk(false);
  const before = skillsListAnsweredHere();
  ours.push(await cpuPerPage());
  if (skillsListAnsweredHere() - before !== PAGES_PER_ROUND) throw new Error("our handler handed pages to the SDK's");
}
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(" · ");
console.log(`skills/list, the page after ${after}, of ${SKILLS} (warm, CPU per page, ${ROUNDS} rounds of ${PAGES_PER_ROUND}):`);
console.log(`  SDK handler: median ${median(sdk).toFixed(2)} ms (${fmt(sdk)})`);
if (list !== undefined) {
  console.log(`  ours:        median ${median(ours).toFixed(2)} ms (${fmt(ours)})`);
  console.log(`  ours / SDK:  ${(median(ours) / median(sdk)).toFixed(2)}`);
}

// Storage reads of a warm page after other skills' records were read (GET /v1/skills/<name>).
for (let i = 0; i < RECORDS; i++) {
  const res = await app.fetch(new Request(`${BASE}/v1/skills/${benchSkillName((i * 7) % SKILLS)}`), env, ctx);
  await res.arrayBuffer();
}
const reads = () => calls["R2.get"] + calls["KV.get"] + calls["R2.head"];
const r0 = reads();
const c0 = process.cpuUsage();
await page();
const c1 = process.cpuUsage(c0);
console.log(
  `after ${RECORDS} GET /v1/skills/<name>: the warm page made ${reads() - r0} storage reads, ${((c1.user + c1.system) / 1000).toFixed(1)} ms CPU; heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
);
