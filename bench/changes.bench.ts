// What the change document (issue 33) costs in a 1,000-skill incremental publish: side by side in
// one run, (a) the incremental `skillshelf build` after a one-file change (a child process on the
// pinned Node, its start-up subtracted as build.bench does), (b) publishing that build to a Worker
// started as `npm start` starts it (wrangler dev on loopback, local R2 and KV; wall time of
// publishGeneration, which includes the Worker computing and storing the change document), and
// (c) the Worker's change-document step alone (src/worker/admin/changes.ts moveChanges, the code
// the pointer move runs) in this process over the two build folders as the bucket, its reads
// counted. The share is (c) ÷ (a + b), and (c) ÷ (b) for the Worker side alone.
// Bounded: one shelf, one change, a fixed number of rounds. Run: npm run bench -- --only changes.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildFolderSource } from "../src/cli/lib/publish.ts";
import { publishGeneration } from "../src/core/publish/client.ts";
import type { GenerationManifest } from "../src/core/generation/manifest.ts";
import { moveChanges } from "../src/worker/admin/changes.ts";
import { AdminStorage } from "../src/worker/admin/storage.ts";
import type { StorageBindings } from "../src/worker/storage/index.ts";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "../scripts/start.ts";
import { median, ms, QUICK, reportSection, table } from "./report.ts";
import { benchSkillName, writeBenchShelf } from "./shelf-gen.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SKILLS = QUICK ? 200 : 1_000;
const BUILD_ROUNDS = QUICK ? 2 : 3;
const CHANGE_ROUNDS = QUICK ? 10 : 30;
const CLI = path.join(ROOT, "src", "cli", "skillshelf.ts");
/** The build cache does not trust a file modified in the last 2 s: files are dated back. */
const BACKDATE_S = 3600;

const tmp = mkdtempSync(path.join(tmpdir(), "skillshelf-changes-bench-"));
const shelfDir = path.join(tmp, "shelf");
let running: RunningShelf | undefined;

/** Runs this checkout's CLI; its wall time, and the generation a `build --json` printed. */
function timedCli(args: string[]): { ms: number; generation: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`skillshelf ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { ms: wall, generation: /"generation": "([0-9a-f]{64})"/.exec(r.stdout)?.[1] ?? "" };
}

function backdate(file: string): void {
  const when = Date.now() / 1000 - BACKDATE_S;
  utimesSync(file, when, when);
}

/** A bucket over build folders (blobs/, records/, shards/ by digest), counting reads; puts are counted and dropped. */
function folderBucket(dirs: readonly string[], counts: { get: number; put: number }): StorageBindings {
  const bucket = {
    async get(key: string) {
      counts.get++;
      for (const dir of dirs) {
        let bytes: Buffer;
        try {
          bytes = readFileSync(path.join(dir, key));
        } catch {
          continue;
        }
        return { size: bytes.byteLength, etag: "e", body: new Blob([bytes]).stream(), json: async () => JSON.parse(bytes.toString("utf8")) };
      }
      return null;
    },
    async put() {
      counts.put++;
      return {};
    },
  };
  return { SHELF_BUCKET: bucket, SHELF_KV: {} } as unknown as StorageBindings;
}

function generationOf(buildDir: string, id: string): { id: string; manifest: GenerationManifest } {
  if (!id) throw new Error(`no generation id for ${buildDir}`);
  return { id, manifest: JSON.parse(readFileSync(path.join(buildDir, "manifest.json"), "utf8")) as GenerationManifest };
}

async function main(): Promise<void> {
  // Dated back, so the build cache trusts every file's stat and the second build is incremental.
  for (const file of writeBenchShelf(shelfDir, SKILLS).files) backdate(file);
  const before = path.join(tmp, "build-before");
  const after = path.join(tmp, "build-after");
  console.log(`  ${SKILLS} skills written; fresh build…`);
  const beforeId = timedCli(["build", shelfDir, "--out", before, "--json"]).generation;
  const startup = median(Array.from({ length: 3 }, () => timedCli(["--version"]).ms));

  // (a) the incremental build after a one-file change, from a copy of the first build each round.
  const changed = path.join(shelfDir, "skills", benchSkillName(1), "references", "guide.md");
  const original = readFileSync(changed, "utf8");
  writeFileSync(changed, `${original}\nOne more line for the change bench.\n`);
  backdate(changed);
  const builds: number[] = [];
  let afterId = "";
  for (let round = 0; round < BUILD_ROUNDS; round++) {
    rmSync(after, { recursive: true, force: true });
    cpSync(before, after, { recursive: true });
    const run = timedCli(["build", shelfDir, "--out", after, "--json"]);
    builds.push(Math.max(0, run.ms - startup));
    afterId = run.generation;
  }
  console.log(`  incremental build: ${ms(median(builds))} (start-up ${ms(startup)} subtracted)`);

  // (c) the change document of before → after, as the pointer move computes it.
  const counts = { get: 0, put: 0 };
  const storage = new AdminStorage(folderBucket([before, after], counts));
  const [g1, g2] = [generationOf(before, beforeId), generationOf(after, afterId)];
  const docs: number[] = [];
  let doc: Awaited<ReturnType<typeof moveChanges>> | undefined;
  for (let round = 0; round < CHANGE_ROUNDS; round++) {
    counts.get = 0;
    const t0 = performance.now();
    doc = await moveChanges(storage, { seq: 2, action: "publish", at: "2026-12-02T00:00:00.000Z" }, g1, g2, []);
    docs.push(performance.now() - t0);
  }
  const changedNames = doc!.changed.map((c) => c.name);
  if (changedNames.join() !== benchSkillName(1)) throw new Error(`the change document names ${changedNames.join(", ")}, expected ${benchSkillName(1)}`);
  console.log(`  change document: ${ms(median(docs))}, ${counts.get} reads`);

  // (b) publishing: the first build, then the incremental one, to a Worker as npm start runs it.
  const curated = path.join(tmp, "curated-shelf");
  cpSync(path.join(ROOT, "shelf"), curated, { recursive: true });
  running = await startShelfOnFreePort({ shelfDir: curated, persistTo: path.join(tmp, "state"), buildDir: path.join(tmp, "curated-build") });
  const token = readFileSync(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8").trim();
  const publish = async (dir: string) => {
    const t0 = performance.now();
    await publishGeneration(await buildFolderSource(dir), { url: running!.url, token });
    return performance.now() - t0;
  };
  const firstPublish = await publish(before);
  const incremental = await publish(after);
  console.log(`  publish: first ${ms(firstPublish)}, incremental ${ms(incremental)}`);
  await running.stop();
  running = undefined;

  const build = median(builds);
  const change = median(docs);
  const share = (n: number, d: number) => `${((100 * n) / d).toFixed(2)} %`;
  reportSection(
    "changes",
    [
      `A ${SKILLS.toLocaleString("en-US")}-skill shelf (bench/shelf-gen.ts), one line added to \`${benchSkillName(1)}/references/guide.md\`. The incremental build is the median of ${BUILD_ROUNDS} runs of the CLI (Node start-up subtracted); the publish is one \`publishGeneration\` of that build to a Worker started as \`npm start\` starts it, right after publishing the unchanged build (the Worker computes and stores the change document inside it); the change document is the median of ${CHANGE_ROUNDS} runs of the pointer move's \`moveChanges\` in this process over the two build folders (${counts.get} object reads per run, the two shards that differ, both records of the changed skill, no lifecycle; one put, not timed). Load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")} at the end.`,
      "",
      table(
        ["step", "time", "share of the change document"],
        [
          ["incremental build (a)", ms(build), ""],
          ["incremental publish to the Worker (b)", ms(incremental), ""],
          ["change document alone (c)", ms(change), ""],
          ["(c) ÷ (a + b)", "", `**${share(change, build + incremental)}**`],
          ["(c) ÷ (b), the Worker side alone", "", `**${share(change, incremental)}**`],
        ],
      ),
      "",
      `The first publish of the same build took ${ms(firstPublish)}. The change document's time is measured in Node, not workerd, and reads its objects from local files rather than R2: inside the Worker each of the ${counts.get} reads is an R2 get, which the publish's own wall time (b) already includes.`,
    ].join("\n"),
  );
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await running?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
