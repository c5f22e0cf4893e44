// The real Claude Code (npm @anthropic-ai/claude-code, pinned in package.json) against a shelf's
// plugin marketplace (src/worker/views/claude): `claude plugin marketplace add <shelf>/.claude-plugin/marketplace.json`
// and `claude plugin install <skill>@<marketplace>` install the skill's files byte-identical; after
// a publish, `claude plugin marketplace update` and `claude plugin update` bring the new bytes; a
// private shelf's capability URL works the same way and an anonymous marketplace read gets 401.
//
// Claude Code takes archive URLs only over https and never at a loopback name, so the Worker runs
// under `wrangler dev --local-protocol https` with a self-signed certificate this test makes with
// openssl, at a test host name mapped to 127.0.0.1 by an /etc/hosts line the test adds and removes
// (it must run as root; nothing leaves loopback). Claude Code trusts the certificate through
// NODE_EXTRA_CA_CERTS; this process through tls.setDefaultCACertificates. Every claude run has
// its own scratch HOME, DISABLE_TELEMETRY=1 and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { marketplaceName, MARKETPLACE_PATH } from "../../src/core/api/claude-marketplace.ts";
import { freeLoopbackPort, startShelf, type RunningShelf } from "../../scripts/start.ts";
import { runBounded, type BoundedRun } from "./bounded-child.ts";
import { readTree, writeVersionedShelf } from "./clawhub.ts";
import { compareTrees } from "./trees.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLAUDE = path.join(ROOT, "node_modules", ".bin", "claude");
const CLI_TIMEOUT_MS = 90_000;
const HOSTS = "/etc/hosts";
const SKILL = "hello-shelf";

/** What a check found. */
export interface ClaudeCheck {
  problems: string[];
  output: string;
}

/** A test host name on loopback (an /etc/hosts line) with a certificate for it; undo() removes the line. */
interface TestHost {
  hostname: string;
  keyPath: string;
  certPath: string;
  undo(): Promise<void>;
}

/** Makes a self-signed certificate for a fresh `*.test` name and maps the name to 127.0.0.1. */
async function testHost(dir: string): Promise<TestHost> {
  const hostname = `shelf-${randomBytes(4).toString("hex")}.skillshelf.test`;
  const keyPath = path.join(dir, "key.pem");
  const certPath = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${hostname}`,
      "-addext",
      `subjectAltName=DNS:${hostname}`,
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stdio: "ignore" },
  );
  const line = `127.0.0.1 ${hostname} # skillshelf interop (test/interop/claude-code.ts)`;
  const before = await readFile(HOSTS, "utf8");
  await writeFile(HOSTS, `${before}${before.endsWith("\n") ? "" : "\n"}${line}\n`);
  return {
    hostname,
    keyPath,
    certPath,
    async undo() {
      const now = await readFile(HOSTS, "utf8");
      await writeFile(
        HOSTS,
        now
          .split("\n")
          .filter((l) => l !== line)
          .join("\n"),
      );
    },
  };
}

/** One Claude Code user: a scratch HOME. */
class ClaudeUser {
  readonly home: string;
  readonly log: string[] = [];
  readonly #ca: string;
  constructor(home: string, ca: string) {
    this.home = home;
    this.#ca = ca;
  }
  async run(...args: string[]): Promise<BoundedRun> {
    const result = await runBounded(CLAUDE, args, {
      cwd: this.home,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: this.home,
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        NODE_EXTRA_CA_CERTS: this.#ca,
      },
      timeoutMs: CLI_TIMEOUT_MS,
    });
    this.log.push(`$ claude ${args.join(" ")}  [exit ${result.code}]\n${result.output.trim()}`);
    return result;
  }
  /** The installed plugin's folder, from Claude Code's own record of installs. */
  async installPath(plugin: string): Promise<string | null> {
    const file = path.join(this.home, ".claude", "plugins", "installed_plugins.json");
    const record = JSON.parse(await readFile(file, "utf8").catch(() => "{}")) as { plugins?: Record<string, { installPath: string }[]> };
    return record.plugins?.[plugin]?.[0]?.installPath ?? null;
  }
}

function expect(problems: string[], what: string, run: BoundedRun): void {
  if (run.code !== 0) problems.push(`${what} exited ${run.code}`);
}

/** Checks the installed plugin's skill files against `want`. */
async function checkInstalled(user: ClaudeUser, plugin: string, want: Map<string, Buffer>, problems: string[]): Promise<void> {
  const at = await user.installPath(plugin);
  if (at === null) {
    problems.push(`installed_plugins.json has no ${plugin}`);
    return;
  }
  problems.push(...compareTrees(`${plugin}:skills/${SKILL}`, want, await readTree(path.join(at, "skills", SKILL))));
}

/**
 * hello-shelf 1.0.0 served over https at a test host: marketplace add and install (byte-identical);
 * 1.1.0 published over the same state and port: marketplace update and plugin update bring the new
 * bytes; then the same state as a private shelf: an anonymous marketplace read is a 401 and the
 * capability URL installs.
 * @example const result = await claudeMarketplaceChecks(work, attest)
 */
export async function claudeMarketplaceChecks(work: string, attest: (dir: string) => Promise<void>): Promise<ClaudeCheck> {
  const problems: string[] = [];
  const dir = await mkdtemp(path.join(tmpdir(), "skillshelf-claude-"));
  const host = await testHost(dir);
  const ca = await readFile(host.certPath, "utf8");
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), ca]);
  const folder = path.join(work, "claude-shelf");
  const state = path.join(work, "claude-state");
  const port = await freeLoopbackPort();
  const https = { keyPath: host.keyPath, certPath: host.certPath, hostname: host.hostname };
  const start = (vars: Record<string, string> = {}) =>
    startShelf({ shelfDir: folder, persistTo: state, buildDir: path.join(state, "build"), port, https, vars });
  const user = new ClaudeUser(path.join(dir, "home"), host.certPath);
  const outsider = new ClaudeUser(path.join(dir, "home-capability"), host.certPath);
  await mkdir(user.home, { recursive: true });
  await mkdir(outsider.home, { recursive: true });
  const name = marketplaceName(host.hostname);
  const plugin = `${SKILL}@${name}`;
  let shelf: RunningShelf | undefined;
  try {
    const v100 = await writeVersionedShelf(folder, "1.0.0", attest);
    shelf = await start();
    const marketplace = `${shelf.url}${MARKETPLACE_PATH}`;
    expect(problems, "claude plugin marketplace add", await user.run("plugin", "marketplace", "add", marketplace));
    expect(problems, `claude plugin install ${plugin}`, await user.run("plugin", "install", plugin));
    await checkInstalled(user, plugin, v100, problems);
    await shelf.stop();

    const v110 = await writeVersionedShelf(folder, "1.1.0", attest);
    shelf = await start();
    expect(problems, "claude plugin marketplace update", await user.run("plugin", "marketplace", "update", name));
    const update = await user.run("plugin", "update", plugin);
    expect(problems, `claude plugin update ${plugin}`, update);
    if (!/1\.1\.0/.test(update.output)) problems.push(`claude plugin update did not name 1.1.0: ${update.output.trim().slice(0, 300)}`);
    await checkInstalled(user, plugin, v110, problems);
    await shelf.stop();

    const token = `sk_claude_${randomBytes(16).toString("hex")}`;
    shelf = await start({ SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: createHash("sha256").update(token).digest("hex") });
    const anonymous = await fetch(marketplace);
    if (anonymous.status !== 401) problems.push(`an anonymous read of the private marketplace answered ${anonymous.status}, expected 401`);
    const capability = `${shelf.url}/c/${token}${MARKETPLACE_PATH}`;
    expect(problems, "claude plugin marketplace add <capability URL>", await outsider.run("plugin", "marketplace", "add", capability));
    expect(problems, `claude plugin install ${plugin} (capability URL)`, await outsider.run("plugin", "install", plugin));
    await checkInstalled(outsider, plugin, v110, problems);
  } catch (error) {
    problems.push(`${error instanceof Error ? error.message : error}`);
  } finally {
    await shelf?.stop();
    await host.undo();
    await rm(dir, { recursive: true, force: true });
  }
  return { problems, output: problems.length || process.env.SKILLSHELF_INTEROP_VERBOSE ? [...user.log, ...outsider.log].join("\n") : "" };
}
