// Starts the shelf Worker for interop tests on a loopback port, the way `npm start` runs it
// (wrangler dev, local R2 and KV persisted in a state folder), with a given shelf folder
// published into it, and stops it again. Every process started here is in its own process
// group and is killed on stop, on timeout and on exit.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { buildShelf } from "../../scripts/lib/build.ts";
import { POINTER_SCHEMA, ADVISORIES_SCHEMA } from "../../src/core/manifest.ts";
import { R2_ADVISORIES_KEY, R2_POINTER_KEY, r2Key } from "../../src/worker/storage/keys.ts";

/** A running shelf: its loopback origin and how to stop it. */
export interface RunningShelf {
  url: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const READY_TIMEOUT_MS = 90_000;
const running = new Set<ChildProcess>();

/** Kills every process group this module started (also called on process exit). */
export function killAll(): void {
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  running.clear();
}
process.on("exit", killAll);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Builds `shelfDir` and writes the generation into the local R2 persisted under `stateDir`
 * (what a publish leaves behind: objects, manifest, pointer, empty advisories).
 */
export async function seedShelf(shelfDir: string, stateDir: string): Promise<string> {
  const built = await buildShelf(shelfDir);
  const { getPlatformProxy } = await import("wrangler");
  const proxy = await getPlatformProxy<{ SHELF_BUCKET: { put(key: string, value: Uint8Array | string): Promise<unknown> } }>({
    configPath: path.join(ROOT, "wrangler.toml"),
    persist: { path: path.join(stateDir, "v3") },
  });
  try {
    const bucket = proxy.env.SHELF_BUCKET;
    for (const object of built.objects) await bucket.put(r2Key(object.kind, object.sha256), object.bytes);
    await bucket.put(r2Key("generation", built.id), built.manifestBytes);
    const at = new Date().toISOString();
    await bucket.put(R2_POINTER_KEY, JSON.stringify({ schema: POINTER_SCHEMA, generation: built.id, seq: 1, published_at: at, history: [{ seq: 1, generation: built.id, action: "publish", at }] }));
    await bucket.put(R2_ADVISORIES_KEY, JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: [], seq: 1, updated_at: at }));
  } finally {
    await proxy.dispose();
  }
  return built.id;
}

/**
 * Starts `wrangler dev` on 127.0.0.1 over `stateDir` with extra vars, and waits for /healthz.
 * @example const shelf = await startShelf(state, { SHELF_DISCOVERY: "v0.1" }); …; await shelf.stop()
 */
export async function startShelf(stateDir: string, vars: Record<string, string> = {}): Promise<RunningShelf> {
  const port = await freePort();
  const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir, "--log-level", "warn", "--show-interactive-dev-session=false"];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn("npx", args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
  });
  running.add(child);
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!running.has(child)) return;
    running.delete(child);
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 5_000));
    if ((await Promise.race([exited, timer])) === "timeout") {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return { url, stop };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new Error(`the shelf Worker did not answer ${url}/healthz within ${READY_TIMEOUT_MS / 1000} s:\n${output.slice(-2000)}`);
}
