// The per-request floor: the Worker's own work before and around storage (routing, the read guard,
// the header policies), measured as the bare Worker's throughput and workerd CPU against
// skillshelf's, for /healthz (beside the bare Worker's /ping, no storage on either side) and small
// file routes. Three Workers in one workerd over one local R2 bucket: the bare Worker
// (bench/http/bare-worker.js), skillshelf as of a base commit (SKILLSHELF_FLOOR_BASE, default
// "main", bundled from `git archive`), and skillshelf as the working tree has it, so a change's
// before and after come from the same run. Interleaved rounds, the order rotating each round,
// each bounded in requests and seconds, over loopback keep-alive connections.
// Run: npm run bench -- --only floor (add --quick for a short run).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
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
} from "./http/workerd.ts";
import { median, ms, QUICK, reportSection, table } from "./report.ts";
import { benchSkillName, writeBenchShelf } from "./shelf-gen.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const BASE = process.env.SKILLSHELF_FLOOR_BASE ?? "main";
const SKILLS = QUICK ? 50 : 200;
const ROUNDS = QUICK ? 2 : 6;
const CONNECTIONS = 8;
const LIMITS: RoundLimits = QUICK ? { requests: 500, seconds: 0.4, connections: CONNECTIONS } : { requests: 4_000, seconds: 1.5, connections: CONNECTIONS };
const CLI = path.join(ROOT, "bin/skillshelf.js");
const SIDES = ["bare", "before", "after"] as const;
type Side = (typeof SIDES)[number];

const tmp = benchScratch("skillshelf-floor-bench-");
const started = performance.now();
const loadAtStart = loadavg()[0]!;
await runWorkerdBench(main, tmp);

/** The base commit's Worker, bundled the way the working tree's is: its src/ and wrangler.toml from `git archive`, this checkout's node_modules. */
async function baseBundle(): Promise<{ bundle: { dir: string; main: string }; commit: string }> {
  const commit = execFileSync("git", ["rev-parse", "--short", BASE], { cwd: ROOT, encoding: "utf8" }).trim();
  const root = path.join(tmp, "base");
  mkdirSync(root);
  const archive = execFileSync(
    "git",
    ["archive", "--format=tar", commit, "src", "wrangler.toml", "package.json", "tsconfig.base.json", "tsconfig.json", "types"],
    {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync("tar", ["-x", "-C", root], { input: archive });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
  return { bundle: await bundleSkillshelf(root, path.join(tmp, "base-bundle")), commit };
}

interface Row {
  id: string;
  label: string;
  bare: BenchRequest[];
  skillshelf: BenchRequest[];
}

async function main(): Promise<void> {
  console.log(
    `floor: ${SKILLS} skills, ${ROUNDS} rounds of ≤${LIMITS.requests} requests or ${LIMITS.seconds} s per route and Worker, ${CONNECTIONS} connections`,
  );
  console.log(`  ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadAtStart.toFixed(2)}; before = ${BASE}, after = the working tree`);
  const shelfDir = path.join(tmp, "shelf");
  const buildDir = path.join(tmp, "build");
  writeBenchShelf(shelfDir, SKILLS);
  const [, after, base] = await Promise.all([
    runNode([CLI, "build", shelfDir, "--out", buildDir], { cwd: ROOT }),
    bundleSkillshelf(ROOT, path.join(tmp, "bundle")),
    baseBundle(),
  ]);
  const files = pathToBlob(buildDir);
  const names = Array.from({ length: SKILLS }, (_, i) => benchSkillName(i));
  const { token, vars } = benchPublishToken();
  const config = skillshelfConfig(ROOT);
  const workerd = await startWorkerd({
    stateDir: path.join(tmp, "state"),
    skillshelf: {
      bundle: after,
      config,
      extraVars: vars,
      variants: { before: base.bundle },
    },
    bare: { files, compatibilityDate: config.compatibilityDate },
  });
  await publishBuild(workerd.skillshelf!, buildDir, token);

  const pools: Record<Side, Pool> = {
    bare: pool(workerd.bare!, CONNECTIONS),
    before: pool(workerd.copies.before!, CONNECTIONS),
    after: pool(workerd.skillshelf!, CONNECTIONS),
  };
  const get = (p: string, status = 200): BenchRequest => ({ path: p, status });
  const skillMd = names.map((n) => get(`/skills/${n}/SKILL.md`));
  const rows: Row[] = [
    { id: "healthz", label: "/healthz (bare: /ping), no storage", bare: [get("/ping")], skillshelf: [get("/healthz")] },
    { id: "skill-md", label: "GET SKILL.md (~4 KB)", bare: skillMd, skillshelf: skillMd },
    {
      id: "reference",
      label: "GET references/guide.md (~14 KB)",
      bare: names.map((n) => get(`/skills/${n}/references/guide.md`)),
      skillshelf: names.map((n) => get(`/skills/${n}/references/guide.md`)),
    },
    {
      id: "304",
      label: "304 (If-None-Match, SKILL.md)",
      bare: names.map((n) => ({ ...get(`/skills/${n}/SKILL.md`, 304), headers: { "if-none-match": `"${files[`/skills/${n}/SKILL.md`]}"` } })),
      skillshelf: names.map((n) => ({ ...get(`/skills/${n}/SKILL.md`, 304), headers: { "if-none-match": `"${files[`/skills/${n}/SKILL.md`]}"` } })),
    },
  ];
  // SKILLSHELF_FLOOR_ROWS=healthz,304 measures only those rows (while iterating on a change).
  const only = process.env.SKILLSHELF_FLOOR_ROWS?.split(",");
  if (only) rows.splice(0, rows.length, ...rows.filter((row) => only.includes(row.id)));
  try {
    // Warm every Worker on every request it will get (shards and records in memory before any round), and check the bytes.
    for (const row of rows) {
      for (const side of SIDES) {
        for (const request of side === "bare" ? row.bare : row.skillshelf) {
          const answer = await send(pools[side], request);
          const expected = request.status === 200 ? files[request.path] : undefined;
          if (expected && createHash("sha256").update(answer.body).digest("hex") !== expected)
            throw new Error(`${side} ${request.path}: bytes differ from blob ${expected}`);
        }
      }
    }
    const results = new Map(rows.map((row) => [row.id, { bare: [], before: [], after: [] } as Record<Side, RoundResult[]>]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!);
      const line: string[] = [];
      for (const row of rows) {
        for (const side of order) {
          const result = await loadRound(pools[side], side === "bare" ? row.bare : row.skillshelf, LIMITS, () => workerd.cpuSeconds());
          results.get(row.id)![side].push(result);
          line.push(`${row.id} ${side} ${result.perSecond.toFixed(0)}/s ${ms(result.cpuMs)}`);
        }
      }
      console.log(`  round ${round + 1}/${ROUNDS}: ${line.join(", ")}`);
    }
    report(rows, results, base.commit);
  } finally {
    for (const p of Object.values(pools)) await p.destroy().catch(() => {});
    await workerd.stop();
  }
}

function report(rows: Row[], results: Map<string, Record<Side, RoundResult[]>>, baseCommit: string): void {
  const seconds = (performance.now() - started) / 1000;
  const times = (x: number) => `${x.toFixed(2)}×`;
  const cell = (r: RoundResult[]) =>
    `${median(r.map((x) => x.perSecond)).toFixed(0)}/s · ${ms(median(r.map((x) => x.p50)))} · ${ms(median(r.map((x) => x.cpuMs)))}`;
  /** The median over rounds of each round's ratio (side ÷ bare): both were measured moments apart. */
  const roundRatio = (r: Record<Side, RoundResult[]>, side: Side, of: (x: RoundResult) => number) => median(r[side].map((x, i) => of(x) / of(r.bare[i]!)));
  const tableRows = rows.map((row) => {
    const r = results.get(row.id)!;
    const throughput = (side: Side) => roundRatio(r, side, (x) => x.perSecond);
    const cpu = (side: Side) => 1 / roundRatio(r, side, (x) => x.cpuMs);
    return [
      row.label,
      cell(r.bare),
      cell(r.before),
      cell(r.after),
      `${times(throughput("before"))} → **${times(throughput("after"))}**`,
      `${times(cpu("before"))} → ${times(cpu("after"))}`,
    ];
  });
  const markdown = [
    `- **Setup:** ${SKILLS} skills (\`bench/shelf-gen.ts\`), built and published by the CLI; three Workers in one workerd (Miniflare, \`wrangler dev\`'s simulator) over one local R2 bucket, each on its own loopback socket: the bare Worker (\`bench/http/bare-worker.js\`, whose \`/ping\` answers a fixed JSON body), skillshelf at ${BASE} (${baseCommit}, "before") and skillshelf as the working tree has it ("after"), both bundled by \`wrangler deploy --dry-run\` with wrangler.toml's public shelf.`,
    `- **Measure:** ${ROUNDS} rounds, each route on each Worker back to back (the order rotating every round), each at most ${LIMITS.requests.toLocaleString("en-US")} requests or ${LIMITS.seconds} s over ${CONNECTIONS} keep-alive connections, every answer read and its status checked (every file's bytes hashed against its blob before the rounds). Cells: medians over rounds of throughput · p50 · workerd CPU per request (the whole process: the R2 simulator too). Ratios: the median of each round's ratio to the bare Worker measured in the same round; "by CPU" is requests per workerd CPU second against the bare Worker's.`,
    `- **Run:** ${QUICK ? "quick mode (indicative only), " : ""}${seconds.toFixed(0)} s; load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end, on ${cpus().length} cores shared with the load client.`,
    "",
    table(
      [
        "Route",
        "bare Worker: req/s · p50 · CPU/req",
        "before: req/s · p50 · CPU/req",
        "after: req/s · p50 · CPU/req",
        "throughput ÷ bare, before → after",
        "by CPU, before → after",
      ],
      tableRows,
    ),
  ].join("\n");
  reportSection("floor", markdown);
}
