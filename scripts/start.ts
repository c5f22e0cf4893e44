#!/usr/bin/env node
// `npm start`: builds ./shelf, starts `wrangler dev` on loopback with local R2 and KV (persisted
// under .wrangler/state), creates a git-ignored local publish token on first run (and its hash in
// .dev.vars), publishes the build to the local Worker and prints URLs to try. A second run with
// no changes uploads nothing. `startShelf()` is importable so tests start the shelf the same way
// on a chosen port, and `stop()` ends everything it started.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { publishGeneration, type PublishResult } from "../src/core/publish/client.ts";
import { buildShelf, writeBuild } from "../src/cli/lib/build.ts";
import { CliError } from "../src/cli/lib/cli.ts";
import { buildFolderSource } from "../src/cli/lib/publish.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Default loopback port (wrangler's). */
const DEFAULT_PORT = 8787;
/** Where the local publish token lives (git-ignored via .skillshelf/). */
export const LOCAL_TOKEN_FILE = ".skillshelf/publish-token";
/** Where `npm start` writes its build (git-ignored). */
const LOCAL_BUILD_DIR = ".skillshelf/build";
const READY_TIMEOUT_MS = 90_000;
/** Every wrangler this process started and has not seen exit, for signal and exit handlers. */
const live = new Set<ChildProcess>();

/** Options for {@link startShelf}. */
export interface StartOptions {
  port?: number;
  /** The shelf folder to build and serve; defaults to ./shelf. */
  shelfDir?: string;
  /** Project root (where wrangler.toml is); defaults to this repository. */
  root?: string;
  /** Where wrangler persists local R2 and KV; defaults to <root>/.wrangler/state. */
  persistTo?: string;
  log?: (line: string) => void;
  /** Extra Worker variables for this run (`wrangler dev --var NAME:VALUE`). */
  vars?: Record<string, string>;
  /** Where the build folder goes; defaults to <root>/.skillshelf/build. */
  buildDir?: string;
  /** Forward wrangler's own output (default: only when it fails to start). */
  verbose?: boolean;
}

/** A running local shelf. */
export interface RunningShelf {
  url: string;
  port: number;
  generation: string;
  publish: PublishResult;
  /** Stops wrangler and everything it started; safe to call twice. */
  stop(): Promise<void>;
}

/** An unused loopback port, for starting a shelf beside others (tests, interop). */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free loopback port"))));
    });
  });
}

/** Reads the local publish token, creating it (and its hash in .dev.vars) on first run. */
async function ensureLocalToken(root: string): Promise<string> {
  const tokenFile = path.join(root, LOCAL_TOKEN_FILE);
  let token: string;
  try {
    token = (await readFile(tokenFile, "utf8")).trim();
  } catch {
    token = "";
  }
  if (!/^sk_local_[0-9a-f]{64}$/.test(token)) {
    token = `sk_local_${randomBytes(32).toString("hex")}`;
    await mkdir(path.dirname(tokenFile), { recursive: true });
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  }
  const hash = createHash("sha256").update(token).digest("hex");
  // .dev.vars may hold other local secrets; replace only our line.
  const varsFile = path.join(root, ".dev.vars");
  let vars = "";
  try {
    vars = await readFile(varsFile, "utf8");
  } catch {
    // first run
  }
  const line = `PUBLISH_TOKEN_SHA256=${hash}`;
  const lines = vars.split("\n").filter((l) => l !== "" && !l.startsWith("PUBLISH_TOKEN_SHA256="));
  const next = `${[...lines, line].join("\n")}\n`;
  if (next !== vars) await writeFile(varsFile, next, { mode: 0o600 });
  return token;
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal); // the whole process group: wrangler and its workerd
  } catch {
    // the group is gone already
  }
}

async function waitForHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new CliError(`wrangler dev exited before the Worker answered (is the port in use?):\n${output().slice(-2000)}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new CliError(`wrangler dev did not answer ${url}/healthz within ${READY_TIMEOUT_MS / 1000} s:\n${output().slice(-2000)}`);
}

/**
 * Builds the shelf, starts wrangler dev on 127.0.0.1:<port> and publishes the build to it.
 * @example const shelf = await startShelf({ port: 8799 }); try { … } finally { await shelf.stop() }
 */
export async function startShelf(options: StartOptions = {}): Promise<RunningShelf> {
  const root = options.root ?? ROOT;
  const port = options.port ?? DEFAULT_PORT;
  const log = options.log ?? (() => {});
  const shelfDir = options.shelfDir ?? path.join(root, "shelf");
  const buildDir = options.buildDir ?? path.join(root, LOCAL_BUILD_DIR);

  const built = await buildShelf(shelfDir);
  await writeBuild(built, buildDir, { shelfDir });
  log(`built ${shelfDir}: generation ${built.id} (${built.manifest.skill_count} skills, ${built.manifest.file_count} files)`);
  const token = await ensureLocalToken(root);

  // Run wrangler on this Node (the pinned 24), whatever `node` is first on PATH.
  const wrangler = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    options.persistTo ?? path.join(root, ".wrangler", "state"),
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
  ];
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("--var", `${name}:${value}`);
  const child = spawn(process.execPath, [wrangler, ...args], {
    cwd: root,
    detached: true, // its own process group, so stop() ends workerd too
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", DO_NOT_TRACK: "1" },
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (options.verbose) process.stderr.write(chunk);
  };
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const onExit = () => killTree(child, "SIGKILL");
  process.on("exit", onExit);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      killTree(child, "SIGTERM");
      const timer = setTimeout(() => killTree(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    // workerd may outlive wrangler's own exit by a moment; the group kill is harmless if gone.
    killTree(child, "SIGKILL");
    process.off("exit", onExit);
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealthy(url, child, () => output);
    log(`wrangler dev is serving ${url}`);
    const publish = await publishGeneration(await buildFolderSource(buildDir), {
      url,
      token,
      onLog: log,
    });
    log(
      publish.alreadyCurrent
        ? `generation ${publish.generation} is already current; nothing uploaded`
        : `published ${publish.generation}: uploaded ${publish.uploaded.blob} blob(s), ${publish.uploaded.record} record(s), ${publish.uploaded.shard} shard(s), ${publish.bytesUploaded} bytes`,
    );
    return { url, port, generation: built.id, publish, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Kills every wrangler process group this process started (for signal handlers). */
function killAllStarted(): void {
  for (const child of live) killTree(child, "SIGKILL");
}

async function main(): Promise<void> {
  // Handle signals from the first moment: a signal during startup must still stop wrangler.
  let shelf: RunningShelf | undefined;
  const shutdown = () => {
    if (!shelf) {
      killAllStarted();
      process.exit(143);
    }
    void shelf.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  const { values } = parseArgs({ options: { port: { type: "string" }, verbose: { type: "boolean" } }, strict: true });
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`--port must be a port number, not ${values.port}`, 2);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  shelf = await startShelf({ port, log, verbose: values.verbose });
  const first = (JSON.parse(await readFile(path.join(ROOT, LOCAL_BUILD_DIR, "manifest.json"), "utf8")) as { skill_count: number }).skill_count;
  log(`\nskillshelf is serving ./shelf (${first} skills) at ${shelf.url}. Try:`);
  for (const p of ["/.well-known/agent-skills/index.json", "/skills/index.json", "/skills/code-review/SKILL.md", "/v1/shelf"]) log(`  curl ${shelf.url}${p}`);
  log(`  npx skills add ${shelf.url} --list`);
  log(
    `\nPublish again after editing ./shelf: npm start (or: npx skillshelf build shelf && SKILLSHELF_PUBLISH_TOKEN=$(cat ${LOCAL_TOKEN_FILE}) npx skillshelf publish --url ${shelf.url})`,
  );
  log("Press Ctrl+C to stop.");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`npm start: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    process.stderr.write(`npm start: internal error:\n${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(70);
  });
}
