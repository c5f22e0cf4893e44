// `skillshelf build` and `publish` against `sha256sum` over the same files (issue 18, item 5). The
// CLI is measured as users install it: scripts/build-cli.ts's bundle (skillshelf.mjs and its worker
// beside it, in a folder of the run's own) run as a child process on the pinned Node, on
// bench/shelf-gen.ts's shelf (1,000 skills, ~54 MB; 200 in quick mode). Each row is paired with a
// `sha256sum` over the shelf's files run back to back with it (the order flips every round, page
// cache warm), and reported as the median over rounds of (row − `skillshelf --version`) ÷ sha256sum,
// so the CLI's start-up is not counted. Every build's generation id must be the same for the same
// files (fresh, --jobs 1, unchanged, one skill changed and changed back; --verify after a change
// finds the incremental build's id): a difference fails the bench. Then a publish to a real Worker
// on loopback (scripts/start.ts, as `npm start` runs it): requests and request bytes of the first
// publish and of one after a one-file change.
// Run: npm run bench -- --only build (add --quick for a short run).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildFolderSource } from "../src/cli/lib/publish.ts";
import { publishGeneration, type PublishResult } from "../src/core/publish/client.ts";
import { buildCli } from "../scripts/build-cli.ts";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "../scripts/start.ts";
import { median, ms, QUICK, reportSection, table } from "./report.ts";
import { benchSkillName, writeBenchShelf, writeBenchSkill } from "./shelf-gen.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SKILLS = QUICK ? 200 : 1_000;
const ROUNDS = QUICK ? 2 : 5;
// The bundle goes to a folder of this run's own (beside dist/skillshelf.mjs, so its dependencies
// resolve from node_modules): a rebuild of dist/ by someone else mid-run would change the tool
// fingerprint in the build cache and turn every "unchanged" rebuild into a fresh one.
const CLI_DIR = path.join(ROOT, `dist/bench-build-${process.pid}`);
const CLI = path.join(CLI_DIR, "skillshelf.mjs");
const TIME = "/usr/bin/time";
const HAS_TIME = existsSync(TIME);
/** Files are dated this far back: the build cache does not trust a file modified in the last 2 s. */
const BACKDATE_S = 3600;
/** Stop starting rounds after this long, so a slow machine still ends inside the runner's budget. */
const ROUNDS_BUDGET_MS = (QUICK ? 35 : 240) * 1000;

/** One measured child process: wall time around spawnSync, user+sys CPU and peak RSS from /usr/bin/time. */
interface Sample {
  wallMs: number;
  cpuMs: number;
  maxRssKiB: number;
  stdout: string;
}

/** What `skillshelf build --json` prints (the fields the bench checks). */
interface BuildJson {
  ok: boolean;
  generation: string;
  skills: number;
  files: number;
  bytes: number;
  reused: number;
  archived: number;
  written: number;
  written_bytes: number;
}

type RowId = "version" | "fresh" | "fresh-j1" | "unchanged" | "unchanged-j1" | "one-skill" | "verify";
interface Row {
  id: RowId;
  label: string;
  /** The target on (row − version) ÷ sha256sum wall time, if the issue sets one. */
  target?: number;
  /** A slow row for contrast only, measured in the first {@link CONTRAST_ROUNDS} rounds to keep the bench short. */
  contrast?: boolean;
}
const ROWS: Row[] = [
  { id: "version", label: "`skillshelf --version` (start-up)" },
  { id: "fresh", label: "fresh build (new --out, default --jobs)", target: 20 },
  { id: "fresh-j1", label: "fresh build, --jobs 1", contrast: true },
  { id: "unchanged", label: "unchanged rebuild (same --out)", target: 3 },
  { id: "unchanged-j1", label: "unchanged rebuild, --jobs 1" },
  { id: "one-skill", label: `one skill of ${SKILLS.toLocaleString("en-US")} changed`, target: 4 },
  { id: "verify", label: "build --verify (rereads everything)", contrast: true },
];
/** Rounds that also measure the slow contrast rows (a fresh build on one thread, --verify). */
const CONTRAST_ROUNDS = QUICK ? 1 : 3;
/** Per row, per round: the row's sample, its paired sha256sum, and the round's index. */
type Pair = { row: Sample; sha: Sample; build?: BuildJson; round: number };

const tmp = mkdtempSync(path.join(tmpdir(), "skillshelf-build-bench-"));
const shelfDir = path.join(tmp, "shelf");
const skillsDir = path.join(shelfDir, "skills");
const stableDir = path.join(tmp, "build");
const started = performance.now();
const loadAtStart = loadavg();
let running: RunningShelf | undefined;
const cleanUp = () => {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(CLI_DIR, { recursive: true, force: true });
};
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}
try {
  await main();
} finally {
  await running?.stop().catch(() => {});
  running = undefined;
  cleanUp();
}

async function main(): Promise<void> {
  console.log(`build: ${SKILLS} skills, ${ROUNDS} interleaved rounds; ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadText(loadAtStart)}`);
  await buildCli({ outfile: CLI });
  const shelf = writeBenchShelf(shelfDir, SKILLS);
  backdate(skillsDir);
  console.log(
    `  shelf: ${shelf.files.length} files, ${(shelf.bytes / 1e6).toFixed(1)} MB; CLI bundled (scripts/build-cli.ts) into ${path.relative(ROOT, CLI_DIR)}`,
  );

  // Warm the page cache. The first round's fresh build is the folder the rebuild rows reuse, and
  // its generation id the one every build of these files must give.
  sha256sum();
  let baseId = "";
  const generations: { what: string; id: string }[] = [];
  const checkGeneration = (what: string, id: string) => {
    generations.push({ what, id });
    baseId ||= id;
    if (id !== baseId) throw new NondeterminismError(generations);
  };

  const pairs = new Map<RowId, Pair[]>(ROWS.map((r) => [r.id, []]));
  const roundsStarted = performance.now();
  let rounds = 0;
  let verifiedChanges = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round >= 2 && performance.now() - roundsStarted > ROUNDS_BUDGET_MS) {
      console.log(`  stopping after ${round} rounds (time budget)`);
      break;
    }
    const flip = round % 2 === 1;
    const pair = (id: RowId, measure: () => Sample & { build?: BuildJson }) => {
      let sha: Sample;
      let row: Sample & { build?: BuildJson };
      if (flip) {
        row = measure();
        sha = sha256sum();
      } else {
        sha = sha256sum();
        row = measure();
      }
      pairs.get(id)!.push({ row, sha, build: row.build, round });
      return row;
    };
    pair("version", () => measureCli(["--version"]));

    const freshDir = round === 0 ? stableDir : path.join(tmp, `fresh-${round}`);
    const fresh = pair("fresh", () => build(["--out", freshDir]));
    checkGeneration(`fresh build, round ${round + 1}`, fresh.build!.generation);
    if (round === 0) console.log(`  generation ${baseId}`);
    else rmSync(freshDir, { recursive: true, force: true });

    const contrast = round < CONTRAST_ROUNDS;
    if (contrast) {
      const oneJobDir = path.join(tmp, `fresh-j1-${round}`);
      const oneJob = pair("fresh-j1", () => build(["--out", oneJobDir, "--jobs", "1"]));
      checkGeneration(`fresh build --jobs 1, round ${round + 1}`, oneJob.build!.generation);
      rmSync(oneJobDir, { recursive: true, force: true });
    }

    const unchanged = pair("unchanged", () => build(["--out", stableDir]));
    expectCounts("unchanged rebuild", unchanged.build!, SKILLS, 0);
    checkGeneration(`unchanged rebuild, round ${round + 1}`, unchanged.build!.generation);
    const unchangedOneJob = pair("unchanged-j1", () => build(["--out", stableDir, "--jobs", "1"]));
    expectCounts("unchanged rebuild --jobs 1", unchangedOneJob.build!, SKILLS, 0);
    checkGeneration(`unchanged rebuild --jobs 1, round ${round + 1}`, unchangedOneJob.build!.generation);

    // A different skill each round, rewritten at a new revision (all five files), then back.
    const changed = (round * 397 + 11) % SKILLS;
    writeBenchSkill(shelfDir, changed, round + 1);
    backdate(path.join(skillsDir, benchSkillName(changed)));
    const one = pair("one-skill", () => build(["--out", stableDir]));
    expectCounts("one-skill rebuild", one.build!, SKILLS - 1, 1);
    if (one.build!.generation === baseId) throw new Error(`changing ${benchSkillName(changed)} did not change the generation id`);
    if (contrast) {
      // --verify recomputes everything from the files, so it must find the incremental build's id.
      const verify = pair("verify", () => build(["--out", stableDir, "--verify"]));
      if (verify.build!.generation !== one.build!.generation)
        throw new NondeterminismError([
          { what: `one skill changed, incremental, round ${round + 1}`, id: one.build!.generation },
          { what: `the same files, build --verify, round ${round + 1}`, id: verify.build!.generation },
        ]);
      verifiedChanges++;
    }
    writeBenchSkill(shelfDir, changed, 0);
    backdate(path.join(skillsDir, benchSkillName(changed)));
    const reverted = build(["--out", stableDir]);
    expectCounts("rebuild after changing the skill back", reverted.build!, SKILLS - 1, 1);
    checkGeneration(`one skill changed back, round ${round + 1}`, reverted.build!.generation);
    rounds++;
    const last = (id: RowId) => pairs.get(id)!.at(-1)!;
    console.log(
      `  round ${round + 1}: sha256sum ${ms(last("fresh").sha.wallMs)}; ${ROWS.filter((r) => contrast || !r.contrast)
        .map((r) => `${r.id} ${ms(last(r.id).row.wallMs)}`)
        .join(", ")}; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }

  const profiles = new Map<RowId, string>();
  for (const row of ROWS) {
    if (QUICK || row.target === undefined || startupFreeRatio(pairs, row.id, "wallMs") <= row.target) continue;
    profiles.set(row.id, profileRow(row.id));
  }

  const publish = await publishRows();
  report(pairs, rounds, pairs.get("fresh")![0]!.build!, generations, verifiedChanges, profiles, publish);
}

/** A build whose generation id differs from the first one for the same files. */
class NondeterminismError extends Error {
  constructor(generations: readonly { what: string; id: string }[]) {
    super(`NONDETERMINISTIC BUILD: the same files gave different generation ids:\n${generations.map((g) => `  ${g.id}  ${g.what}`).join("\n")}`);
  }
}

function expectCounts(what: string, built: BuildJson, reused: number, archived: number): void {
  if (built.reused !== reused || built.archived !== archived)
    throw new Error(`${what}: reused ${built.reused} and archived ${built.archived}, expected reused ${reused} and archived ${archived}`);
}

/** Dates every file under `dir` an hour back, so the build cache trusts their stats. */
function backdate(dir: string): void {
  const when = Date.now() / 1000 - BACKDATE_S;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) utimesSync(path.join(entry.parentPath, entry.name), when, when);
  }
}

/** Runs a command to completion; throws with its output when it fails. */
function run(command: string, args: string[]): string {
  const child = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 300_000, env: { ...process.env, CI: "1" } });
  if (child.status !== 0)
    throw new Error(
      `${path.basename(command)} ${args.join(" ")} failed (exit ${child.status ?? child.signal}):\n${child.stdout}\n${child.stderr.slice(-3000)}`,
    );
  return child.stdout;
}

/** Runs one command under /usr/bin/time (when present) and returns its wall time, CPU and peak RSS. */
function measure(command: string, args: string[]): Sample {
  const timeFile = path.join(tmp, "time.txt");
  const [cmd, argv] = HAS_TIME ? [TIME, ["-f", "%U %S %M", "-o", timeFile, command, ...args]] : [command, args];
  const t0 = performance.now();
  const stdout = run(cmd, argv);
  const wallMs = performance.now() - t0;
  if (!HAS_TIME) return { wallMs, cpuMs: Number.NaN, maxRssKiB: Number.NaN, stdout };
  // GNU time may put "Command exited with non-zero status" first; the figures are the last line.
  const [user, sys, rss] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
  return { wallMs, cpuMs: (user! + sys!) * 1000, maxRssKiB: rss!, stdout };
}

/** `sha256sum` over every file of the shelf's skills, as the issue measured it. */
function sha256sum(): Sample {
  return measure("sh", ["-c", 'find "$1" -type f -print0 | xargs -0 sha256sum > /dev/null', "sh", skillsDir]);
}

function measureCli(args: string[], nodeFlags: string[] = []): Sample {
  return measure(process.execPath, [...nodeFlags, CLI, ...args]);
}

function build(args: string[], nodeFlags: string[] = []): Sample & { build: BuildJson } {
  const sample = measureCli(["build", shelfDir, ...args, "--json"], nodeFlags);
  const built = JSON.parse(sample.stdout) as BuildJson;
  if (!built.ok || built.skills !== SKILLS) throw new Error(`build ${args.join(" ")}: ${sample.stdout.slice(0, 500)}`);
  return { ...sample, build: built };
}

/** Median over rounds of (row − that round's --version) ÷ that row's paired sha256sum. */
function startupFreeRatio(pairs: Map<RowId, Pair[]>, id: RowId, field: "wallMs" | "cpuMs"): number {
  const versions = pairs.get("version")!;
  return median(pairs.get(id)!.map((p) => (p.row[field] - (id === "version" ? 0 : versions[p.round]!.row[field])) / p.sha[field]));
}

/**
 * Runs a row once more under `node --cpu-prof` (every thread writes a profile) and names the
 * functions with the most self time, summed over the threads.
 */
function profileRow(id: RowId): string {
  const dir = path.join(tmp, `profile-${id}`);
  mkdirSync(dir, { recursive: true });
  const flags = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  if (id === "fresh") build(["--out", path.join(tmp, "fresh-profiled")], flags);
  else if (id === "unchanged") build(["--out", stableDir], flags);
  else {
    const changed = SKILLS - 1;
    writeBenchSkill(shelfDir, changed, 99);
    backdate(path.join(skillsDir, benchSkillName(changed)));
    build(["--out", stableDir], flags);
    writeBenchSkill(shelfDir, changed, 0);
    backdate(path.join(skillsDir, benchSkillName(changed)));
    build(["--out", stableDir]);
  }
  // Self time per function, for the main thread and for the worker threads together (the file
  // name's thread id is 0 for the main thread).
  const threads = { main: { self: new Map<string, number>(), total: 0, count: 0 }, workers: { self: new Map<string, number>(), total: 0, count: 0 } };
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const thread = file.split(".")[4] === "0" ? threads.main : threads.workers;
    thread.count++;
    const names = new Map(
      profile.nodes.map((n) => {
        const where = n.callFrame.url ? ` (${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1})` : "";
        return [n.id, `${n.callFrame.functionName || "(anonymous)"}${where}`];
      }),
    );
    profile.samples.forEach((node, i) => {
      const name = names.get(node)!;
      if (name === "(idle)") return;
      const us = profile.timeDeltas[i] ?? 0;
      thread.self.set(name, (thread.self.get(name) ?? 0) + us);
      thread.total += us;
    });
  }
  const top = (t: typeof threads.main) =>
    [...t.self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, us]) => `\`${name}\` ${ms(us / 1000)}`)
      .join(", ");
  const text = [
    `main thread (${ms(threads.main.total / 1000)} sampled): ${top(threads.main)}`,
    threads.workers.count
      ? `${threads.workers.count} worker thread(s) (${ms(threads.workers.total / 1000)} sampled in all): ${top(threads.workers)}`
      : "no worker thread",
  ].join("; ");
  console.log(`  profile of ${id}: ${text}`);
  return `a CPU profile of one such build (\`node --cpu-prof\`, self time by function, idle excluded; sampled time, which load inflates): ${text}`;
}

/** Requests and request-body bytes a publish sent, by route. */
interface PublishTally {
  requests: number;
  bodyBytes: number;
  byRoute: Map<string, { requests: number; bytes: number }>;
  wallMs: number;
  result?: PublishResult;
}

/** Publishes the bench's build to a Worker started as `npm start` starts it, then again after a one-file change. */
async function publishRows(): Promise<{ first: PublishTally; after: PublishTally; changedFile: string; rebuilt: BuildJson }> {
  const log = (line: string) => console.log(`  start: ${line}`);
  const curated = path.join(tmp, "curated-shelf");
  cpSync(path.join(ROOT, "shelf"), curated, { recursive: true });
  running = await startShelfOnFreePort({ shelfDir: curated, persistTo: path.join(tmp, "state"), buildDir: path.join(tmp, "curated-build"), log });
  const token = readFileSync(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8").trim();
  const publishOnce = async (): Promise<PublishTally> => {
    const tally: PublishTally = { requests: 0, bodyBytes: 0, byRoute: new Map(), wallMs: 0 };
    const counting = async (request: Request) => {
      const bytes = request.body ? (await request.clone().arrayBuffer()).byteLength : 0;
      const route = `${request.method} ${new URL(request.url).pathname.replace(/[0-9a-f]{64}/, "{sha}")}`;
      const row = tally.byRoute.get(route) ?? { requests: 0, bytes: 0 };
      row.requests++;
      row.bytes += bytes;
      tally.byRoute.set(route, row);
      tally.requests++;
      tally.bodyBytes += bytes;
      return fetch(request);
    };
    const t0 = performance.now();
    tally.result = await publishGeneration(await buildFolderSource(stableDir), { url: running!.url, token, fetch: counting });
    tally.wallMs = performance.now() - t0;
    console.log(
      `  publish ${tally.result.generation.slice(0, 12)}…: ${tally.requests} requests, ${(tally.bodyBytes / 1e6).toFixed(2)} MB sent, ${ms(tally.wallMs)}`,
    );
    return tally;
  };
  const first = await publishOnce();
  // One file of one skill: a line added to a reference.
  const changedFile = path.join(skillsDir, benchSkillName(1), "references/guide.md");
  writeFileSync(changedFile, `${readFileSync(changedFile, "utf8")}\nOne more line for the publish bench.\n`);
  backdate(path.dirname(changedFile));
  const rebuilt = build(["--out", stableDir]).build;
  expectCounts("rebuild after a one-file change", rebuilt, SKILLS - 1, 1);
  const after = await publishOnce();
  await running.stop();
  running = undefined;
  return { first, after, changedFile: path.relative(shelfDir, changedFile), rebuilt };
}

function loadText(load: number[]): string {
  return load.map((l) => l.toFixed(2)).join(" / ");
}

function mb(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}

function report(
  pairs: Map<RowId, Pair[]>,
  rounds: number,
  base: BuildJson,
  generations: readonly { what: string; id: string }[],
  verifiedChanges: number,
  profiles: Map<RowId, string>,
  publish: Awaited<ReturnType<typeof publishRows>>,
): void {
  const loadAtEnd = loadavg();
  const seconds = (performance.now() - started) / 1000;
  const cores = cpus().length;
  const contended = Math.max(loadAtStart[0]!, loadAtEnd[0]!) > cores;
  const times = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "—");
  const med = (id: RowId, pick: (p: Pair) => number) => median(pairs.get(id)!.map(pick));
  const mib = (kib: number) => (Number.isFinite(kib) ? `${(kib / 1024).toFixed(0)} MiB` : "—");
  const shaWall = median([...pairs.values()].flat().map((p) => p.sha.wallMs));
  const shaCpu = median([...pairs.values()].flat().map((p) => p.sha.cpuMs));

  const rows = ROWS.map((row) => {
    const written = row.id === "version" ? "—" : `${med(row.id, (p) => p.build!.written)} (${mb(med(row.id, (p) => p.build!.written_bytes))})`;
    return [
      row.label,
      ms(med(row.id, (p) => p.row.wallMs)),
      HAS_TIME ? ms(med(row.id, (p) => p.row.cpuMs)) : "—",
      mib(med(row.id, (p) => p.row.maxRssKiB)),
      written,
      `**${times(startupFreeRatio(pairs, row.id, "wallMs"))}**`,
      times(startupFreeRatio(pairs, row.id, "cpuMs")),
      row.target === undefined ? "—" : `≤ ${row.target}×`,
    ];
  });
  rows.push(["`sha256sum` over the same files (all pairs)", ms(shaWall), HAS_TIME ? ms(shaCpu) : "—", "—", "—", "1.00×", "1.00×", "—"]);

  const verdicts = ROWS.filter((r) => r.target !== undefined).map((row) => {
    const wall = startupFreeRatio(pairs, row.id, "wallMs");
    const cpu = startupFreeRatio(pairs, row.id, "cpuMs");
    const perRound = pairs
      .get(row.id)!
      .map((p) => times((p.row.wallMs - pairs.get("version")![p.round]!.row.wallMs) / p.sha.wallMs))
      .join(", ");
    const met = wall <= row.target!;
    const profile = profiles.get(row.id);
    return `**${row.label[0]!.toUpperCase()}${row.label.slice(1)} ≤ ${row.target}× sha256sum: ${met ? "met" : "missed"}** at ${times(wall)} (rounds: ${perRound}; by CPU ${times(cpu)}), ${ms(med(row.id, (p) => p.row.wallMs))} against ${ms(med(row.id, (p) => p.sha.wallMs))} for sha256sum and ${ms(med("version", (p) => p.row.wallMs))} of start-up.${profile ? ` Missed: ${profile}.` : ""}`;
  });
  const freshRss = med("fresh", (p) => p.row.maxRssKiB);
  const jobsGain = med("fresh-j1", (p) => p.row.wallMs) / med("fresh", (p) => p.row.wallMs);
  const unchangedCpu = med("unchanged", (p) => p.row.cpuMs);
  const unchangedOneJobCpu = med("unchanged-j1", (p) => p.row.cpuMs);
  const unchangedJobs = [
    `**Unchanged rebuilds, default --jobs against --jobs 1:** ${ms(unchangedCpu)} against ${ms(unchangedOneJobCpu)} of CPU, ${mib(med("unchanged", (p) => p.row.maxRssKiB))} against ${mib(med("unchanged-j1", (p) => p.row.maxRssKiB))} peak RSS, ${times(startupFreeRatio(pairs, "unchanged", "wallMs"))} against ${times(startupFreeRatio(pairs, "unchanged-j1", "wallMs"))} sha256sum.`,
    // Only while the difference is there: the explanation is the pool's, read from its source.
    unchangedOneJobCpu < 0.8 * unchangedCpu
      ? " The difference is the pool's worker threads: `src/cli/lib/skill-objects-pool.ts` starts them (each loading the worker bundle) before it knows whether any skill needs compressing, and an unchanged rebuild needs none."
      : "",
  ].join("");

  const routeRows = [...new Set([...publish.first.byRoute.keys(), ...publish.after.byRoute.keys()])].sort().map((route) => {
    const a = publish.first.byRoute.get(route);
    const b = publish.after.byRoute.get(route);
    const cell = (r?: { requests: number; bytes: number }) => (r ? `${r.requests} · ${mb(r.bytes)}` : "—");
    return [`\`${route}\``, cell(a), cell(b)];
  });
  const uploaded = (t: PublishTally) => {
    const u = t.result!.uploaded;
    return `${u.blob} blob(s), ${u.record} record(s), ${u.shard} shard(s), ${u.generation} manifest`;
  };
  const publishRowsTable = [
    [
      "requests · request-body bytes",
      `**${publish.first.requests} · ${mb(publish.first.bodyBytes)}**`,
      `**${publish.after.requests} · ${mb(publish.after.bodyBytes)}**`,
    ],
    ["objects uploaded", uploaded(publish.first), uploaded(publish.after)],
    ["wall time", ms(publish.first.wallMs), ms(publish.after.wallMs)],
    ...routeRows,
  ];

  const markdown = [
    `The CLI as users install it: \`scripts/build-cli.ts\`'s bundle (\`skillshelf.mjs\` and its worker thread beside it, written by the run into a folder of its own under dist/) run by the pinned Node as a child process. The shelf: \`bench/shelf-gen.ts\`, ${SKILLS.toLocaleString("en-US")} skills, ${base.files.toLocaleString("en-US")} files, ${mb(base.bytes)}, every file dated an hour back (the build cache does not trust a file modified in the last 2 s). No trust records, unsigned.`,
    "",
    `- **Measure:** ${rounds} rounds; in each, every row ran back to back with \`find skills -type f -print0 | xargs -0 sha256sum > /dev/null\` over the same files (the order flipped every round, page cache warm). Wall time around the child (spawnSync), user + system CPU and peak RSS from \`/usr/bin/time\` (the build's worker threads are in its process, so in both). Cells: medians over rounds. Ratios: the median of each round's (row − that round's \`--version\`) ÷ its paired sha256sum, so the CLI's start-up is not counted; the --version row is its own ratio. "One skill changed": a different skill each round rewritten at a new revision (all 5 files) and rebuilt into the same folder (then, in the first ${CONTRAST_ROUNDS} rounds, \`--verify\` over it), then changed back and rebuilt (untimed). The slow contrast rows (\`--jobs 1\` fresh, \`--verify\`) ran in the first ${CONTRAST_ROUNDS} round(s) only, to keep the bench short. Written: objects (and bytes) the build wrote, from \`--json\`.`,
    `- **Checked:** every build's \`--json\`: unchanged rebuilds reused ${SKILLS} skills and archived 0, one-skill rebuilds reused ${SKILLS - 1} and archived 1; the generation id is identical across ${generations.length} builds of the same files (fresh, --jobs 1, unchanged on 1 and on default jobs, one skill changed and changed back): \`${base.generation}\`; in ${verifiedChanges} round(s) \`build --verify\` of the shelf with one skill changed found the incremental build's id. A difference fails the bench.`,
    `- **Run:** ${QUICK ? "quick mode (figures indicative only), " : ""}${seconds.toFixed(0)} s in all; load average (1/5/15 min) ${loadText(loadAtStart)} at the start, ${loadText(loadAtEnd)} at the end, on ${cores} cores.${contended ? " **The machine was oversubscribed** (shared with other jobs): the build's worker threads and sha256sum competed for cores, so wall ratios carry that noise; the CPU ratios move less." : ""}`,
    "",
    table(["Build", "wall", "CPU (user+sys)", "peak RSS", "written", "wall ÷ sha256sum (minus start-up)", "CPU ÷ sha256sum (minus start-up)", "target"], rows),
    "",
    ...verdicts.flatMap((v) => [v, ""]),
    unchangedJobs,
    "",
    `**Fresh builds:** peak RSS ${mib(freshRss)} for ${mb(base.bytes)} of files (the issue measured 312 MB before the incremental build), ${mib(med("fresh-j1", (p) => p.row.maxRssKiB))} with \`--jobs 1\`, which takes ${times(jobsGain)} the default's wall time on ${cores} cores. \`build --verify\` (reads, hashes and compresses everything again, as a fresh build) runs at ${times(startupFreeRatio(pairs, "verify", "wallMs"))}.`,
    "",
    "**Publish after a one-file change.**",
    "",
    `The same build published to a Worker started as \`npm start\` starts it (\`scripts/start.ts\`: \`wrangler dev\` on loopback, local R2 and KV, the curated shelf published first) with \`publishGeneration\` over the build folder (\`buildFolderSource\`), every request counted by a wrapped fetch; then one line added to \`${publish.changedFile}\`, rebuilt into the same folder (reused ${publish.rebuilt.reused}, archived ${publish.rebuilt.archived}) and published again. Cells: requests · request-body bytes.`,
    "",
    table(["", `first publish (${SKILLS.toLocaleString("en-US")} skills)`, "after a one-file change"], publishRowsTable),
    "",
    `After one file changed, a publish sends ${publish.after.requests} requests and ${mb(publish.after.bodyBytes)} (${((100 * publish.after.bodyBytes) / publish.first.bodyBytes).toFixed(2)}% of the first publish's bytes, ${((100 * publish.after.requests) / publish.first.requests).toFixed(1)}% of its requests).`,
  ].join("\n");
  reportSection("build", markdown);
}
