// The installable CLI (scripts/build-cli.ts): the bundle `npm run build:cli` writes runs on the machine's
// Node 20 exactly as the TypeScript sources run on the pinned Node 24 (every command's --help, and the
// commands that read a shelf, on the curated shelf), and `npm pack` ships only the launcher and the bundle.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgents } from "../../scripts/build-agents.ts";
import { buildCli, CLI_BUNDLE } from "../../scripts/build-cli.ts";
import { buildWorker } from "../../scripts/build-worker.ts";
import { runInProcess } from "../cli/run-in-process.ts";

const BUNDLE = path.resolve(CLI_BUNDLE);
const LAUNCHER = path.resolve("bin/skillshelf.js");
/** The machine's own Node, outside npm's PATH (where the pinned Node 24 comes first). */
const SYSTEM_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p));
const SYSTEM_VERSION = SYSTEM_NODE ? execFileSync(SYSTEM_NODE, ["--version"], { encoding: "utf8" }).trim() : undefined;
const out = mkdtempSync(path.join(tmpdir(), "skillshelf-bundle-"));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(node: string, script: string, args: string[]): Run {
  const r = spawnSync(node, [script, ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, CI: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What the sources print for a command line: the bin's own dispatch, in this process (test/cli/run-in-process.ts). */
async function sources(args: string[]): Promise<Run> {
  const { code, stdout, stderr } = await runInProcess(args);
  return { code, stdout, stderr };
}

/** The CLI's commands, as its own help lists them (so a new command is covered without editing this test). */
async function commands(): Promise<string[]> {
  const help = (await sources(["--help"])).stdout;
  const names = [...help.matchAll(/^ {2}skillshelf ([a-z-]+)/gm)].map((m) => m[1]!);
  expect(names.length).toBeGreaterThan(10);
  return names;
}

/** What `npm run build:cli` reported, built once for the whole file. */
let cliBuild: Awaited<ReturnType<typeof buildCli>>;

beforeAll(async () => {
  // The tarball also ships the skillshelf/agents and skillshelf/worker exports, which prepack builds.
  [cliBuild] = await Promise.all([buildCli(), buildAgents(), buildWorker()]);
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("npm run build:cli", () => {
  it("writes one executable ESM file whose only imports are Node's and package.json's dependencies", async () => {
    const { outfile, packages } = cliBuild;
    expect(outfile).toBe(BUNDLE);
    expect(readFileSync(BUNDLE, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> };
    for (const name of packages) expect(Object.keys(pkg.dependencies)).toContain(name);
  });

  it("makes a tarball of the launcher, the bundle, its build worker, the agents and worker exports and the curated shelf only (npm pack --dry-run)", () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    ) as {
      files: { path: string }[];
    }[];
    const files = packed[0]!.files.map((f) => f.path).sort();
    expect(files.filter((f) => !f.startsWith("shelf/"))).toEqual([
      "README.md",
      "bin/skillshelf.js",
      "dist/agents.d.ts",
      "dist/agents.mjs",
      "dist/skill-objects-worker.mjs",
      "dist/skillshelf.mjs",
      "dist/worker.d.ts",
      "dist/worker.mjs",
      "package.json",
    ]);
    // The curated shelf, whole (`seed --from curated`): every file git tracks under shelf/.
    const tracked = execFileSync("git", ["ls-files", "shelf"], { encoding: "utf8" }).trim().split("\n").sort();
    expect(files.filter((f) => f.startsWith("shelf/"))).toEqual(tracked);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { bin: Record<string, string>; engines: { node: string } };
    expect(pkg.bin).toEqual({ skillshelf: "bin/skillshelf.js" });
    expect(pkg.engines.node).toBe(">=20.0.0");
  });
});

describe.skipIf(!SYSTEM_NODE)(
  `the bundle on the system Node (${SYSTEM_NODE ? `${SYSTEM_NODE} ${SYSTEM_VERSION}` : "skipped: no Node at /usr/bin/node or /usr/local/bin/node"})`,
  () => {
    const system = SYSTEM_NODE!;

    // The bundle runs in a child process on the system Node (what is under test); the sources, for comparison, in this one.
    it("answers --help, --version and every command's --help exactly as the sources do on the pinned Node", async () => {
      for (const args of [["--help"], ["--version"], ...(await commands()).map((name) => [name, "--help"])]) {
        const bundled = run(system, BUNDLE, args);
        expect(bundled.code, `${args.join(" ")}: ${bundled.stderr}`).not.toBe(70);
        expect(bundled.stderr).not.toMatch(/internal error|ERR_|is not a function|is not defined/);
        expect(bundled, args.join(" ")).toEqual(await sources(args));
      }
    }, 240_000);

    it("validates, hashes, inspects, outlines and catalogs the curated shelf as the sources do", async () => {
      const cases = [
        ["validate", "shelf"],
        ["validate", "shelf", "--json"],
        ["hash", "shelf/skills/code-review"],
        ["inspect", "shelf/skills/code-review", "--json"],
        ["outline", "shelf/skills/code-review"],
        ["outline", "shelf/skills/code-review", "--json"],
        ["catalog", "shelf"],
        ["catalog", "shelf", "--format", "markdown"],
      ];
      for (const args of cases) {
        const bundled = run(system, BUNDLE, args);
        expect(bundled.code, `${args.join(" ")}: ${bundled.stderr}`).toBe(0);
        expect(bundled, args.join(" ")).toEqual(await sources(args));
      }
    }, 240_000);

    it("builds the curated shelf into the same generation, byte for byte", async () => {
      const bundled = run(system, BUNDLE, ["build", "shelf", "--out", path.join(out, "bundled"), "--json"]);
      const source = await sources(["build", "shelf", "--out", path.join(out, "source"), "--json"]);
      expect(bundled.code, bundled.stderr).toBe(0);
      const generation = (r: Run) => (JSON.parse(r.stdout) as { generation: string }).generation;
      expect(generation(bundled)).toMatch(/^[0-9a-f]{64}$/);
      expect(generation(bundled)).toBe(generation(source));
      const manifest = (dir: string) => readFileSync(path.join(out, dir, "manifest.json"));
      expect(manifest("bundled").equals(manifest("source"))).toBe(true);
    }, 120_000);

    it("builds on worker threads with the bundled worker, and stops with a message (not a hang, not exit 0) when the worker is missing", () => {
      const jobs = run(system, BUNDLE, ["build", "shelf", "--out", path.join(out, "jobs2"), "--jobs", "2", "--json"]);
      expect(jobs.code, jobs.stderr).toBe(0);
      expect((JSON.parse(jobs.stdout) as { archived: number }).archived).toBeGreaterThan(0);
      // A broken install: the bundle without skill-objects-worker.mjs beside it (inside dist/, so its imports still resolve).
      const broken = path.resolve("dist", `no-worker-${process.pid}`);
      mkdirSync(broken, { recursive: true });
      try {
        copyFileSync(BUNDLE, path.join(broken, "skillshelf.mjs"));
        const target = path.join(out, "broken");
        const r = run(system, path.join(broken, "skillshelf.mjs"), ["build", "shelf", "--out", target, "--jobs", "2"]);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/a build worker thread (failed|stopped).*--jobs 1/s);
        expect(existsSync(target)).toBe(false);
        expect(readdirSync(out).filter((n) => n.startsWith(".broken."))).toEqual([]);
      } finally {
        rmSync(broken, { recursive: true, force: true });
      }
    }, 120_000);

    // Child processes: the package's bin (bin/skillshelf.js) choosing the bundle or the sources is under test.
    it("runs through the package's bin (bin/skillshelf.js) on the system Node, and on the pinned Node from the sources", async () => {
      const expected = await sources(["hash", "shelf/skills/code-review"]);
      expect(expected.stdout).toMatch(/^[0-9a-f]{64}\n$/);
      expect(run(system, LAUNCHER, ["hash", "shelf/skills/code-review"])).toEqual(expected);
      expect(run(process.execPath, LAUNCHER, ["hash", "shelf/skills/code-review"])).toEqual(expected);
    }, 60_000);
  },
);
