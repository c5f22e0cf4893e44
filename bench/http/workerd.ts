// What the workerd benches (http, floor, budget) share: a scratch folder and the run around main
// (runWorkerdBench), a shelf's publish token and its publish through the admin API (publishBuild),
// and workerd itself, started through Miniflare (the simulator wrangler dev runs):
// skillshelf's deploy bundle as `wrangler deploy --dry-run` writes it, with the bindings and vars of
// wrangler.toml, and the bare Worker (bare-worker.js) bound to the same local R2 bucket. Each Worker
// gets its own loopback socket (Miniflare's direct sockets), so requests skip Miniflare's routing
// Worker and reach the Worker itself. Every workerd started here is killed when the process ends,
// even on a crash or a signal.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_readConfig } from "wrangler";

/** The variable `skillshelf publish --token-env` reads the benches' publish token from. */
const TOKEN_VAR = "SKILLSHELF_BENCH_PUBLISH_TOKEN";
const SKILLSHELF_CLI = path.resolve(import.meta.dirname, "../../bin/skillshelf.js");

/**
 * A scratch folder of the bench's own, removed when the process exits however it exits (a shelf,
 * its build and state are a few hundred MB).
 * @example const tmp = benchScratch("skillshelf-http-bench-")
 */
export function benchScratch(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs a workerd bench's `main`, then stops every workerd it left running and removes `scratch`,
 * also when main throws.
 * @example await runWorkerdBench(main, tmp)
 */
export async function runWorkerdBench(main: () => Promise<void>, scratch: string): Promise<void> {
  try {
    await main();
  } finally {
    await stopAllWorkerd();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A random publish token, and the PUBLISH_TOKEN_SHA256 var a shelf started with it needs. */
export function benchPublishToken(): { token: string; vars: { PUBLISH_TOKEN_SHA256: string } } {
  const token = randomBytes(32).toString("hex");
  return { token, vars: { PUBLISH_TOKEN_SHA256: createHash("sha256").update(token).digest("hex") } };
}

/**
 * Publishes a build folder to the running shelf at `origin` with `skillshelf publish`, as CI does.
 * @example const { seconds } = await publishBuild(workerd.skillshelf!, buildDir, token)
 */
export function publishBuild(origin: URL, buildDir: string, token: string): Promise<{ stdout: string; seconds: number }> {
  return runNode([SKILLSHELF_CLI, "publish", "--url", origin.origin, "--dir", buildDir, "--token-env", TOKEN_VAR], {
    cwd: path.dirname(path.dirname(SKILLSHELF_CLI)),
    env: { [TOKEN_VAR]: token, CI: "1" },
  });
}

/**
 * The static layout's path of every file → its blob's SHA-256, from a build folder's skill records
 * (what the bare Worker serves, and what a file route's answer is checked against).
 */
export function pathToBlob(buildDir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(path.join(buildDir, "records"))) {
    const record = JSON.parse(readFileSync(path.join(buildDir, "records", entry), "utf8")) as { name: string; files: { path: string; sha256: string }[] };
    for (const file of record.files) files[`/skills/${record.name}/${file.path}`] = file.sha256;
  }
  return files;
}

/** The budget bench's cold floor (bench/budget/storage-floor-worker.js). */
const STORAGE_FLOOR_WORKER = path.join(import.meta.dirname, "../budget/storage-floor-worker.js");
/** Where the bare Worker's source lives. */
const BARE_WORKER = path.join(import.meta.dirname, "bare-worker.js");

/** Node processes this module started and has not seen exit (killed with the workerds on exit). */
const children = new Set<ChildProcess>();

/**
 * Runs a Node script on this Node (the pinned Node 24) without blocking, so two can run at once;
 * resolves with its output and wall time, rejects with its output on a non-zero exit.
 * @example await runNode(["bin/skillshelf.js", "build", shelf, "--out", out], { cwd: root })
 */
export function runNode(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ stdout: string; seconds: number }> {
  hookExit();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout = (stdout + chunk).slice(-20_000);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      children.delete(child);
      if (code === 0) resolve({ stdout, seconds: (performance.now() - started) / 1000 });
      else reject(new Error(`${path.basename(args[0]!)} ${args[1]} failed (exit ${code ?? signal}):\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
    });
  });
}

/**
 * Bundles the Worker exactly as `npm run build:check` does, into `outDir`; returns the bundle's folder and file.
 * @example const bundle = await bundleSkillshelf(root, "/tmp/x/bundle") // { dir: "/tmp/x/bundle", main: "index.js" }
 */
export async function bundleSkillshelf(root: string, outDir: string): Promise<{ dir: string; main: string }> {
  await runNode([path.join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outDir], {
    cwd: root,
    env: { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn" },
  });
  const main = readdirSync(outDir).find((f) => f === "index.js") ?? readdirSync(outDir).find((f) => /\.m?js$/.test(f));
  if (!main) throw new Error(`wrangler deploy --dry-run wrote no module to ${outDir}`);
  return { dir: outDir, main };
}

/** The Worker settings wrangler.toml gives the top-level (public) shelf: compatibility, vars, binding names. */
export function skillshelfConfig(root: string): {
  compatibilityDate: string;
  compatibilityFlags: string[];
  vars: Record<string, string>;
  r2: string[];
  kv: string[];
  /** The `[version_metadata]` binding's name, when wrangler.toml has one. */
  versionMetadata?: string;
} {
  const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") }, { hideWarnings: true });
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.vars ?? {})) vars[name] = typeof value === "string" ? value : JSON.stringify(value);
  return {
    compatibilityDate: config.compatibility_date ?? "2026-11-01",
    compatibilityFlags: config.compatibility_flags ?? [],
    vars,
    r2: config.r2_buckets.map((b: { binding: string }) => b.binding),
    kv: config.kv_namespaces.map((k: { binding: string }) => k.binding),
    // SKILLSHELF_BENCH_RENDERED=off leaves it unbound: every cold isolate builds its listings (the before of docs/benchmarks.md's comparison).
    ...(config.version_metadata?.binding && process.env.SKILLSHELF_BENCH_RENDERED !== "off" ? { versionMetadata: config.version_metadata.binding } : {}),
  };
}

/**
 * The version every skillshelf Worker of this bench process is deployed as (the `[version_metadata]`
 * binding's id): one per run, as a deploy is, so listings a run keeps in R2 (src/worker/read/rendered.ts)
 * are never served to a later run's code from the cached state.
 */
const DEPLOYMENT = { id: randomUUID(), tag: "", timestamp: new Date().toISOString() };

/** Which Workers one workerd serves. */
export interface WorkerdPlan {
  /** Local R2, KV and Durable Object state, kept on disk so a fresh workerd sees the published shelf. */
  stateDir: string;
  skillshelf?: {
    bundle: { dir: string; main: string };
    config: ReturnType<typeof skillshelfConfig>;
    extraVars: Record<string, string>;
    /** Names of more Workers running the same bundle over the same bindings, each its own isolate (the budget bench's cold isolates). */
    copies?: string[];
    /** More Workers by name, each running its own bundle (another commit's) with the same config and bindings (bench/floor.bench.ts). */
    variants?: Record<string, { dir: string; main: string }>;
  };
  /** Open workerd's V8 inspector (Miniflare's inspectorPort) on a free port. */
  inspector?: boolean;
  /** The bare Worker's path → blob SHA-256 map. */
  bare?: { files: Record<string, string>; compatibilityDate: string };
  /** Never-used copies of bench/budget/storage-floor-worker.js by name, over the bucket and skillshelf's KV namespace (the budget bench's cold floor). */
  storageFloor?: { copies: string[]; compatibilityDate: string; r2Key: string; kvKey: string };
}

/** A running workerd: each Worker's loopback origin, the process id, and how to stop it. */
export interface Workerd {
  skillshelf?: URL;
  bare?: URL;
  /** Each copy's, variant's and storage-floor copy's loopback origin, by name. */
  copies: Record<string, URL>;
  /** workerd's inspector address, when the plan asked for it. */
  inspector?: URL;
  pid: number;
  /** workerd's CPU seconds so far (utime + stime of /proc/<pid>/stat: every thread, the R2 and KV simulators included). */
  cpuSeconds(): number;
  /** The same in nanoseconds on a core, summed over workerd's threads (/proc/<pid>/task/<tid>/schedstat), not in 10 ms ticks. */
  cpuNanos(): bigint;
  stop(): Promise<void>;
}

/** The bucket both Workers bind: the same local R2 objects. */
const BUCKET = "skillshelf-bench";
const live = new Map<number, Miniflare>();
let hooked = false;

/** Kills every workerd and Node child still running (synchronously: also from the exit handler). */
function killAll(): void {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  for (const pid of live.keys()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1));
    });
  }
}

/**
 * Starts one workerd serving the planned Workers, each on its own 127.0.0.1 port.
 * @example const w = await startWorkerd({ stateDir, skillshelf, bare }); try { … } finally { await w.stop(); }
 */
export async function startWorkerd(plan: WorkerdPlan): Promise<Workerd> {
  hookExit();
  const workers: V4WorkerOptions[] = [];
  if (plan.skillshelf) {
    const { bundle, config, extraVars } = plan.skillshelf;
    const bundles: [string, { dir: string; main: string }][] = [
      ["skillshelf", bundle],
      ...(plan.skillshelf.copies ?? []).map((name) => [name, bundle] as [string, typeof bundle]),
      ...Object.entries(plan.skillshelf.variants ?? {}),
    ];
    for (const [name, { dir, main }] of bundles)
      workers.push({
        name,
        modules: true,
        rootPath: dir,
        scriptPath: main,
        compatibilityDate: config.compatibilityDate,
        compatibilityFlags: config.compatibilityFlags,
        bindings: { ...config.vars, ...extraVars, ...(config.versionMetadata ? { [config.versionMetadata]: DEPLOYMENT } : {}) },
        r2Buckets: Object.fromEntries(config.r2.map((binding) => [binding, BUCKET])),
        kvNamespaces: Object.fromEntries(config.kv.map((binding) => [binding, `${binding.toLowerCase()}-bench`])),
        unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
      });
  }
  for (const name of plan.storageFloor?.copies ?? []) {
    workers.push({
      name,
      modules: true,
      rootPath: path.dirname(STORAGE_FLOOR_WORKER),
      scriptPath: path.basename(STORAGE_FLOOR_WORKER),
      compatibilityDate: plan.storageFloor!.compatibilityDate,
      bindings: { R2_KEY: plan.storageFloor!.r2Key, KV_KEY: plan.storageFloor!.kvKey },
      r2Buckets: { BUCKET },
      kvNamespaces: { KV: "shelf_kv-bench" },
      unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    });
  }
  if (plan.bare) {
    workers.push({
      name: "bare",
      modules: true,
      rootPath: path.dirname(BARE_WORKER),
      scriptPath: path.basename(BARE_WORKER),
      compatibilityDate: plan.bare.compatibilityDate,
      bindings: { FILES: plan.bare.files },
      r2Buckets: { BUCKET },
      unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    });
  }
  const before = new Set(workerdChildren());
  const errors: string[] = [];
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers,
      resourcePersistencePath: plan.stateDir,
      ...(plan.inspector ? { inspectorPort: 0 } : {}),
      // Worker logs: errors are kept for the report of a failed run; the rest would only slow the load down.
      handleStructuredLogs: (log) => {
        if (log.level === "error" && errors.length < 20) errors.push(log.message);
      },
    }),
  );
  let pid = 0;
  try {
    await mf.ready;
    pid = workerdChildren().find((p) => !before.has(p)) ?? 0;
    if (!pid) throw new Error("started workerd but found no new workerd child process in /proc");
    live.set(pid, mf);
    const stat = `/proc/${pid}/stat`;
    const tick = clockTicks();
    return {
      skillshelf: plan.skillshelf ? await mf.unsafeGetDirectURL("skillshelf") : undefined,
      bare: plan.bare ? await mf.unsafeGetDirectURL("bare") : undefined,
      copies: Object.fromEntries(
        await Promise.all(
          [...(plan.skillshelf?.copies ?? []), ...Object.keys(plan.skillshelf?.variants ?? {}), ...(plan.storageFloor?.copies ?? [])].map(
            async (name) => [name, await mf.unsafeGetDirectURL(name)] as const,
          ),
        ),
      ),
      inspector: plan.inspector ? await mf.getInspectorURL() : undefined,
      pid,
      cpuSeconds() {
        // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
        const text = readFileSync(stat, "utf8");
        const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
        return (Number(fields[11]) + Number(fields[12])) / tick;
      },
      cpuNanos() {
        let total = 0n;
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          try {
            total += BigInt(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]!);
          } catch {
            // the thread ended while listing
          }
        }
        return total;
      },
      async stop() {
        live.delete(pid);
        await mf.dispose();
        if (errors.length) process.stderr.write(`workerd logged errors:\n  ${errors.join("\n  ")}\n`);
      },
    };
  } catch (error) {
    live.delete(pid);
    await mf.dispose().catch(() => {});
    if (errors.length) process.stderr.write(`workerd logged errors:\n  ${errors.join("\n  ")}\n`);
    throw error;
  }
}

/** Stops every workerd this module started that is still running. */
export async function stopAllWorkerd(): Promise<void> {
  for (const [pid, mf] of [...live]) {
    live.delete(pid);
    await mf.dispose().catch(() => {});
  }
}

/** Process ids of this process's workerd children. */
function workerdChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (name === "workerd" && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids;
}

let ticks: number | undefined;
/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times (100 on Linux almost everywhere). */
function clockTicks(): number {
  if (ticks === undefined) {
    const run = existsSync("/usr/bin/getconf") || existsSync("/bin/getconf") ? spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }) : undefined;
    ticks = Number(run?.stdout.trim()) || 100;
  }
  return ticks;
}
