// Where a cold request's CPU goes: sends chosen routes of test/worker/budget/routes.ts, each to a
// never-used isolate (as bench/budget.bench.ts's cold rows), with V8's sampling profiler on at a
// fine interval, and prints each profile's self time by module of the bundle (esbuild's
// `// path` markers), by function, and V8's own entries ((program), (garbage collector)). Writes
// every profile as a .cpuprofile (Chrome DevTools and speedscope open it) into --out.
// Over a shelf the budget bench already built and published (its cache folder for one size):
//   npx node --import ./bench/register-tsx.mjs bench/budget/profile-cold.ts --shelf ~/.cache/skillshelf/bench-budget/lean-1000 --route "GET /v1/skills" --route SKILL.md
// Not part of `npm run bench`: a tool for reading the cold rows, not a measurement the docs quote as such.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { budgetRoutes } from "../../test/worker/budget/routes.ts";
import { pool, send } from "../http/load.ts";
import { runNode, skillshelfConfig, startWorkerd } from "../http/workerd.ts";
import { type CpuProfile, Inspector } from "./inspector.ts";
import { benchBudgetSubject } from "./subject.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { values } = parseArgs({
  options: {
    shelf: { type: "string" },
    route: { type: "string", multiple: true },
    out: { type: "string" },
    interval: { type: "string", default: "100" },
    top: { type: "string", default: "25" },
    runs: { type: "string", default: "1" },
  },
});
if (!values.shelf) throw new Error("--shelf <the bench's cache folder for one size, holding build/ and state/> is required");
const home = path.resolve(values.shelf);
const build = path.join(home, "build");
const tmp = mkdtempSync(path.join(tmpdir(), "skillshelf-profile-cold-"));
const out = values.out ?? path.join(tmp, "profiles");
mkdirSync(out, { recursive: true });
// A copy of the state: the bench may be publishing into the original.
const state = path.join(tmp, "state");
await runNode(["-e", `require("node:fs").cpSync(${JSON.stringify(path.join(home, "state"))}, ${JSON.stringify(state)}, { recursive: true })`], { cwd: ROOT });

try {
  const bundle = { dir: path.join(tmp, "bundle"), main: "worker.js" };
  await runNode([path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "bench/budget/worker.ts", "--dry-run", "--outdir", bundle.dir], {
    cwd: ROOT,
    env: { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn" },
  });
  const modules = moduleMap(readFileSync(path.join(bundle.dir, bundle.main), "utf8"));
  const token = "profile-cold";
  const routes = budgetRoutes(benchBudgetSubject(build, token)).filter(
    (r) => !values.route || values.route.some((want) => r.label === want || r.label.includes(want)),
  );
  if (!routes.length) throw new Error(`no route matches ${values.route?.join(", ")}`);
  const runs = Number(values.runs);
  const copies = routes.flatMap((_r, i) => Array.from({ length: runs }, (_x, k) => `cold-${i}-${k}`));
  const { createHash } = await import("node:crypto");
  const workerd = await startWorkerd({
    stateDir: state,
    inspector: true,
    skillshelf: {
      bundle,
      config: skillshelfConfig(ROOT),
      // The Cache API off, as in the budget bench (Miniflare keeps its cache across copies, so a second
      // "cold" copy of a listing would be a cache hit).
      extraVars: { PUBLISH_TOKEN_SHA256: createHash("sha256").update(token).digest("hex"), SHELF_LIVE_TTL_MS: "30000", SHELF_EDGE_CACHE: "off" },
      copies,
    },
  });
  try {
    for (const [i, route] of routes.entries()) {
      for (let k = 0; k < runs; k++) {
        const name = `cold-${i}-${k}`;
        const inspector = await Inspector.connect(workerd.inspector!, name, Number(values.interval));
        const target = pool(workerd.copies[name]!, 1);
        let nanos = 0n;
        const profile = await inspector.profile(async () => {
          const before = workerd.cpuNanos();
          await send(target, { ...route, headers: { ...route.headers, Host: "budget.bench.localhost" }, status: route.conditional ? 200 : route.status });
          nanos = workerd.cpuNanos() - before;
        });
        inspector.close();
        await target.destroy();
        const file = path.join(out, `${route.label.replace(/[^A-Za-z0-9]+/g, "_").slice(0, 80)}-${k}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        console.log(`\n## ${route.label} (run ${k + 1}): workerd CPU ${(Number(nanos) / 1e6).toFixed(1)} ms; profile ${file}`);
        console.log(summary(profile, modules, Number(values.top)));
      }
    }
  } finally {
    await workerd.stop();
  }
} finally {
  rmSync(path.join(tmp, "state"), { recursive: true, force: true });
  if (!values.out) console.log(`(profiles left in ${out})`);
}

/** Each module's first line in an esbuild bundle, from its `// path` marker lines. */
function moduleMap(source: string): { line: number; module: string }[] {
  const starts: { line: number; module: string }[] = [];
  for (const [line, text] of source.split("\n").entries()) {
    const marker = /^\/\/ ((?:node_modules|src|bench|test)\/\S+\.(?:[cm]?js|ts|json))$/.exec(text);
    if (marker) starts.push({ line, module: marker[1]! });
  }
  return starts;
}

function moduleOf(modules: { line: number; module: string }[], line: number): string {
  let lo = 0;
  let hi = modules.length - 1;
  let found = "(bundle prelude)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (modules[mid]!.line <= line) {
      found = modules[mid]!.module;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A package name or src folder: node_modules/zod/v4/core/x.js → zod; src/worker/mcp/x.ts → src/worker/mcp. */
function groupOf(module: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg) return pkg[1]!;
  return path.dirname(module);
}

function summary(profile: CpuProfile, modules: { line: number; module: string }[], top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byGroup = new Map<string, number>();
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    busy += micros;
    const inBundle = frame.url.endsWith("worker.js");
    const module = inBundle ? moduleOf(modules, frame.lineNumber) : frame.url || frame.functionName;
    const group = inBundle ? groupOf(module) : frame.url ? "(runtime)" : frame.functionName;
    byGroup.set(group, (byGroup.get(group) ?? 0) + micros);
    byModule.set(module, (byModule.get(module) ?? 0) + micros);
    const fn = `${frame.functionName || "(anonymous)"} ${inBundle ? `${module}:${frame.lineNumber + 1}` : frame.url}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `  ${(v / 1000).toFixed(1).padStart(7)} ms  ${k}`)
      .join("\n");
  return [`busy ${(busy / 1000).toFixed(1)} ms`, "by package/folder:", list(byGroup), "by module:", list(byModule), "by function:", list(byFunction)].join(
    "\n",
  );
}
