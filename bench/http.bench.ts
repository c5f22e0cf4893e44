// skillshelf beside the smallest possible static host, in one workerd, over the same R2 objects.
// The shelf is bench/shelf-gen.ts's (1,000 skills; 100 in quick mode) plus one 1 MiB file, built
// and published by the real CLI (`skillshelf build`, `skillshelf publish`) to skillshelf's deploy
// bundle (`wrangler deploy --dry-run`) running in Miniflare; the bare Worker (bench/http/bare-worker.js)
// is bound to the same bucket and serves the same blobs by the keys the build folder gives. Then, in
// interleaved rounds (bare, skillshelf; the order flips each round), a fixed 8 keep-alive connections
// on loopback measure throughput, p50/p99 latency and workerd CPU per request for the file routes, a
// 304, both discovery indexes, the catalog and an MCP resources/read; the requests a client needs
// for a catalog of every skill (static layout vs /v1/catalog); and cold starts (a fresh workerd per
// sample). Run: npm run bench -- --only http (add --quick for a short run).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Pool } from "undici";
import { type BenchRequest, loadRound, pool, type RoundLimits, type RoundResult, send } from "./http/load.ts";
import {
  benchPublishToken,
  benchScratch,
  bundleSkillshelf,
  pathToBlob,
  publishBuild,
  runNode,
  runWorkerdBench,
  skillshelfConfig,
  startWorkerd,
  type Workerd,
  type WorkerdPlan,
} from "./http/workerd.ts";
import { median, ms, QUICK, ratio, reportSection, table } from "./report.ts";
import { benchSkillName, writeBenchShelf } from "./shelf-gen.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SKILLS = QUICK ? 100 : 1_000;
const ROUNDS = QUICK ? 2 : 5;
const COLD_ROUNDS = QUICK ? 2 : 5;
const CONNECTIONS = 8;
/** How many of each row's distinct requests are sent and checked before the rounds. */
const CHECKED = 64;
const LIMITS: RoundLimits = QUICK ? { requests: 400, seconds: 0.3, connections: CONNECTIONS } : { requests: 5_000, seconds: 1, connections: CONNECTIONS };
/** The skill that carries the 1 MiB file, and the file. */
const BIG_SKILL = benchSkillName(0);
const BIG_PATH = "assets/big.bin";
const BIG_BYTES = 1024 * 1024;
const SKILLSHELF_CLI = path.join(ROOT, "bin/skillshelf.js");
const MINIFLARE_VERSION = (JSON.parse(readFileSync(path.join(ROOT, "node_modules/miniflare/package.json"), "utf8")) as { version: string }).version;

const tmp = benchScratch("skillshelf-http-bench-");
const started = performance.now();
const loadAtStart = loadavg()[0]!;
let bundleBytes = 0;
/** The Worker source the bundle was made from (see workerSource). */
let bundledSource = "";
await runWorkerdBench(main, tmp);

async function main(): Promise<void> {
  console.log(`http: ${SKILLS} skills, ${ROUNDS} interleaved rounds of ≤${LIMITS.requests} requests or ${LIMITS.seconds} s per route and Worker,`);
  console.log(`  ${CONNECTIONS} connections; ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadAtStart.toFixed(2)}`);

  // The shelf, built and bundled the way a deployment is.
  const shelfDir = path.join(tmp, "shelf");
  const buildDir = path.join(tmp, "build");
  const shelf = writeBenchShelf(shelfDir, SKILLS);
  writeFileSync(path.join(shelfDir, "skills", BIG_SKILL, BIG_PATH), bigFile());
  // The CLI build and the Worker bundle are independent: run them side by side.
  bundledSource = workerSource();
  const [build, bundle] = await Promise.all([
    runNode([SKILLSHELF_CLI, "build", shelfDir, "--out", buildDir], { cwd: ROOT }),
    bundleSkillshelf(ROOT, path.join(tmp, "bundle")),
  ]);
  const config = skillshelfConfig(ROOT);
  bundleBytes = statSync(path.join(bundle.dir, bundle.main)).size;
  console.log(
    `  shelf: ${shelf.files.length + 1} files, ${((shelf.bytes + BIG_BYTES) / 1e6).toFixed(1)} MB; skillshelf build ${build.seconds.toFixed(1)} s, beside wrangler deploy --dry-run`,
  );
  const files = pathToBlob(buildDir);
  const names = [...new Set(Object.keys(files).map((p) => p.split("/")[2]!))].sort();
  if (names.length !== SKILLS) throw new Error(`the build holds ${names.length} skills, expected ${SKILLS}`);

  const { token, vars } = benchPublishToken();
  const plan: WorkerdPlan = {
    stateDir: path.join(tmp, "state"),
    skillshelf: { bundle, config, extraVars: vars },
    bare: { files, compatibilityDate: config.compatibilityDate },
  };

  const workerd = await startWorkerd(plan);
  const publish = await publishBuild(workerd.skillshelf!, buildDir, token);
  console.log(`  published through the admin API in ${publish.seconds.toFixed(1)} s; workerd pid ${workerd.pid}`);

  const bare = pool(workerd.bare!, CONNECTIONS);
  const skillshelf = pool(workerd.skillshelf!, CONNECTIONS);
  try {
    const t0 = performance.now();
    const rows = await defineRows(workerd.skillshelf!, files, names);
    await warmAndCheck(rows, bare, skillshelf, files);
    console.log(`  warmed and checked in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const results = await interleavedRounds(rows, bare, skillshelf, workerd);
    const catalogs = await catalogOfN(skillshelf, workerd.skillshelf!, names);
    await bare.close();
    await skillshelf.close();
    await workerd.stop();
    const cold = await coldStarts(plan, names[1] ?? names[0]!);
    report(rows, results, catalogs, cold);
  } finally {
    await bare.destroy().catch(() => {});
    await skillshelf.destroy().catch(() => {});
  }
}

/** Which Worker source was measured: the commit, and whether src/worker had uncommitted changes (the figures are of the working tree). */
function workerSource(): string {
  const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ?? "";
  const commit = git(["rev-parse", "--short", "HEAD"]) || "an unknown commit";
  const dirty = git(["status", "--porcelain", "--", "src/worker", "src/core"]) !== "";
  return `commit ${commit}${dirty ? " with uncommitted changes in src/" : ""}`;
}

/** 1 MiB of deterministic, incompressible bytes (SHA-256 in counter mode). */
function bigFile(): Uint8Array {
  const out = new Uint8Array(BIG_BYTES);
  for (let offset = 0; offset < BIG_BYTES; offset += 32) {
    const block = createHash("sha256").update(`big-${offset}`).digest();
    out.set(block.subarray(0, Math.min(32, BIG_BYTES - offset)), offset);
  }
  return out;
}

/** One measured route: the requests each Worker gets (round-robin), and how the report names it. */
interface Row {
  id: string;
  label: string;
  bare?: BenchRequest[];
  skillshelf: BenchRequest[];
  /** For a route the bare Worker cannot answer: the skillshelf row its ratios are taken against. */
  versus?: string;
}

async function defineRows(origin: URL, files: Record<string, string>, names: string[]): Promise<Row[]> {
  const get = (p: string, status = 200): BenchRequest => ({ path: p, status });
  const skillMd = names.map((n) => get(`/skills/${n}/SKILL.md`));
  const reference = names.map((n) => get(`/skills/${n}/references/guide.md`));
  const big = [get(`/skills/${BIG_SKILL}/${BIG_PATH}`)];
  const notModified = names.map((n) => ({ ...get(`/skills/${n}/SKILL.md`, 304), headers: { "if-none-match": `"${files[`/skills/${n}/SKILL.md`]}"` } }));
  const mcp = await mcpReads(origin, names);
  return [
    { id: "skill-md", label: "GET SKILL.md (~4 KB)", bare: skillMd, skillshelf: skillMd },
    { id: "reference", label: "GET references/guide.md (~14 KB)", bare: reference, skillshelf: reference },
    { id: "big", label: "GET a 1 MiB file", bare: big, skillshelf: big },
    { id: "304", label: "304 (If-None-Match, SKILL.md)", bare: notModified, skillshelf: notModified },
    { id: "v02", label: "GET /.well-known/agent-skills/index.json (v0.2)", skillshelf: [get("/.well-known/agent-skills/index.json")], versus: "skill-md" },
    { id: "v01", label: "GET /.well-known/skills/index.json (v0.1)", skillshelf: [get("/.well-known/skills/index.json")], versus: "skill-md" },
    { id: "catalog", label: "GET /v1/catalog", skillshelf: [get("/v1/catalog")], versus: "skill-md" },
    { id: "mcp", label: "POST /mcp resources/read (references/guide.md)", skillshelf: mcp, versus: "reference" },
  ];
}

/**
 * One resources/read per skill as the MCP SDK's client sends it (2026-07-28, no initialize): the SDK's
 * request for the first skill is recorded once, then replayed with each skill's URI.
 */
async function mcpReads(origin: URL, names: string[]): Promise<BenchRequest[]> {
  let recorded: { headers: Record<string, string>; body: string } | undefined;
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = await request.clone().text();
    if (body.includes('"resources/read"')) recorded = { headers: Object.fromEntries(request.headers), body };
    return fetch(request);
  };
  const client = new Client({ name: "skillshelf-bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", origin), { fetch: recordingFetch }));
  const uri = (name: string) => `skill://${name}/references/guide.md`;
  const first = await client.readResource({ uri: uri(names[0]!) });
  await client.close();
  if (!recorded || !JSON.stringify(first).includes("# Guide")) throw new Error("the MCP SDK's resources/read was not recorded or did not return the guide");
  const { headers, body } = recorded;
  return names.map((name) => ({
    method: "POST" as const,
    path: "/mcp",
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replaceAll(uri(names[0]!), uri(name))])),
    body: body.replaceAll(uri(names[0]!), uri(name)),
    status: 200,
  }));
}

/**
 * Warms both isolates and checks both Workers before anything is timed: the first {@link CHECKED}
 * requests of every row on each Worker (each file answer must hash to its blob's key, each 304 carry
 * the ETag asked for), and skillshelf's SKILL.md and reference file of every skill (the reference
 * file's route loads the skill's record, SKILL.md's does not), so no round pays a cold shard or
 * record read (the bare Worker has nothing per path to warm).
 */
async function warmAndCheck(rows: Row[], bare: Pool, skillshelf: Pool, files: Record<string, string>): Promise<void> {
  const batches: [Pool, BenchRequest[]][] = [];
  for (const row of rows) {
    if (row.bare) batches.push([bare, row.bare.slice(0, CHECKED)]);
    // Every skill's SKILL.md (its shard) and every reference file (its record: SKILL.md's route never reads the record).
    batches.push([skillshelf, row.id === "skill-md" || row.id === "reference" ? row.skillshelf : row.skillshelf.slice(0, CHECKED)]);
  }
  for (const [target, requests] of batches) {
    for (let i = 0; i < requests.length; i += CONNECTIONS) {
      await Promise.all(
        requests.slice(i, i + CONNECTIONS).map(async (request) => {
          const answer = await send(target, request);
          const expected = request.method === undefined && request.status === 200 ? files[request.path] : undefined;
          if (expected && createHash("sha256").update(answer.body).digest("hex") !== expected)
            throw new Error(`${request.path}: bytes differ from blob ${expected}`);
          if (request.status === 304 && answer.headers.etag !== request.headers?.["if-none-match"]) throw new Error(`${request.path}: 304 without the ETag`);
        }),
      );
    }
  }
}

type Side = "bare" | "skillshelf";
type Results = Map<string, Record<Side, RoundResult[]>>;

/** The rounds: every row, bare and skillshelf back to back, the order flipped each round. */
async function interleavedRounds(rows: Row[], bare: Pool, skillshelf: Pool, workerd: Workerd): Promise<Results> {
  const results: Results = new Map(rows.map((row) => [row.id, { bare: [], skillshelf: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order: Side[] = round % 2 === 0 ? ["bare", "skillshelf"] : ["skillshelf", "bare"];
    const line: string[] = [];
    for (const row of rows) {
      for (const side of order) {
        const requests = row[side];
        if (!requests) continue;
        const result = await loadRound(side === "bare" ? bare : skillshelf, requests, LIMITS, () => workerd.cpuSeconds());
        results.get(row.id)![side].push(result);
        line.push(`${row.id} ${side === "bare" ? "B" : "S"} ${result.perSecond.toFixed(0)}/s ${ms(result.cpuMs)}+${ms(result.clientCpuMs)}`);
      }
    }
    console.log(`  round ${round + 1}/${ROUNDS} (req/s, workerd + client CPU per request): ${line.join(", ")}`);
  }
  return results;
}

/** What a catalog of every skill costs a client: the static layout (root index, then each SKILL.md) against one /v1/catalog. */
interface CatalogCost {
  staticRequests: number;
  staticBytes: number;
  staticMs: number;
  apiBytes: number;
  apiMs: number;
  /** agentskills-http's own count, when the reference environment is installed. */
  reference?: { requests: number; skills: number; seconds: number };
}

async function catalogOfN(skillshelf: Pool, origin: URL, names: string[]): Promise<CatalogCost> {
  const staticTimes: number[] = [];
  const apiTimes: number[] = [];
  let staticRequests = 0;
  let staticBytes = 0;
  let apiBytes = 0;
  const staticLayout = async () => {
    const index = await send(skillshelf, { path: "/skills/index.json", status: 200 });
    const listed = (JSON.parse(index.body.toString("utf8")) as { skills: string[] }).skills;
    let requests = 1;
    let bytes = index.bytes;
    let next = 0;
    const loop = async () => {
      while (next < listed.length) {
        const answer = await send(skillshelf, { path: `/skills/${listed[next++]}/SKILL.md`, status: 200 });
        requests++;
        bytes += answer.bytes;
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
    if (listed.length !== names.length) throw new Error(`/skills/index.json lists ${listed.length} skills, expected ${names.length}`);
    staticRequests = requests;
    staticBytes = bytes;
  };
  const api = async () => {
    const answer = await send(skillshelf, { path: "/v1/catalog", status: 200 });
    const text = answer.body.toString("utf8");
    if (!names.every((n) => text.includes(n))) throw new Error("/v1/catalog does not name every skill");
    apiBytes = answer.bytes;
  };
  await staticLayout();
  await api();
  for (let round = 0; round < ROUNDS; round++) {
    const pair: [number[], () => Promise<void>][] = [
      [staticTimes, staticLayout],
      [apiTimes, api],
    ];
    for (const [times, fn] of round % 2 === 0 ? pair : pair.reverse()) {
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
  }
  const cost: CatalogCost = { staticRequests, staticBytes, staticMs: median(staticTimes), apiBytes, apiMs: median(apiTimes) };
  const python = path.join(ROOT, ".venv-refs/bin/python");
  if (existsSync(python)) {
    const run = spawnSync(python, [path.join(ROOT, "bench/http/static-client.py"), origin.origin], { encoding: "utf8", timeout: 120_000 });
    if (run.status === 0) cost.reference = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as CatalogCost["reference"];
    else console.log(`  agentskills-http count skipped: exit ${run.status ?? run.signal}: ${run.stderr.slice(-300)}`);
  }
  console.log(
    `  catalog of ${names.length}: static layout ${staticRequests} requests ${ms(cost.staticMs)}, /v1/catalog 1 request ${ms(cost.apiMs)}` +
      (cost.reference
        ? `; agentskills-http made ${cost.reference.requests} requests for ${cost.reference.skills} skills (${cost.reference.seconds.toFixed(1)} s, sequential)`
        : ""),
  );
  return cost;
}

/** Time to the first answer of a fresh workerd serving one Worker, from start to the last byte of a SKILL.md GET. */
interface ColdStart {
  totalMs: number[];
  firstRequestMs: number[];
  cpuMs: number[];
}

async function coldStarts(plan: WorkerdPlan, name: string): Promise<Record<Side, ColdStart>> {
  const cold: Record<Side, ColdStart> = { bare: { totalMs: [], firstRequestMs: [], cpuMs: [] }, skillshelf: { totalMs: [], firstRequestMs: [], cpuMs: [] } };
  const request: BenchRequest = { path: `/skills/${name}/SKILL.md`, status: 200 };
  for (let round = 0; round < COLD_ROUNDS; round++) {
    for (const side of round % 2 === 0 ? (["bare", "skillshelf"] as const) : (["skillshelf", "bare"] as const)) {
      const t0 = performance.now();
      const workerd = await startWorkerd({ stateDir: plan.stateDir, [side]: plan[side] });
      const ready = performance.now();
      const target = pool(workerd[side]!, 1);
      try {
        await send(target, request);
        const done = performance.now();
        cold[side].totalMs.push(done - t0);
        cold[side].firstRequestMs.push(done - ready);
        cold[side].cpuMs.push(workerd.cpuSeconds() * 1000);
      } finally {
        await target.destroy();
        await workerd.stop();
      }
    }
  }
  console.log(
    `  cold start: bare ${ms(median(cold.bare.totalMs))} (first request ${ms(median(cold.bare.firstRequestMs))}), skillshelf ${ms(median(cold.skillshelf.totalMs))} (${ms(median(cold.skillshelf.firstRequestMs))})`,
  );
  return cold;
}

/** Medians over the rounds of one row and side. */
function summary(rounds: RoundResult[]): { perSecond: number; p50: number; p99: number; cpuMs: number } {
  return {
    perSecond: median(rounds.map((r) => r.perSecond)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    cpuMs: median(rounds.map((r) => r.cpuMs)),
  };
}

function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function cell(s: ReturnType<typeof summary>): string {
  return `${count(s.perSecond)}/s · ${ms(s.p50)} · ${ms(s.p99)} · ${ms(s.cpuMs)}`;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`;
}

/**
 * The median over rounds of a per-round ratio a/b. A round's two measurements ran close together
 * (bare and skillshelf back to back), so a change in the machine's load between rounds cancels out.
 */
function pairedRatio(a: readonly RoundResult[], b: readonly RoundResult[], pick: (r: RoundResult) => number): number {
  return median(a.map((r, i) => pick(r) / pick(b[i]!)));
}

function times(value: number): string {
  return `${value.toFixed(2)}×`;
}

function report(rows: Row[], results: Results, catalogs: CatalogCost, cold: Record<Side, ColdStart>): void {
  const rounds = (id: string, side: Side) => results.get(id)![side];
  const sums = new Map(
    rows.map((row) => [row.id, { bare: row.bare ? summary(rounds(row.id, "bare")) : undefined, skillshelf: summary(rounds(row.id, "skillshelf")) }]),
  );
  const throughput = (a: RoundResult[], b: RoundResult[]) => pairedRatio(a, b, (r) => r.perSecond);
  const cpu = (a: RoundResult[], b: RoundResult[]) => pairedRatio(a, b, (r) => r.cpuMs);
  const short = (id: string) => rows.find((r) => r.id === id)!.label.replace(/ \(.*\)$/, "");

  const tableRows: string[][] = [];
  for (const row of rows) {
    const { bare, skillshelf } = sums.get(row.id)!;
    const mine = rounds(row.id, "skillshelf");
    if (bare) {
      const theirs = rounds(row.id, "bare");
      tableRows.push([row.label, cell(bare), cell(skillshelf), times(throughput(mine, theirs)), times(cpu(mine, theirs))]);
    } else {
      const own = rounds(row.versus!, "skillshelf");
      tableRows.push([
        row.label,
        "—",
        cell(skillshelf),
        `${times(throughput(mine, own))} its ${short(row.versus!)}`,
        `${times(cpu(mine, own))} its ${short(row.versus!)}`,
      ]);
    }
  }
  const bare200 = rounds("skill-md", "bare");
  const shelf304 = rounds("304", "skillshelf");
  const notModified = { throughput: throughput(shelf304, bare200), cpu: cpu(shelf304, bare200) };
  tableRows.push([
    "skillshelf's 304 vs the bare Worker's 200 (SKILL.md)",
    cell(sums.get("skill-md")!.bare!),
    cell(sums.get("304")!.skillshelf),
    times(notModified.throughput),
    times(notModified.cpu),
  ]);
  const coldCell = (c: ColdStart) => `${ms(median(c.totalMs))} to first answer · first request ${ms(median(c.firstRequestMs))} · ${ms(median(c.cpuMs))} CPU`;
  tableRows.push([
    `Cold start: fresh workerd, one GET SKILL.md (median of ${COLD_ROUNDS})`,
    coldCell(cold.bare),
    coldCell(cold.skillshelf),
    ratio(median(cold.skillshelf.totalMs), median(cold.bare.totalMs)),
    ratio(median(cold.skillshelf.cpuMs), median(cold.bare.cpuMs)),
  ]);
  const refCount = catalogs.reference ? ` (agentskills-http: ${count(catalogs.reference.requests)})` : "";
  tableRows.push([
    `Catalog of ${count(SKILLS)} skills, skillshelf: static layout vs /v1/catalog`,
    `static layout: ${count(catalogs.staticRequests)} requests${refCount}, ${kib(catalogs.staticBytes)}, ${ms(catalogs.staticMs)}`,
    `/v1/catalog: 1 request, ${kib(catalogs.apiBytes)}, ${ms(catalogs.apiMs)}`,
    `${count(catalogs.staticRequests)}× the requests`,
    `${ratio(catalogs.staticMs, catalogs.apiMs)} the time`,
  ]);

  const fileRows = ["skill-md", "reference", "big"].map((id) => {
    const mine = rounds(id, "skillshelf");
    const theirs = rounds(id, "bare");
    const extraCpu = sums.get(id)!.skillshelf.cpuMs - sums.get(id)!.bare!.cpuMs;
    return { label: short(id), throughput: throughput(mine, theirs), capacity: 1 / cpu(mine, theirs), extraCpu };
  });
  const fileMet = fileRows.every((r) => r.throughput >= 0.9);
  const mcp = rounds("mcp", "skillshelf");
  const ref = rounds("reference", "skillshelf");
  const seconds = (performance.now() - started) / 1000;
  const cores = cpus().length;
  const loadEnd = loadavg()[0]!;
  const contended = Math.max(loadAtStart, loadEnd) > cores;

  const markdown = [
    `skillshelf's deploy bundle (\`wrangler deploy --dry-run\`, wrangler.toml's vars) and a bare Worker (\`bench/http/bare-worker.js\`: path → blob key from a map the bench takes from the build folder, ETag the blob's SHA-256, 304 on a matching If-None-Match, the R2 body streamed) in one workerd (Miniflare ${MINIFLARE_VERSION}, the simulator \`wrangler dev\` runs), both bound to one local R2 bucket. The shelf: \`bench/shelf-gen.ts\`, ${count(SKILLS)} skills plus one 1 MiB file; the Worker as of ${bundledSource}; built with \`skillshelf build\` and published with \`skillshelf publish\` through the admin API. Each Worker has its own loopback socket (Miniflare's direct sockets, no routing Worker in front).`,
    "",
    `- **Measure:** ${ROUNDS} interleaved rounds per route (bare then skillshelf, the order flipped every round), each at most ${count(LIMITS.requests)} requests or ${LIMITS.seconds} s over ${CONNECTIONS} keep-alive connections (undici), every body read to the end and its status checked; file routes rotate over every skill's file. Cells: medians over rounds of throughput · p50 · p99 latency · workerd CPU per request (utime + stime of the workerd process; workerd runs every Worker and Miniflare's R2 and KV simulators on one thread, so the simulated storage is in both Workers' CPU and costs more than on Cloudflare). Ratios: the median of each round's ratio (skillshelf ÷ bare, or ÷ skillshelf's own file GET where the bare Worker has no such route). The load client runs on the same cores.`,
    `- **Checked first:** the first ${CHECKED} requests of every row on each Worker (every file answer hashes to its blob's key on both, every 304 carries the ETag asked for), and skillshelf's SKILL.md and references/guide.md of every skill, so every shard and record is in memory before the rounds.`,
    `- **Run:** ${QUICK ? "quick mode (figures indicative only), " : ""}${seconds.toFixed(0)} s in all; load average ${loadAtStart.toFixed(2)} at the start, ${loadEnd.toFixed(2)} at the end, on ${cores} cores.${contended ? " **The machine was oversubscribed**: workerd did not have a core to itself, so throughput and latency measure contention as much as the Workers, and the CPU ratio (which contention moves far less) is the steadier comparison." : ""}`,
    "",
    table(["Route", "bare Worker: req/s · p50 · p99 · CPU/req", "skillshelf: req/s · p50 · p99 · CPU/req", "throughput ratio", "CPU ratio"], tableRows),
    "",
    `**File routes ≥ 0.9× the bare Worker's throughput: ${
      fileMet
        ? "met"
        : `missed for ${fileRows
            .filter((r) => r.throughput < 0.9)
            .map((r) => r.label)
            .join(", ")}`
    }.** ${fileRows.map((r) => `${r.label} ${times(r.throughput)}`).join(", ")}. By workerd CPU (requests per CPU second, what a core would serve): ${fileRows.map((r) => `${times(r.capacity)}`).join(", ")}; skillshelf spends ${fileRows.map((r) => ms(r.extraCpu)).join(", ")} more workerd CPU per request than the bare Worker over the same simulated R2 read.`,
    "",
    `**skillshelf's 304s ≥ 4× the bare Worker's 200s: ${notModified.throughput >= 4 ? "met" : "missed"}** (${times(notModified.throughput)}: ${count(sums.get("304")!.skillshelf.perSecond)}/s against ${count(sums.get("skill-md")!.bare!.perSecond)}/s for SKILL.md; by workerd CPU ${times(1 / notModified.cpu)}). The bare Worker's own 304s reach ${count(sums.get("304")!.bare!.perSecond)}/s.`,
    "",
    `**MCP resources/read** (no bare equivalent) runs at ${times(throughput(mcp, ref))} the throughput of skillshelf's GET of the same file, at ${times(cpu(mcp, ref))} its workerd CPU per request.`,
    "",
    `**Catalog of ${count(SKILLS)} skills:** the static layout takes ${count(catalogs.staticRequests)} requests (the root index.json, then each SKILL.md${catalogs.reference ? `; agentskills-http 0.7.0's HTTPStaticFileSkillProvider, discover() then get_metadata() per skill, made ${count(catalogs.reference.requests)}` : ""}) and ${ms(catalogs.staticMs)} over ${CONNECTIONS} connections; /v1/catalog is one request of ${ms(catalogs.apiMs)} (medians of ${ROUNDS}, interleaved).`,
    "",
    `**Cold start** (a fresh workerd serving one Worker, from starting it to the last byte of a SKILL.md GET, median of ${COLD_ROUNDS}, interleaved): skillshelf ${ms(median(cold.skillshelf.totalMs))}, bare ${ms(median(cold.bare.totalMs))}; the first request alone ${ms(median(cold.skillshelf.firstRequestMs))} against ${ms(median(cold.bare.firstRequestMs))} (skillshelf reads pointer, advisories, manifest, shard and record before the blob; the rest is workerd loading each Worker, skillshelf's bundle being ${kib(bundleBytes)}).`,
  ].join("\n");
  reportSection("http", markdown);
}
