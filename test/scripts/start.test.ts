// `npm start` (scripts/start.ts) as a user runs it, in child processes on loopback ports only: its arguments
// (help, options npm swallowed, unknown options) are usage errors, a busy port fails at once without
// publishing anywhere, and a team environment runs privately with a printed read token. Every process a
// test starts is stopped, and each run is bounded in time.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../../scripts/start.ts";

const REPO = path.resolve(".");
const started = new Set<ChildProcess>();
const servers = new Set<Server>();
const roots: string[] = [];

/**
 * A project root of its own, so the test's tokens, dev vars and state never touch the checkout: a copy
 * of start.ts and wrangler.toml, the sources and node_modules linked in, and a two-skill team shelf.
 */
function projectRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), "skillshelf-start-"));
  roots.push(root);
  mkdirSync(path.join(root, "scripts"));
  cpSync(path.join(REPO, "scripts/start.ts"), path.join(root, "scripts/start.ts"));
  cpSync(path.join(REPO, "wrangler.toml"), path.join(root, "wrangler.toml"));
  symlinkSync(path.join(REPO, "src"), path.join(root, "src"));
  symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"));
  for (const skill of ["code-review", "commit-messages"]) {
    cpSync(path.join(REPO, "shelf/skills", skill), path.join(root, "teams/acme/skills", skill), { recursive: true });
    cpSync(path.join(REPO, "shelf/skills", skill), path.join(root, "shelf/skills", skill), { recursive: true });
  }
  return root;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `node <root>/scripts/start.ts <args>` in its own process group (so cleanup reaches wrangler and workerd). */
function startScript(root: string, args: string[], env: Record<string, string> = {}) {
  // No npm_* variables from the test runner's own npm: each test sets the ones it means.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")));
  const child = spawn(process.execPath, [path.join(root, "scripts/start.ts"), ...args], {
    cwd: root,
    detached: true,
    env: { ...base, WRANGLER_SEND_METRICS: "false", DO_NOT_TRACK: "1", ...env },
  });
  started.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { child, done, output: () => ({ stdout, stderr }) };
}

/**
 * Ends a start.ts: SIGTERM first, which it handles by stopping the wrangler it started (in a process group
 * of its own), then SIGKILL for whatever is left of its group.
 */
function terminate(child: ChildProcess): void {
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  kill("SIGTERM");
  setTimeout(() => kill("SIGKILL"), 5000).unref();
}

/** Runs start.ts to its end, terminated (and so failed) after `ms`. */
async function runScript(root: string, args: string[], env: Record<string, string> = {}, ms = 30_000): Promise<Run> {
  const { child, done } = startScript(root, args, env);
  const timer = setTimeout(() => terminate(child), ms);
  const run = await done;
  clearTimeout(timer);
  return run;
}

/**
 * npm start with `args` on a free port, as startShelfOnFreePort does: on another port when the one
 * chosen turns out held by another server (the full suite starts many wranglers at once, and a port
 * free when chosen can be taken before wrangler binds it; every such refusal says who holds it).
 * Resolves once the shelf says "Press Ctrl+C", or npm start has stopped, or 150 s have passed.
 */
async function startOnFreePort(root: string, args: string[]): Promise<{ port: number; started: ReturnType<typeof startScript> }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    const started = startScript(root, [...args, "--port", String(port)]);
    const { child, output } = started;
    const deadline = Date.now() + 150_000;
    while (!output().stdout.includes("Press Ctrl+C") && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    if (attempt === 3 || !output().stderr.includes("(another local shelf, or another server, holds it)")) return { port, started };
    console.warn(`npm start ${args.join(" ")}, attempt ${attempt}: ${output().stderr.trim()}`);
    await started.done;
  }
}

/** A stand-in for "another shelf" on a port: answers 200 {"ok":true} to everything and records each request. */
async function fakeWorker(port: number): Promise<string[]> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return seen;
}

afterEach(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers.clear();
});

afterAll(async () => {
  const running = [...started].filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) terminate(child);
  await Promise.all(running.map((child) => new Promise((resolve) => child.once("close", resolve))));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
}, 30_000);

/** No run of npm start may end in a stack trace: user mistakes are usage errors. */
function expectNoStackTrace(run: Run): void {
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(run.code).not.toBe(70);
}

describe("npm start's arguments", () => {
  const root = projectRoot();

  it("--help prints the usage, every option and an example, and exits 0", async () => {
    const run = await runScript(root, ["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm start -- \[--port N\] \[--env <name>\]/);
    for (const option of ["--port N", "--env <name>", "--shelf <dir>", "--verbose", "--help"]) expect(run.stdout).toContain(option);
    expect(run.stdout).toMatch(/examples:\n {2}npm start\n {2}npm start -- --port 8811\n/);
    expect(run.stderr).toBe("");
  });

  it("names the command to type when npm kept --port for itself (npm start --port 8811)", async () => {
    // What npm 11 passes for `npm start --port 8811`: npm_config_port=true, and 8811 as an argument.
    const run = await runScript(root, ["8811"], { npm_lifecycle_event: "start", npm_config_port: "true" });
    expectNoStackTrace(run);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('npm kept --port for itself: options for npm start go after "--". Type: npm start -- --port 8811');
    expect(run.stderr).toMatch(/^usage: npm start -- /m);
  });

  it("does the same for npm start --port=8811 and --env acme before the --", async () => {
    const eq = await runScript(root, [], { npm_lifecycle_event: "start", npm_config_port: "8811" });
    expect(eq.code).toBe(2);
    expect(eq.stderr).toContain("Type: npm start -- --port 8811");
    const both = await runScript(root, ["acme", "--verbose"], { npm_lifecycle_event: "start", npm_config_env: "true" });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("Type: npm start -- --env acme");
  });

  it("refuses unknown options, stray arguments and bad values as usage errors (exit 2) with the usage line", async () => {
    const cases: [string[], RegExp][] = [
      [["--bogus"], /Unknown option '--bogus'/],
      [["8811"], /Unexpected argument '8811'/],
      [["--port"], /--port/],
      [["--port", "http"], /--port must be a port number \(1-65535\), not http/],
      [["--port", "70000"], /not 70000/],
      [["--env", "../etc"], /--env must name an environment of wrangler.toml/],
      [["--env", "nosuch"], /no \[env\.nosuch\] in wrangler\.toml \(its teams: acme\)/],
      [["--shelf", "missing-folder"], /no shelf folder at .*missing-folder/],
    ];
    // Child processes (the script's exit status and stderr are under test), four at a time: each is a Node start-up.
    const runs: Run[] = [];
    for (let i = 0; i < cases.length; i += 4) runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => runScript(root, args)))));
    for (const [i, [args, message]] of cases.entries()) {
      const run = runs[i]!;
      expectNoStackTrace(run);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toMatch(message);
      expect(run.stderr, args.join(" ")).toMatch(/^usage: npm start -- |--shelf <dir> names another/m);
    }
  }, 120_000);
});

describe("npm start on a busy port", () => {
  it("fails at once, suggests a free --port and publishes nothing to whatever holds the port", async () => {
    const root = projectRoot();
    const port = await freeLoopbackPort();
    const seen = await fakeWorker(port);
    const started = Date.now();
    const run = await runScript(root, ["--port", String(port)]);
    expectNoStackTrace(run);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^npm start: port ${port} on 127\\.0\\.0\\.1 is in use .*try: npm start -- --port (\\d+)\\n$`));
    const suggested = Number(/--port (\d+)\n$/.exec(run.stderr)![1]);
    expect(suggested).toBeGreaterThan(port);
    expect(run.stdout).not.toMatch(/serving|Press Ctrl\+C|published/);
    expect(seen).toEqual([]); // not even a health check, let alone a publish
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});

describe("npm start when wrangler stops on its own", () => {
  it("stops serving loudly: the end of wrangler's output and exit 1, and nothing of it left running", async () => {
    const root = projectRoot();
    const {
      port,
      started: { done, output },
    } = await startOnFreePort(root, []);
    expect(output().stdout, output().stderr).toContain(`skillshelf is serving shelf (2 skills, public) at http://127.0.0.1:${port}. Try:`);
    // The wrangler this npm start launched (its bin, under the test's own root), killed from outside.
    const wrangler = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
      .split("\n")
      .find((line) => line.includes(`${root}/node_modules/wrangler/bin/wrangler.js dev`));
    expect(wrangler).toBeDefined();
    process.kill(Number(wrangler!.trim().split(" ")[0]), "SIGKILL");
    const end = await done;
    expect(end.code).toBe(1);
    expect(end.stderr).toMatch(/^npm start: wrangler dev stopped on its own \(exit null\); the shelf is no longer served:/m);
    expectNoStackTrace(end);
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  }, 240_000);
});

describe("npm start -- --env acme", () => {
  it("runs the team environment privately, prints its read token, keeps the dev vars it did not write, and stops cleanly", async () => {
    const root = projectRoot();
    // Someone's own lines in .dev.vars.acme: another secret and another read token's hash, both kept.
    const theirs = "sk_someone_else_0123456789";
    const theirHash = createHash("sha256").update(theirs).digest("hex");
    writeFileSync(path.join(root, ".dev.vars.acme"), `OTHER_SECRET=kept\nREAD_TOKEN_SHA256=${theirHash}\n`);
    const {
      port,
      started: { child, done, output },
    } = await startOnFreePort(root, ["--env", "acme"]);
    const { stdout, stderr } = output();
    expect(stdout, stderr).toContain("Press Ctrl+C to stop.");
    try {
      const url = `http://127.0.0.1:${port}`;
      expect(stdout).toContain(`skillshelf is serving teams/acme (2 skills, private) as [env.acme] at ${url}. Try:`);
      const token = readFileSync(path.join(root, ".skillshelf/env/acme/read-token"), "utf8").trim();
      expect(token).toMatch(/^sk_local_read_[0-9a-f]{64}$/);
      expect(stdout).toContain(`reads need the local read token ${token}`);
      expect(stdout).toContain(`curl -H "Authorization: Bearer $(cat .skillshelf/env/acme/read-token)" ${url}/skills/index.json`);

      // /healthz answers this run's nonce (and needs no token): how npm start knew the Worker was its own.
      expect(((await (await fetch(`${url}/healthz`)).json()) as { run?: string }).run).toMatch(/^[0-9a-f]{32}$/);
      expect((await fetch(`${url}/skills/index.json`)).status).toBe(401);
      for (const bearer of [token, theirs]) {
        const res = await fetch(`${url}/skills/index.json`, { headers: { Authorization: `Bearer ${bearer}` } });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ skills: ["code-review", "commit-messages"] });
      }
      const devVars = readFileSync(path.join(root, ".dev.vars.acme"), "utf8");
      expect(devVars).toContain("OTHER_SECRET=kept\n");
      expect(devVars).toContain(`READ_TOKEN_SHA256=${theirHash},${createHash("sha256").update(token).digest("hex")}\n`);
      expect(devVars).toMatch(/^PUBLISH_TOKEN_SHA256=[0-9a-f]{64}$/m);
      // The pages' sign-in sessions get a random key of their own (never derived from a token hash).
      expect(devVars).toMatch(/^SHELF_SESSION_KEY=[0-9a-f]{64}$/m);
      // Its own state, build and publish token: nothing of the top-level shelf's.
      expect(readFileSync(path.join(root, ".skillshelf/env/acme/publish-token"), "utf8")).toMatch(/^sk_local_[0-9a-f]{64}\n$/);
      expect(() => readFileSync(path.join(root, ".skillshelf/publish-token"))).toThrow();
      expect(() => readFileSync(path.join(root, ".dev.vars"))).toThrow();
    } finally {
      process.kill(child.pid!, "SIGINT");
    }
    const end = await done;
    expect(end.code).toBe(0);
    // Everything it started has gone: the port is free again.
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    expect(free).toBe(true);
  }, 240_000);
});
