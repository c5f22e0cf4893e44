#!/usr/bin/env node
// `npm start`: builds a shelf, starts `wrangler dev` on loopback with local R2 and KV, creates git-ignored
// local tokens on first run (their hashes in .dev.vars), publishes the build to the Worker it started and
// prints URLs to try; `--env <team>` does the same for a team environment of wrangler.toml. It reports
// success only once the Worker answering is the one this run started (a per-run nonce that /healthz
// echoes). The build is signed with a throwaway Ed25519 key kept under the git-ignored .skillshelf/ and the
// Worker is configured with its public key (docs/signing.md), so `skillshelf verify` and agentskills-core's
// TrustPolicy can check it. `startShelf()` is importable so tests start a shelf the same way; `stop()` ends what it started.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildShelf } from "../src/cli/lib/build.ts";
import { CliError, UsageError } from "../src/cli/lib/cli.ts";
import { buildFolderSource } from "../src/cli/lib/publish.ts";
import { signBuilt, writeSecretFile } from "../src/cli/lib/signing.ts";
import { exportPkcs8Pem, generateSigningKey, importPkcs8Pem, type SigningKey, toBase64 } from "../src/core/signing/ed25519.ts";
import { type PublishResult, publishGeneration } from "../src/core/publish/client.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The throwaway signing key's id (its file is {@link LocalPaths.signingKeyFile}). */
export const LOCAL_SIGNING_KEY_ID = "local-throwaway";
/** Default loopback port (wrangler's); a team environment's default is the next ones (see {@link teamPort}). */
export const DEFAULT_PORT = 8787;
/** Where the local publish token lives (git-ignored via .skillshelf/). */
export const LOCAL_TOKEN_FILE = ".skillshelf/publish-token";
/**
 * The Worker variable that carries this run's nonce (`wrangler dev --var`); /healthz echoes it as `run`
 * (src/worker/index.ts), so a server that another process left on the port is never taken for ours.
 */
export const RUN_NONCE_VAR = "SKILLSHELF_DEV_RUN";
const READY_TIMEOUT_MS = 90_000;
/**
 * The Worker variables of a local run: SHELF_LIVE_TTL_MS 0 (src/worker/storage/live.ts: a publish or
 * rollback shows on the next request, where production keeps its ~30 s bound), the caller's, the nonce.
 */
export function devVars(vars: Record<string, string> | undefined, nonce: string): Record<string, string> {
  return { SHELF_LIVE_TTL_MS: "0", ...vars, [RUN_NONCE_VAR]: nonce };
}

/** A team environment's name: a wrangler.toml key that is also safe as a folder name. */
const TEAM_NAME = /^[A-Za-z0-9_-]+$/;
/** Every wrangler this process started and has not seen exit, for signal and exit handlers. */
const live = new Set<ChildProcess>();

export const USAGE = "npm start -- [--port N] [--env <team>] [--shelf <dir>] [--verbose]";
const HELP = `usage: ${USAGE}

Builds a shelf, serves it with wrangler dev on 127.0.0.1 (local R2 and KV, no account needed),
publishes the build to it and prints URLs to try. Ctrl+C stops everything it started.

options:
  --port N        the loopback port (default ${DEFAULT_PORT}; a team's default is ${DEFAULT_PORT} + its place among the
                  [env.*] blocks of wrangler.toml: the first team ${DEFAULT_PORT + 1}, the second ${DEFAULT_PORT + 2}, …)
  --env <team>    run the team environment [env.<team>] of wrangler.toml: its vars, its own local state
                  and tokens (a read token for a private shelf, printed), on its own port
  --shelf <dir>   the shelf folder to build (default ./shelf; with --env, teams/<team>)
  --verbose       show wrangler's own output
  -h, --help      this help

Options go after "--": npm keeps the ones before it for itself.

examples:
  npm start
  npm start -- --port 8811
  npm start -- --env acme          # teams/acme as [env.acme], on 127.0.0.1:${DEFAULT_PORT + 1}
`;

/** Options for {@link startShelf}. */
export interface StartOptions {
  /** Defaults to {@link DEFAULT_PORT}, or the team's own port with `env`. */
  port?: number;
  /** The shelf folder to build and serve; defaults to ./shelf (teams/<env> with `env`). */
  shelfDir?: string;
  /** Project root (where wrangler.toml is); defaults to this repository. */
  root?: string;
  /** Where wrangler persists local R2 and KV; defaults to <root>/.wrangler/state (.wrangler/env/<env> with `env`). */
  persistTo?: string;
  log?: (line: string) => void;
  /** Extra Worker variables for this run (`wrangler dev --var NAME:VALUE`). */
  vars?: Record<string, string>;
  /** Where the build folder goes; defaults to <root>/.skillshelf/build (.skillshelf/env/<env>/build with `env`). */
  buildDir?: string;
  /** Forward wrangler's own output (default: only when it fails to start). */
  verbose?: boolean;
  /** A team environment of wrangler.toml ([env.<team>]) to run instead of the top-level configuration. */
  env?: string;
}

/** A running local shelf. */
export interface RunningShelf {
  url: string;
  port: number;
  generation: string;
  publish: PublishResult;
  /** Stops wrangler and everything it started; safe to call twice. */
  stop(): Promise<void>;
  /** The team environment it runs, if any. */
  env?: string;
  /** A team environment's local read token (its SHA-256 is READ_TOKEN_SHA256 in .dev.vars.<team>). */
  readToken?: string;
  /** Whether reads need a read token (the Worker answered 401 without one). */
  private?: boolean;
  /** The throwaway key's public half (standard base64), configured as key {@link LOCAL_SIGNING_KEY_ID}; the origin is `url`. */
  signingPublicKey?: string;
  /** Settles when wrangler exits, with its exit code and the end of its output. */
  exited?: Promise<{ code: number | null; output: string }>;
}

/** Where one environment's local files live, relative to the project root. */
export interface LocalPaths {
  publishTokenFile: string;
  /** Only team environments get a read token. */
  readTokenFile?: string;
  buildDir: string;
  persistTo: string;
  /** The secrets file wrangler reads for this environment: .dev.vars, or .dev.vars.<team> (which replaces it). */
  devVarsFile: string;
  /** The throwaway signing key (PKCS#8 PEM, 0600), created on first run. */
  signingKeyFile: string;
}

/**
 * The local files of the top-level shelf, or of a team environment (each its own, so a team's tokens and
 * state mean nothing to the public shelf's Worker).
 * @example localPaths("acme").readTokenFile // => ".skillshelf/env/acme/read-token"
 */
export function localPaths(env?: string): LocalPaths {
  if (env === undefined) {
    return {
      publishTokenFile: LOCAL_TOKEN_FILE,
      buildDir: ".skillshelf/build",
      persistTo: ".wrangler/state",
      devVarsFile: ".dev.vars",
      signingKeyFile: ".skillshelf/signing-key.pem",
    };
  }
  const dir = `.skillshelf/env/${env}`;
  return {
    publishTokenFile: `${dir}/publish-token`,
    readTokenFile: `${dir}/read-token`,
    buildDir: `${dir}/build`,
    persistTo: `.wrangler/env/${env}`,
    devVarsFile: `.dev.vars.${env}`,
    signingKeyFile: `${dir}/signing-key.pem`,
  };
}

/** Reads the local throwaway signing key, creating it (mode 0600) on first run. */
async function ensureSigningKey(file: string): Promise<SigningKey> {
  try {
    return await importPkcs8Pem(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new CliError(`${file} is not a signing key (${(error as Error).message}); remove it and rerun`);
  }
  const key = await generateSigningKey();
  await mkdir(path.dirname(file), { recursive: true });
  await writeSecretFile(file, await exportPkcs8Pem(key.privateKey));
  return key;
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

/** Whether 127.0.0.1:<port> can be bound now (nothing listens there, nor on every address). */
export async function loopbackPortIsFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE"
        ? resolve(false)
        : reject(new CliError(`cannot listen on 127.0.0.1:${port} (${error.code ?? error.message}); try another --port`)),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The first free loopback port after `port`, to suggest instead of a busy one. */
async function nextFreePort(port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + 100, 65535); candidate++) {
    if (await loopbackPortIsFree(candidate).catch(() => false)) return candidate;
  }
  return undefined;
}

/** The port was, or became, another server's: the one refusal a caller that picked the port itself may retry. */
export class BusyPortError extends CliError {
  override readonly name = "BusyPortError";
}

async function busyPortError(port: number, what: string, flag: string): Promise<BusyPortError> {
  const suggestion = await nextFreePort(port);
  const retry = suggestion === undefined ? "choose a free port with --port N" : `try: npm start -- ${flag}--port ${suggestion}`;
  return new BusyPortError(`${what} (another npm start, or another server, holds it). Stop it, or ${retry}`);
}

/**
 * The team environments wrangler.toml declares ([env.<team>]), in file order, read by wrangler's own
 * reader (loaded only when a team is asked for: it takes a second or more).
 */
export async function teamEnvironments(root: string = ROOT): Promise<string[]> {
  const wrangler = (await import("wrangler")) as unknown as {
    experimental_readRawConfig(args: { config: string }): { rawConfig: { env?: Record<string, unknown> } };
  };
  return Object.keys(wrangler.experimental_readRawConfig({ config: path.join(root, "wrangler.toml") }).rawConfig.env ?? {});
}

/**
 * A team's default port: the one after {@link DEFAULT_PORT} for the first [env.*] block, and so on, so
 * the public shelf and every team can run side by side without flags.
 * @example teamPort(["acme", "beta"], "beta") // => 8789
 */
export function teamPort(teams: readonly string[], team: string): number {
  const index = teams.indexOf(team);
  if (index < 0) throw new Error(`no team ${team}`);
  return DEFAULT_PORT + 1 + index;
}

/** Checks a team name against wrangler.toml, as a usage error naming the teams there are. */
async function checkTeam(root: string, team: string): Promise<string[]> {
  const teams = TEAM_NAME.test(team) ? await teamEnvironments(root) : [];
  if (!teams.includes(team)) {
    const known = teams.length ? `its teams: ${teams.join(", ")}` : "wrangler.toml declares no team";
    throw new UsageError(`--env ${team}: no [env.${team}] in wrangler.toml (${known}); docs/teams.md shows how to add one\nusage: ${USAGE}`);
  }
  return teams;
}

/** Reads a local token, creating it (mode 0600) on first run or when the file holds something else. */
async function ensureToken(file: string, prefix: string): Promise<string> {
  let token = "";
  try {
    token = (await readFile(file, "utf8")).trim();
  } catch {
    // first run
  }
  if (!new RegExp(`^${prefix}[0-9a-f]{64}$`).test(token)) {
    token = `${prefix}${randomBytes(32).toString("hex")}`;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
  }
  return token;
}

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Writes the token hashes into the environment's dev-vars file, keeping every other line: the publish
 * token's hash replaces its line; the read token's hash joins the READ_TOKEN_SHA256 comma list, keeping
 * any hashes someone added there for tokens of their own.
 */
async function writeDevVars(file: string, publishHash: string, readHash: string | undefined): Promise<void> {
  let vars = "";
  try {
    vars = await readFile(file, "utf8");
  } catch {
    // first run
  }
  const lines = vars.split("\n").filter((l) => l !== "" && !l.startsWith("PUBLISH_TOKEN_SHA256="));
  lines.push(`PUBLISH_TOKEN_SHA256=${publishHash}`);
  // The pages' sign-in sessions are keyed by a secret of their own (docs/pages.md), kept across runs.
  if (!lines.some((l) => l.startsWith("SHELF_SESSION_KEY="))) lines.push(`SHELF_SESSION_KEY=${randomBytes(32).toString("hex")}`);
  if (readHash !== undefined) {
    const at = lines.findIndex((l) => l.startsWith("READ_TOKEN_SHA256="));
    const listed =
      at < 0
        ? []
        : lines[at]!.slice("READ_TOKEN_SHA256=".length)
            .replace(/^"|"$/g, "")
            .split(/[\s,]+/)
            .filter(Boolean);
    const line = `READ_TOKEN_SHA256=${[...listed.filter((h) => h !== readHash), readHash].join(",")}`;
    if (at < 0) lines.push(line);
    else lines[at] = line;
  }
  const next = `${lines.join("\n")}\n`;
  if (next !== vars) await writeFile(file, next, { mode: 0o600 });
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal); // the whole process group: wrangler and its workerd
  } catch {
    // the group is gone already
  }
}

/** What answers at <url>/healthz: the Worker this run started, another server, or nothing yet. */
export async function probeHealth(url: string, nonce: string): Promise<"ours" | "other" | "none"> {
  let res: Response;
  try {
    res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
  } catch {
    return "none";
  }
  const body = await res.text().catch(() => "");
  if (!res.ok) return "none"; // wrangler's proxy may answer before the Worker is ready; only a 200 decides
  try {
    return (JSON.parse(body) as { run?: unknown }).run === nonce ? "ours" : "other";
  } catch {
    return "other";
  }
}

const ADDRESS_IN_USE = /EADDRINUSE|address already in use/i;

async function waitForOurWorker(url: string, port: number, nonce: string, child: ChildProcess, output: () => string, flag: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (ADDRESS_IN_USE.test(output())) throw await busyPortError(port, `port ${port} was taken while wrangler dev started`, flag);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new CliError(`wrangler dev exited (${child.exitCode ?? child.signalCode}) before the Worker answered:\n${output().slice(-2000)}`);
    }
    const answer = await probeHealth(url, nonce);
    if (answer === "ours") return;
    if (answer === "other") throw await busyPortError(port, `another server answers at ${url}, not the Worker this run started`, flag);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new CliError(`wrangler dev did not answer ${url}/healthz within ${READY_TIMEOUT_MS / 1000} s:\n${output().slice(-2000)}`);
}

/** Whether the shelf at `url` refuses a read without a token (a private shelf). */
async function refusesAnonymousReads(url: string): Promise<boolean> {
  const res = await fetch(`${url}/skills/index.json`, { signal: AbortSignal.timeout(10_000) });
  await res.body?.cancel();
  return res.status === 401;
}

/**
 * Builds the shelf, starts wrangler dev on 127.0.0.1:<port> and publishes the build to it, once the
 * Worker answering there is the one it started. A busy port fails at once, suggesting a free one.
 * @example const shelf = await startShelf({ port: 8799 }); try { … } finally { await shelf.stop() }
 */
export async function startShelf(options: StartOptions = {}): Promise<RunningShelf> {
  const root = options.root ?? ROOT;
  const log = options.log ?? (() => {});
  const env = options.env;
  const teams = env === undefined ? [] : await checkTeam(root, env);
  const port = options.port ?? (env === undefined ? DEFAULT_PORT : teamPort(teams, env));
  const flag = env === undefined ? "" : `--env ${env} `;
  const local = localPaths(env);
  const shelfDir = options.shelfDir ?? path.join(root, env === undefined ? "shelf" : `teams/${env}`);
  const buildDir = options.buildDir ?? path.join(root, local.buildDir);

  if (!(await stat(shelfDir).catch(() => undefined))?.isDirectory()) {
    const seed = env === undefined ? "" : ` (seed it first: npx skillshelf seed --from shelf --to ${path.relative(root, shelfDir) || shelfDir}; docs/teams.md)`;
    throw new UsageError(`no shelf folder at ${shelfDir}${seed}; --shelf <dir> names another`);
  }
  if (!(await loopbackPortIsFree(port))) throw await busyPortError(port, `port ${port} on 127.0.0.1 is in use`, flag);

  const url = `http://127.0.0.1:${port}`;
  // Signed for this run's URL (the origin a local client verifies against) with the throwaway key.
  const signingKeyFile = path.join(root, local.signingKeyFile);
  const signingKey = await ensureSigningKey(signingKeyFile);
  const built = await buildShelf(shelfDir, buildDir, {
    sign: (documents) => signBuilt(documents, { key: signingKey, keyFile: signingKeyFile, origin: url, keyId: LOCAL_SIGNING_KEY_ID }),
  });
  log(
    `built ${shelfDir}: generation ${built.id} (${built.manifest.skill_count} skills, ${built.manifest.file_count} files), signed by ${LOCAL_SIGNING_KEY_ID} for ${url}`,
  );
  const signingVars = {
    SHELF_SIGNING_ORIGIN: url,
    SHELF_SIGNING_KEYS: JSON.stringify([{ key_id: LOCAL_SIGNING_KEY_ID, public_key: toBase64(signingKey.publicKey), status: "active" }]),
  };
  const token = await ensureToken(path.join(root, local.publishTokenFile), "sk_local_");
  const readToken = local.readTokenFile === undefined ? undefined : await ensureToken(path.join(root, local.readTokenFile), "sk_local_read_");
  await writeDevVars(path.join(root, local.devVarsFile), sha256Hex(token), readToken === undefined ? undefined : sha256Hex(readToken));

  // Run wrangler on this Node (the pinned 24), whatever `node` is first on PATH.
  const wrangler = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  const nonce = randomBytes(16).toString("hex");
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    options.persistTo ?? path.join(root, local.persistTo),
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
  ];
  if (env !== undefined) args.push("--env", env);
  for (const [name, value] of Object.entries(devVars({ ...signingVars, ...options.vars }, nonce))) args.push("--var", `${name}:${value}`);
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
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once("exit", (code) => {
      live.delete(child);
      resolve({ code, output });
    }),
  );
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const onExit = () => killTree(child, "SIGKILL");
  process.on("exit", onExit);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      killTree(child, "SIGTERM");
      const timer = setTimeout(() => killTree(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    // workerd may outlive wrangler's own exit by a moment; the group kill is harmless if gone.
    killTree(child, "SIGKILL");
    process.off("exit", onExit);
  };

  try {
    await waitForOurWorker(url, port, nonce, child, () => output, flag);
    log(`wrangler dev is serving ${url}${env === undefined ? "" : ` as [env.${env}]`}`);
    const publish = await publishGeneration(await buildFolderSource(buildDir), { url, token, onLog: log });
    log(
      publish.alreadyCurrent
        ? `generation ${publish.generation} is already current; nothing uploaded`
        : `published ${publish.generation}: uploaded ${publish.uploaded.blob} blob(s), ${publish.uploaded.record} record(s), ${publish.uploaded.shard} shard(s), ${publish.bytesUploaded} bytes`,
    );
    // Success is reported only while the Worker this run started still holds the port.
    if ((await probeHealth(url, nonce)) !== "ours") throw new CliError(`the Worker this run started no longer answers at ${url}:\n${output.slice(-2000)}`);
    const shelf: RunningShelf = { url, port, generation: built.id, publish, stop, exited, signingPublicKey: toBase64(signingKey.publicKey) };
    if (env !== undefined) Object.assign(shelf, { env, readToken, private: await refusesAnonymousReads(url) });
    return shelf;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * {@link startShelf} on a free loopback port, for tests and tools that run beside others. A port
 * found free can be taken by another process (often a workerd picking an ephemeral port) before
 * wrangler binds it; startShelf then refuses it as busy, and this tries a fresh port, up to
 * `attempts` times.
 * @example const shelf = await startShelfOnFreePort({ shelfDir, persistTo })
 */
export async function startShelfOnFreePort(options: Omit<StartOptions, "port"> = {}, attempts = 3): Promise<RunningShelf> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startShelf({ ...options, port: await freeLoopbackPort() });
    } catch (error) {
      if (!(error instanceof BusyPortError) || attempt >= attempts) throw error;
      (options.log ?? (() => {}))(`${error.message}; trying another port (attempt ${attempt + 1} of ${attempts})`);
    }
  }
}

/** Kills every wrangler process group this process started (for signal handlers). */
function killAllStarted(): void {
  for (const child of live) killTree(child, "SIGKILL");
}

/** `npm start`'s own options, as parsed from the command line. */
export interface StartArgs {
  help: boolean;
  port?: number;
  env?: string;
  shelf?: string;
  verbose: boolean;
}

/** The options that take a value, which npm swallows when they come before `--`. */
const VALUE_OPTIONS = ["port", "env", "shelf"] as const;

/**
 * Parses `npm start`'s arguments. Every mistake is a usage error (exit 2) with the usage line; an option
 * written before `--` (which npm keeps for itself, as npm_config_<name>) is named with the command to type.
 * @example parseStartArgs(["--port", "8811"], {}).port // => 8811
 */
export function parseStartArgs(argv: string[], env: Record<string, string | undefined>): StartArgs {
  const positionals = argv.filter((a) => !a.startsWith("-"));
  if (env.npm_lifecycle_event === "start") {
    const taken = VALUE_OPTIONS.filter((name) => env[`npm_config_${name}`] !== undefined);
    if (taken.length) {
      // `npm start --port 8811` leaves npm_config_port=true and passes "8811" on; `--port=8811` keeps the value.
      const rest = [...positionals];
      const meant = taken.map((name) => {
        const value = env[`npm_config_${name}`] === "true" ? (rest.shift() ?? "<value>") : env[`npm_config_${name}`];
        return `--${name} ${value}`;
      });
      throw new UsageError(
        `npm kept ${taken.map((n) => `--${n}`).join(", ")} for itself: options for npm start go after "--". Type: npm start -- ${meant.join(" ")}\nusage: ${USAGE}`,
      );
    }
  }
  let values: { port?: string; env?: string; shelf?: string; verbose?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        env: { type: "string" },
        shelf: { type: "string" },
        verbose: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // parseArgs's own advice (quoting after "--") does not apply here; its first sentence names the mistake.
    throw new UsageError(`${(error as Error).message.split(". ")[0]!.replace(/\.$/, "")}\nusage: ${USAGE}`);
  }
  const args: StartArgs = { help: values.help ?? false, verbose: values.verbose ?? false };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port < 1 || port > 65535)
      throw new UsageError(`--port must be a port number (1-65535), not ${values.port}\nusage: ${USAGE}`);
    args.port = port;
  }
  if (values.env !== undefined) {
    if (!TEAM_NAME.test(values.env)) throw new UsageError(`--env must name a team of wrangler.toml ([env.<team>]), not ${values.env}\nusage: ${USAGE}`);
    args.env = values.env;
  }
  if (values.shelf !== undefined) args.shelf = values.shelf;
  return args;
}

async function main(): Promise<number> {
  // Handle signals from the first moment: a signal during startup must still stop wrangler.
  let shelf: RunningShelf | undefined;
  let stopping = false;
  const shutdown = () => {
    stopping = true;
    if (!shelf) {
      killAllStarted();
      process.exit(143);
    }
    void shelf.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  const args = parseStartArgs(process.argv.slice(2), process.env);
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  if (args.env !== undefined && args.port === undefined) {
    const port = teamPort(await checkTeam(ROOT, args.env), args.env);
    log(`team ${args.env} runs on its own port, ${port} (${DEFAULT_PORT} + its place among wrangler.toml's [env.*] blocks); --port N to change it`);
  }
  shelf = await startShelf({ port: args.port, env: args.env, shelfDir: args.shelf && path.resolve(args.shelf), log, verbose: args.verbose });
  const local = localPaths(args.env);
  const shelfName = args.shelf ?? (args.env === undefined ? "./shelf" : `teams/${args.env}`);
  const count = (JSON.parse(await readFile(path.join(ROOT, local.buildDir, "manifest.json"), "utf8")) as { skill_count: number }).skill_count;
  const as = args.env === undefined ? "" : ` as team ${args.env} ([env.${args.env}], ${shelf.private ? "private" : "public"})`;
  log(`\nskillshelf is serving ${shelfName} (${count} skills)${as} at ${shelf.url}. Try:`);
  const auth = shelf.private ? `-H "Authorization: Bearer $(cat ${local.readTokenFile})" ` : "";
  for (const p of ["/.well-known/agent-skills/index.json", "/skills/index.json", "/skills/code-review/SKILL.md", "/v1/shelf"])
    log(`  curl ${auth}${shelf.url}${p}`);
  if (shelf.private) {
    log(`\nThe shelf is private: reads need the local read token ${shelf.readToken}`);
    log(`(kept in ${local.readTokenFile}; its SHA-256 is in READ_TOKEN_SHA256 of ${local.devVarsFile}). Without it every read is 401.`);
  } else {
    log(`  npx skills add ${shelf.url} --list`);
  }
  const tokenEnv = shelf.private ? `SKILLSHELF_READ_TOKEN=$(cat ${local.readTokenFile}) ` : "";
  log(
    `\nSigned with a throwaway key (${local.signingKeyFile}; the Worker lists its public half as ${LOCAL_SIGNING_KEY_ID}). Check every signature:\n` +
      `  ${tokenEnv}npx skillshelf verify ${shelf.url} --key-id ${LOCAL_SIGNING_KEY_ID} --public-key ${shelf.signingPublicKey}${shelf.private ? " --token-env SKILLSHELF_READ_TOKEN" : ""}`,
  );
  const flags = [
    args.port === undefined ? "" : `--port ${args.port}`,
    args.env === undefined ? "" : `--env ${args.env}`,
    args.shelf === undefined ? "" : `--shelf ${args.shelf}`,
  ]
    .filter(Boolean)
    .join(" ");
  log(
    `\nPublish again after editing ${shelfName}: npm start${flags ? ` -- ${flags}` : ""} (or: npx skillshelf build ${shelfName} --out ${local.buildDir} --sign-key ${local.signingKeyFile} --key-id ${LOCAL_SIGNING_KEY_ID} --origin ${shelf.url} && SKILLSHELF_PUBLISH_TOKEN=$(cat ${local.publishTokenFile}) npx skillshelf publish --url ${shelf.url} --dir ${local.buildDir})`,
  );
  log("Press Ctrl+C to stop.");
  // wrangler dying on its own ends npm start too, loudly: a shelf that stopped answering is not "serving".
  const end = await shelf.exited!;
  if (stopping) return 0;
  process.stderr.write(`npm start: wrangler dev stopped on its own (exit ${end.code}); the shelf is no longer served:\n${end.output.slice(-2000)}\n`);
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof CliError) {
        process.stderr.write(`npm start: ${error.message}\n`);
        process.exit(error.exitCode);
      }
      process.stderr.write(`npm start: internal error (a bug, please report it):\n${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(70);
    },
  );
}
