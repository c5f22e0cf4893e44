// A shelf served locally, as `skillshelf dev` (a team's repository) and `npm start` (this one) run it: builds
// the shelf, starts `wrangler dev` on loopback with local R2 and KV from the project's own wrangler.toml,
// creates git-ignored local tokens on first run (their hashes in .dev.vars), publishes the build to the
// Worker it started, and reports success only once the Worker answering is the one it started (a per-run
// nonce that /healthz echoes). The build is signed with a throwaway Ed25519 key kept under the git-ignored
// .skillshelf/ and the Worker is configured with its public key (docs/signing.md). `startShelf()` is what
// tests call too; `stop()` ends what it started.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { parse as parseToml } from "smol-toml";
import { exportPkcs8Pem, generateSigningKey, importPkcs8Pem, type SigningKey, toBase64 } from "../../core/signing/ed25519.ts";
import { AdminClient, type PublishResult, publishGeneration } from "../../core/publish/client.ts";
import { buildShelf } from "./build.ts";
import { CliError, UsageError } from "./cli.ts";
import { buildFolderSource } from "./publish.ts";
import { signBuilt, writeSecretFile } from "./signing.ts";

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

/** The oldest Node that wrangler (and so a local shelf) runs on. */
export const WRANGLER_MIN_NODE = 22;

/** Options for {@link startShelf}. */
export interface StartOptions {
  /** Defaults to {@link DEFAULT_PORT}, or the team's own port with `env`. */
  port?: number;
  /** The shelf folder to build and serve; defaults to <root>/shelf. */
  shelfDir?: string;
  /** Project root: where wrangler.toml, node_modules/wrangler and the local files (.skillshelf/, .dev.vars) are. */
  root: string;
  /** Where wrangler persists local R2 and KV; defaults to <root>/.wrangler/state (.wrangler/env/<env> with `env`). */
  persistTo?: string;
  log?: (line: string) => void;
  /** Extra Worker variables for this run (`wrangler dev --var NAME:VALUE`). */
  vars?: Record<string, string>;
  /** Where the build folder goes; defaults to <root>/.skillshelf/dev/<port> (.skillshelf/env/<env>/dev/<port> with `env`). */
  buildDir?: string;
  /** Forward wrangler's own output (default: only when it fails to start). */
  verbose?: boolean;
  /** A team environment of wrangler.toml ([env.<team>]) to run instead of the top-level configuration. */
  env?: string;
  /** How a user reruns this with other options, for advice in errors (default "npm start --"). */
  rerun?: string;
  /** Publish even when the local shelf serves a generation these local runs did not publish (see {@link startShelf}). */
  force?: boolean;
  /**
   * Serve https (`wrangler dev --local-protocol https`) with this key and certificate, at `hostname`
   * (default 127.0.0.1; it must resolve to loopback): for clients that refuse plain http or
   * loopback names, such as Claude Code's plugin archives. This process must trust the
   * certificate (NODE_EXTRA_CA_CERTS, or tls.setDefaultCACertificates) to publish to it.
   */
  https?: { keyPath: string; certPath: string; hostname?: string };
}

/** A running local shelf. */
export interface RunningShelf {
  url: string;
  port: number;
  /** The generation it serves: the build's, or the one it kept (see `kept`). */
  generation: string;
  skillCount: number;
  /** The build folder it published (one per port). */
  buildDir: string;
  /** The publish, or null when it kept a generation published from elsewhere (without `force`). */
  publish: PublishResult | null;
  /** Why it did not publish: the generation the shelf kept serving, when and how that became current. */
  kept?: { generation: string; seq: number; at: string; action: string };
  /** Stops wrangler and everything it started; safe to call twice. */
  stop(): Promise<void>;
  /** The team environment it runs, if any. */
  env?: string;
  /** The local read token of a private shelf (its SHA-256 is in READ_TOKEN_SHA256 of the dev-vars file). */
  readToken?: string;
  /** Whether reads need a read token (the Worker answered 401 without one). */
  private: boolean;
  /** Whether a private shelf answers capability URLs (/c/<read token>/…; SHELF_CAPABILITY_URLS = "on"). */
  capabilityUrls: boolean;
  /** The throwaway key's public half (standard base64), configured as key {@link LOCAL_SIGNING_KEY_ID}; the origin is `url`. */
  signingPublicKey?: string;
  /** Settles when wrangler exits, with its exit code and the end of its output. */
  exited?: Promise<{ code: number | null; output: string }>;
}

/** Where one environment's local files live, relative to the project root. */
export interface LocalPaths {
  publishTokenFile: string;
  /** Created only for a private shelf. */
  readTokenFile: string;
  /** Each port's build goes in a folder of its own below this one (<buildDir>/<port>). */
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
      readTokenFile: ".skillshelf/read-token",
      buildDir: ".skillshelf/dev",
      persistTo: ".wrangler/state",
      devVarsFile: ".dev.vars",
      signingKeyFile: ".skillshelf/signing-key.pem",
    };
  }
  const dir = `.skillshelf/env/${env}`;
  return {
    publishTokenFile: `${dir}/publish-token`,
    readTokenFile: `${dir}/read-token`,
    buildDir: `${dir}/dev`,
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
  // Below Linux's ephemeral range (32768-60999) first: a port the kernel hands out for `listen(0)`
  // can be handed to another process (another wrangler's inner servers) before ours binds it.
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (await loopbackPortIsFree(port).catch(() => false)) return port;
  }
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

async function busyPortError(port: number, what: string, rerun: string): Promise<BusyPortError> {
  const suggestion = await nextFreePort(port);
  const retry = suggestion === undefined ? "choose a free port with --port N" : `try: ${rerun} --port ${suggestion}`;
  return new BusyPortError(`${what} (another local shelf, or another server, holds it). Stop it, or ${retry}`);
}

/** The project's wrangler.toml as a table, read with a TOML parser (wrangler's own reader needs Node 22 and takes a second). */
async function readWranglerToml(root: string): Promise<Record<string, unknown>> {
  const file = path.join(root, "wrangler.toml");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new UsageError(`no wrangler.toml in ${root}: run this in a shelf's repository (npx skillshelf init <dir> writes one)`);
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`${file} is not valid TOML: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** The environments a parsed wrangler.toml declares ([env.<team>]), in file order. */
function environmentsOf(config: Record<string, unknown>): string[] {
  const env = config.env;
  return typeof env === "object" && env !== null ? Object.keys(env) : [];
}

/** The team environments wrangler.toml declares ([env.<team>]), in file order. */
export async function teamEnvironments(root: string): Promise<string[]> {
  return environmentsOf(await readWranglerToml(root));
}

/** Whether the configuration `env` (or the top level) serves a private shelf: SHELF_VISIBILITY as the Worker will see it (anything but "public" is private). */
async function configuredPrivate(
  config: Record<string, unknown>,
  env: string | undefined,
  devVarsFile: string,
  vars: Record<string, string> = {},
): Promise<boolean> {
  const table = (env === undefined ? config : (config.env as Record<string, Record<string, unknown>>)[env]!) ?? {};
  let visibility = (table.vars as Record<string, unknown> | undefined)?.SHELF_VISIBILITY ?? "public";
  // A line in the dev-vars file overrides the var for local runs.
  const override = (await readFile(devVarsFile, "utf8").catch(() => "")).match(/^SHELF_VISIBILITY=["']?([^"'\n]*)/m);
  if (override) visibility = override[1] ?? "";
  // And a var this run passes (`wrangler dev --var`) overrides both.
  return (vars.SHELF_VISIBILITY ?? visibility) !== "public";
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

/** Checks a team name against wrangler.toml's environments, as a usage error naming the teams there are. */
function checkTeam(teams: readonly string[], team: string, usage: string): void {
  if (!TEAM_NAME.test(team) || !teams.includes(team)) {
    const known = teams.length ? `its teams: ${teams.join(", ")}` : "wrangler.toml declares no team";
    throw new UsageError(`--env ${team}: no [env.${team}] in wrangler.toml (${known}); docs/teams.md shows how to add one\nusage: ${usage}`);
  }
}

/**
 * The generations local runs published to one local state, kept in that state's folder (beside wrangler's
 * own), so a restart knows its own publishes from another publisher's.
 */
const PUBLISHED_FILE = "skillshelf-dev-published.json";
/** How many generations it remembers (the pointer's own history is 100 moves). */
const PUBLISHED_LIMIT = 100;

/** The generations local runs published (oldest first); none when the file is absent or unreadable. */
async function readPublished(file: string): Promise<string[]> {
  try {
    const list = JSON.parse(await readFile(file, "utf8")) as unknown;
    return Array.isArray(list) ? list.filter((g): g is string => typeof g === "string") : [];
  } catch {
    return [];
  }
}

async function writePublished(file: string, generations: string[]): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(generations.slice(-PUBLISHED_LIMIT))}\n`);
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

/** The start of what answers at <url>/healthz, printable, so a refusal shows who holds the port. */
async function healthSnippet(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    const text = (await res.text()).replace(/[^\x20-\x7e]+/g, " ").trim();
    return `${res.status} ${JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text)}`;
  } catch (error) {
    return `no answer now (${(error as Error).message})`;
  }
}

const ADDRESS_IN_USE = /EADDRINUSE|address already in use/i;

async function waitForOurWorker(url: string, port: number, nonce: string, child: ChildProcess, output: () => string, rerun: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (ADDRESS_IN_USE.test(output())) throw await busyPortError(port, `port ${port} was taken while wrangler dev started`, rerun);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new CliError(`wrangler dev exited (${child.exitCode ?? child.signalCode}) before the Worker answered:\n${output().slice(-2000)}`);
    }
    const answer = await probeHealth(url, nonce);
    if (answer === "ours") return;
    if (answer === "other") {
      throw await busyPortError(port, `another server answers at ${url}, not the Worker this run started (its /healthz: ${await healthSnippet(url)})`, rerun);
    }
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

/** Whether /c/<token>/skills/index.json answers (capability URLs on) rather than 404. */
async function answersCapabilityUrl(url: string, token: string): Promise<boolean> {
  const res = await fetch(`${url}/c/${encodeURIComponent(token)}/skills/index.json`, { signal: AbortSignal.timeout(10_000) });
  await res.body?.cancel();
  return res.ok;
}

/**
 * The project's own wrangler (its node_modules), run on this Node (the pinned one under npm), whatever
 * `node` is first on PATH.
 */
function wranglerBin(root: string): string {
  // The project's own node_modules first, as its path (tests and tools find the process by it); then wherever
  // Node resolution finds it (a workspace's hoisted node_modules).
  const own = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  if (existsSync(own)) return own;
  try {
    return path.join(path.dirname(createRequire(path.join(root, "package.json")).resolve("wrangler/package.json")), "bin", "wrangler.js");
  } catch {
    throw new UsageError(`wrangler is not installed in ${root}: run npm install (a shelf's repository lists it in devDependencies)`);
  }
}

/**
 * Builds the shelf, starts wrangler dev on 127.0.0.1:<port> and publishes the build to it, once the
 * Worker answering there is the one it started. A busy port fails at once, suggesting a free one.
 * @example const shelf = await startShelf({ root: ".", port: 8799 }); try { … } finally { await shelf.stop() }
 */
export async function startShelf(options: StartOptions): Promise<RunningShelf> {
  const root = options.root;
  const log = options.log ?? (() => {});
  const env = options.env;
  const rerun = `${options.rerun ?? "npm start --"}${env === undefined ? "" : ` --env ${env}`}`;
  const major = Number(process.versions.node.split(".")[0]);
  if (major < WRANGLER_MIN_NODE)
    throw new UsageError(
      `a local shelf runs wrangler, which needs Node ${WRANGLER_MIN_NODE} or later (this is Node ${process.versions.node}): run it through npm (npm run dev, or npm start here), which uses the Node that package.json pins`,
    );
  // Read once: the environments (a team's port) and the vars (whether the shelf is private).
  const config = await readWranglerToml(root);
  const teams = environmentsOf(config);
  if (env !== undefined) checkTeam(teams, env, `${rerun} [--port N]`);
  const port = options.port ?? (env === undefined ? DEFAULT_PORT : teamPort(teams, env));
  const local = localPaths(env);
  const shelfDir = options.shelfDir ?? path.join(root, "shelf");
  // One build folder per port: two local shelves of one folder never build into each other's (each signs for its own URL).
  const buildDir = options.buildDir ?? path.join(root, local.buildDir, String(port));

  if (!(await stat(shelfDir).catch(() => undefined))?.isDirectory()) {
    const seed = ` (seed it first: npx skillshelf seed --from curated --to ${path.relative(root, shelfDir) || shelfDir}, or create it; docs/teams.md)`;
    throw new UsageError(`no shelf folder at ${shelfDir}${seed}; --shelf <dir> names another`);
  }
  const wrangler = wranglerBin(root);
  const persistTo = options.persistTo ?? path.join(root, local.persistTo);
  if (!(await loopbackPortIsFree(port))) throw await busyPortError(port, `port ${port} on 127.0.0.1 is in use`, rerun);

  const url = options.https ? `https://${options.https.hostname ?? "127.0.0.1"}:${port}` : `http://127.0.0.1:${port}`;
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
  const devVarsFile = path.join(root, local.devVarsFile);
  const readToken = (await configuredPrivate(config, env, devVarsFile, options.vars))
    ? await ensureToken(path.join(root, local.readTokenFile), "sk_local_read_")
    : undefined;
  await writeDevVars(devVarsFile, sha256Hex(token), readToken === undefined ? undefined : sha256Hex(readToken));

  const nonce = randomBytes(16).toString("hex");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo, "--show-interactive-dev-session=false", "--log-level", "warn"];
  if (env !== undefined) args.push("--env", env);
  if (options.https) args.push("--local-protocol", "https", "--https-key-path", options.https.keyPath, "--https-cert-path", options.https.certPath);
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
    await waitForOurWorker(url, port, nonce, child, () => output, rerun);
    log(`wrangler dev is serving ${url}${env === undefined ? "" : ` as [env.${env}]`}`);
    // A restart never moves the pointer away from a generation published from elsewhere (skillshelf publish or
    // rollback against this local shelf) unless told to: it may be newer than this folder.
    const publishedFile = path.join(persistTo, PUBLISHED_FILE);
    const ours = await readPublished(publishedFile);
    const current = await new AdminClient({ url, token }).pointer();
    let publish: PublishResult | null = null;
    let kept: RunningShelf["kept"];
    if (current && current.generation !== built.id && !ours.includes(current.generation) && !options.force) {
      const move = current.history[0];
      kept = { generation: current.generation, seq: current.seq, at: current.published_at, action: move?.action ?? "publish" };
      log(
        `not publishing: ${url} serves generation ${current.generation.slice(0, 12)}… (seq ${current.seq}, made current ${current.published_at} by a ${kept.action} that did not come from ${rerun.replace(/ --.*$/, "")} of this folder, e.g. skillshelf publish). ` +
          `This folder's build ${built.id.slice(0, 12)}… would replace it, so the shelf keeps serving ${current.generation.slice(0, 12)}…; rerun with --force to publish this folder over it`,
      );
    } else {
      publish = await publishGeneration(await buildFolderSource(buildDir), { url, token, onLog: log });
      await writePublished(publishedFile, [...ours.filter((g) => g !== built.id), built.id]);
      log(
        publish.alreadyCurrent
          ? `generation ${publish.generation} is already current; nothing uploaded`
          : `published ${publish.generation}: uploaded ${publish.uploaded.blob} blob(s), ${publish.uploaded.record} record(s), ${publish.uploaded.shard} shard(s), ${publish.bytesUploaded} bytes`,
      );
    }
    // Success is reported only while the Worker this run started still holds the port.
    if ((await probeHealth(url, nonce)) !== "ours") throw new CliError(`the Worker this run started no longer answers at ${url}:\n${output.slice(-2000)}`);
    const shelf: RunningShelf = {
      url,
      port,
      generation: kept?.generation ?? built.id,
      skillCount: built.manifest.skill_count,
      buildDir,
      publish,
      stop,
      exited,
      signingPublicKey: toBase64(signingKey.publicKey),
      private: await refusesAnonymousReads(url),
      capabilityUrls: readToken !== undefined && (await answersCapabilityUrl(url, readToken)),
    };
    if (kept !== undefined) shelf.kept = kept;
    if (env !== undefined) shelf.env = env;
    if (readToken !== undefined) shelf.readToken = readToken;
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
export async function startShelfOnFreePort(options: Omit<StartOptions, "port">, attempts = 3): Promise<RunningShelf> {
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
export function killAllStarted(): void {
  for (const child of live) killTree(child, "SIGKILL");
}
