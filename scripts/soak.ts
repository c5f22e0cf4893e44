// npm run soak [-- --seconds N | --quick] [--concurrency N] [--json]: a bounded soak of the
// shelf started as `npm start` starts it (scripts/start.ts), on a loopback port, over a copy of
// ./shelf: readers at concurrency 50 on every route, current and pinned, while generations are
// published and rolled back, a skill is blocked and unblocked, and gc runs in the middle. Every
// answer is checked against the generation it names (Skillshelf-Generation): file bytes against
// that generation's digests, ranges against its bytes, indexes against its skills and against
// every other answer with the same ETag. Not part of `npm test`; docs/reliability.md has figures.
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildShelf } from "../src/cli/lib/build.ts";
import { readBuildFolder, readBuildObject } from "../src/cli/lib/build-folder.ts";
import { buildFolderSource } from "../src/cli/lib/publish.ts";
import type { Archives, FileEntry, Shard, SkillRecord } from "../src/core/generation/manifest.ts";
import { AdminClient, publishGeneration } from "../src/core/publish/client.ts";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "./start.ts";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const GENERATION_HEADER = "skillshelf-generation";
/** Bounds that hold whatever the clock does: requests per reader, and each request's time. */
const MAX_REQUESTS_PER_READER = 2_000_000;
const REQUEST_TIMEOUT_MS = 15_000;

/** One generation as the soak knows it, read from its build folder. */
interface GenerationModel {
  id: string;
  label: string;
  dir: string;
  /** skill → path → file */
  files: Map<string, Map<string, FileEntry>>;
  archives: Map<string, Archives>;
  treeHash: Map<string, string>;
}

/** A request the readers send, and what it is checked against. */
interface Probe {
  method: "GET" | "HEAD";
  /** Below the shelf's URL, e.g. /skills/code-review/SKILL.md or /g/<id>/skills/index.json. */
  path: string;
  /** A pinned URL's generation. */
  pinned?: string;
  kind: "file" | "index";
  skill?: string;
  /** The file's path in its skill, or "tar_gz"/"zip" for archives. */
  file?: string;
  range?: [number, number];
  conditional?: boolean;
}

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  errors: { what: string; probe: string; status: number; generation: string | null }[];
  errorCount: number;
  wrongBytes: number;
  latencies: number[];
  predicted404: number;
  predicted410: number;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function loadGeneration(dir: string, label: string): Promise<GenerationModel> {
  const folder = await readBuildFolder(dir);
  const model: GenerationModel = { id: folder.id, label, dir, files: new Map(), archives: new Map(), treeHash: new Map() };
  for (const ref of folder.manifest.shards) {
    const shard = JSON.parse(new TextDecoder().decode(await readBuildObject(dir, "shard", ref.sha256))) as Shard;
    for (const entry of shard.skills) {
      const record = JSON.parse(new TextDecoder().decode(await readBuildObject(dir, "record", entry.record.sha256))) as SkillRecord;
      model.files.set(entry.name, new Map(record.files.map((f) => [f.path, f])));
      model.archives.set(entry.name, record.archives);
      model.treeHash.set(entry.name, record.tree_hash);
    }
  }
  return model;
}

/** Every probe for one generation: path URLs (when `current`) or pinned ones. */
function probesFor(model: GenerationModel, pinned: boolean): Probe[] {
  const base = pinned ? `/g/${model.id}` : "";
  const p = (probe: Omit<Probe, "path" | "pinned"> & { path: string }): Probe => ({
    ...probe,
    path: `${base}${probe.path}`,
    pinned: pinned ? model.id : undefined,
  });
  const out: Probe[] = [
    p({ method: "GET", path: "/skills/index.json", kind: "index" }),
    p({ method: "GET", path: "/.well-known/agent-skills/index.json", kind: "index" }),
    p({ method: "GET", path: "/.well-known/skills/index.json", kind: "index" }),
    p({ method: "GET", path: "/v1/shelf", kind: "index" }),
  ];
  for (const [skill, files] of model.files) {
    out.push(p({ method: "GET", path: `/skills/${skill}/index.json`, kind: "index", skill }));
    for (const [file, entry] of files) {
      const enc = file.split("/").map(encodeURIComponent).join("/");
      out.push(p({ method: "GET", path: `/skills/${skill}/${enc}`, kind: "file", skill, file }));
      out.push(p({ method: "GET", path: `/.well-known/skills/${skill}/${enc}`, kind: "file", skill, file }));
      if (entry.size > 16)
        out.push(p({ method: "GET", path: `/skills/${skill}/${enc}`, kind: "file", skill, file, range: [5, Math.min(entry.size, 4000) - 1] }));
    }
    out.push(p({ method: "GET", path: `/.well-known/agent-skills/${skill}/SKILL.md`, kind: "file", skill, file: "SKILL.md" }));
    out.push(p({ method: "HEAD", path: `/skills/${skill}/SKILL.md`, kind: "file", skill, file: "SKILL.md" }));
    out.push(p({ method: "GET", path: `/skills/${skill}/SKILL.md`, kind: "file", skill, file: "SKILL.md", conditional: true }));
    out.push(p({ method: "GET", path: `/.well-known/agent-skills/${skill}.tar.gz`, kind: "file", skill, file: "tar_gz" }));
    out.push(p({ method: "GET", path: `/.well-known/agent-skills/${skill}.zip`, kind: "file", skill, file: "zip" }));
  }
  return out;
}

/** Whether a generation holds what a probe asks for (a skill, one of its files, or its archives). */
function holds(model: GenerationModel, probe: Probe): boolean {
  if (probe.skill === undefined) return true;
  const files = model.files.get(probe.skill);
  if (!files) return false;
  return probe.kind === "index" || probe.file === "tar_gz" || probe.file === "zip" || files.has(probe.file!);
}

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { seconds: { type: "string" }, quick: { type: "boolean" }, concurrency: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write("usage: npm run soak -- [--seconds N (default 300) | --quick (30 s)] [--concurrency N (default 50)] [--json]\n");
    return 0;
  }
  const seconds = values.quick ? 30 : Number(values.seconds ?? 300);
  const concurrency = Number(values.concurrency ?? 50);
  if (!Number.isInteger(seconds) || seconds < 5 || seconds > 3600) throw new Error("--seconds must be a whole number from 5 to 3600");
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 500) throw new Error("--concurrency must be a whole number from 1 to 500");
  const log = (line: string) => process.stderr.write(`soak: ${line}\n`);

  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-soak-"));
  const shelfDir = path.join(work, "shelf");
  await cp(path.join(ROOT, "shelf"), shelfDir, { recursive: true });
  let shelf: RunningShelf | undefined;
  const stopAll = async () => {
    await shelf?.stop();
    shelf = undefined;
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const put = async (file: string, content: string | Uint8Array) => {
      await mkdir(path.dirname(path.join(shelfDir, file)), { recursive: true });
      await writeFile(path.join(shelfDir, file), content);
    };
    // Variants of the shelf, built ahead: a file added, another added, the first removed and a
    // 300 KB binary asset added (ranges of it are cut from a checked read).
    const variants: [string, () => Promise<void>][] = [
      ["G1 (a reference added)", () => put("skills/code-review/references/soak-extra.md", "# Soak\n\nAdded for the soak.\n")],
      ["G2 (another reference added)", () => put("skills/release-checklist/references/soak-notes.md", "# Notes\n\nSoak notes, second edition.\n")],
      [
        "G3 (the first removed, a binary asset added)",
        async () => {
          await unlink(path.join(shelfDir, "skills/code-review/references/soak-extra.md"));
          const asset = new Uint8Array(300 * 1024);
          let x = 0x2545f491;
          for (let i = 0; i < asset.length; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            asset[i] = x & 0xff;
          }
          await put("skills/security-review/assets/soak.bin", asset);
        },
      ],
    ];
    const g0Dir = path.join(work, "build-g0");
    const models = new Map<string, GenerationModel>();
    const variantDirs: string[] = [];
    log("starting the shelf on a free loopback port as npm start does");
    shelf = await startShelfOnFreePort({ shelfDir, persistTo: path.join(work, "state"), buildDir: g0Dir, log });
    const g0 = await loadGeneration(g0Dir, "G0 (the curated shelf)");
    models.set(g0.id, g0);
    for (const [i, [label, edit]] of variants.entries()) {
      await edit();
      const dir = path.join(work, `build-g${i + 1}`);
      await buildShelf(shelfDir, dir);
      const model = await loadGeneration(dir, label);
      models.set(model.id, model);
      variantDirs.push(dir);
    }
    const variant = (i: number) => [...models.values()].find((m) => m.dir === variantDirs[i])!;
    const [g1, g2, g3] = [variant(0), variant(1), variant(2)];
    const url = shelf.url;
    const token = (await readFile(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8")).trim();
    const admin = new AdminClient({ url, token, onLog: log });

    // What the readers may ask: every published generation, at path URLs and pinned.
    const published = new Set<string>([g0.id]);
    let probes: Probe[] = [];
    const refreshProbes = () => {
      const current = [...published].map((id) => models.get(id)!);
      const union = new Map<string, Probe>();
      for (const model of current)
        for (const probe of probesFor(model, false)) union.set(`${probe.method} ${probe.path} ${probe.range ?? ""} ${probe.conditional ?? ""}`, probe);
      probes = [...union.values(), ...current.flatMap((m) => probesFor(m, true))];
    };
    refreshProbes();
    const blocked = { skill: "flaky-test-triage", since: Number.POSITIVE_INFINITY };

    const tally: Tally = { requests: 0, byStatus: new Map(), errors: [], errorCount: 0, wrongBytes: 0, latencies: [], predicted404: 0, predicted410: 0 };
    const blobCache = new Map<string, Promise<Uint8Array>>();
    const blobBytes = (model: GenerationModel, sha: string) => {
      if (!blobCache.has(sha)) blobCache.set(sha, readBuildObject(model.dir, "blob", sha));
      return blobCache.get(sha)!;
    };
    const indexBodies = new Map<string, string>();
    const fail = (what: string, probe: Probe, status: number, generation: string | null) => {
      tally.errorCount++;
      if (what.startsWith("wrong bytes")) tally.wrongBytes++;
      if (tally.errors.length < 50)
        tally.errors.push({ what, probe: `${probe.method} ${probe.path}${probe.range ? ` bytes=${probe.range.join("-")}` : ""}`, status, generation });
    };

    /** Checks one answer against the generation it names; every deviation is counted. */
    const check = async (probe: Probe, res: Response, body: Uint8Array, sentAt: number, ifNoneMatch: string | undefined) => {
      const status = res.status;
      const generation = res.headers.get(GENERATION_HEADER);
      const model = generation ? models.get(generation) : undefined;
      if (status >= 500) return fail(`status ${status}: ${new TextDecoder().decode(body).slice(0, 120)}`, probe, status, generation);
      if (probe.pinned && generation && generation !== probe.pinned)
        return fail(`a pinned URL answered from generation ${generation}`, probe, status, generation);
      if (status === 410) {
        if (probe.skill === blocked.skill && sentAt >= blocked.since) return void tally.predicted410++;
        return fail("410 for a skill never blocked", probe, status, generation);
      }
      if (status === 404) {
        // Predicted when the path is not in the generation answered from (or, when the answer names
        // none, in one of those it may have come from).
        const candidates = model ? [model] : probe.pinned ? [models.get(probe.pinned)!] : [...published].map((id) => models.get(id)!);
        if (candidates.some((m) => !holds(m, probe))) return void tally.predicted404++;
        return fail("404 for a path its generation holds", probe, status, generation);
      }
      if (![200, 206, 304].includes(status)) return fail(`unexpected status ${status}`, probe, status, generation);
      if (!model) return fail(generation ? `unknown generation ${generation}` : "no Skillshelf-Generation header", probe, status, generation);
      if (probe.kind === "index") {
        if (probe.method === "HEAD" || status !== 200) return;
        const text = new TextDecoder().decode(body);
        try {
          JSON.parse(text);
        } catch {
          return fail("wrong bytes: an index that is not JSON", probe, status, generation);
        }
        const etag = res.headers.get("etag") ?? "";
        // A shelf-wide index's ETag names its generation; a skill's names its record.
        if (probe.skill === undefined && !etag.includes(model.id))
          return fail(`an index whose ETag ${etag} does not name its generation`, probe, status, generation);
        const key = `${probe.path} ${etag}`;
        const seen = indexBodies.get(key);
        if (seen === undefined) indexBodies.set(key, text);
        else if (seen !== text) return fail("wrong bytes: two different bodies under one ETag", probe, status, generation);
        if (probe.skill === undefined && probe.path.endsWith("/skills/index.json") && !probe.path.includes(".well-known")) {
          const names = (JSON.parse(text) as { skills: string[] }).skills;
          for (const name of names) if (!model.files.has(name)) return fail(`the index lists ${name}, which its generation lacks`, probe, status, generation);
        }
        return;
      }
      const expected =
        probe.file === "tar_gz" || probe.file === "zip" ? model.archives.get(probe.skill!)?.[probe.file] : model.files.get(probe.skill!)?.get(probe.file!);
      if (!expected) return fail(`${status} for a file its generation lacks`, probe, status, generation);
      if (status === 304) {
        if (ifNoneMatch !== `"${expected.sha256}"`) return fail("304 although the ETag sent is not the file's", probe, status, generation);
        return;
      }
      if (probe.method === "HEAD") {
        if (Number(res.headers.get("content-length")) !== expected.size) return fail("HEAD with the wrong Content-Length", probe, status, generation);
        return;
      }
      if (status === 206) {
        if (!probe.range) return fail("206 to a request without Range", probe, status, generation);
        const whole = await blobBytes(model, expected.sha256);
        const want = whole.subarray(probe.range[0], probe.range[1] + 1);
        if (sha256(body) !== sha256(want)) return fail("wrong bytes: a range that is not its generation's", probe, status, generation);
        return;
      }
      if (body.byteLength !== expected.size || sha256(body) !== expected.sha256)
        return fail("wrong bytes: a body that does not hash to its generation's digest", probe, status, generation);
    };

    const deadline = Date.now() + seconds * 1000;
    let stopReaders = false;
    const reader = async (index: number) => {
      let x = (index + 1) * 0x9e3779b1;
      for (let n = 0; n < MAX_REQUESTS_PER_READER && !stopReaders && Date.now() < deadline; n++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const probe = probes[(x >>> 0) % probes.length]!;
        const headers: Record<string, string> = {};
        if (probe.range) headers.Range = `bytes=${probe.range[0]}-${probe.range[1]}`;
        if (probe.conditional) {
          const current = models.get([...published].at(-1)!);
          const sha = current?.files.get(probe.skill!)?.get("SKILL.md")?.sha256;
          if (sha) headers["If-None-Match"] = `"${sha}"`;
        }
        const sentAt = Date.now();
        const started = performance.now();
        let res: Response;
        let body: Uint8Array;
        try {
          res = await fetch(`${url}${probe.path}`, { method: probe.method, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
          body = new Uint8Array(await res.arrayBuffer());
        } catch (error) {
          tally.requests++;
          fail(`no answer: ${(error as Error).message}`, probe, 0, null);
          continue;
        }
        tally.latencies.push(performance.now() - started);
        tally.requests++;
        tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
        await check(probe, res, body, sentAt, headers["If-None-Match"]);
      }
    };

    // The operator's side, one step at a time at fixed points of the run.
    const at = (fraction: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - seconds * 1000 * (1 - fraction) - Date.now())));
    const events: string[] = [];
    const publish = async (model: GenerationModel) => {
      const result = await publishGeneration(await buildFolderSource(model.dir), { url, token, onLog: log });
      published.add(model.id);
      refreshProbes();
      events.push(`publish ${model.label}: ${result.alreadyCurrent ? "already current" : `${result.uploaded.blob} blob(s) uploaded`}`);
    };
    const advisory = (status: "active" | "withdrawn") => ({
      name: blocked.skill,
      source: "soak",
      official_intent: "Triage flaky tests.",
      hidden_issue: "Blocked for the soak.",
      severity: "critical",
      reference: "https://example.invalid/soak",
      tree_hash: g0.treeHash.get(blocked.skill)!,
      advisory_id: "ASA-SOAK-1",
      status,
      ...(status === "withdrawn" ? { withdrawn_reason: "the soak is done with it", withdrawn_at: new Date().toISOString() } : {}),
    });
    const operator = async () => {
      await at(0.1);
      await publish(g1);
      await at(0.2);
      blocked.since = Date.now();
      await admin.mergeAdvisories([advisory("active")]);
      events.push(`advisory: ${blocked.skill} blocked`);
      await at(0.3);
      await publish(g2);
      await at(0.4);
      await admin.rollback({ generation: g1.id, previous: await admin.current() });
      events.push(`rollback to ${g1.label}`);
      await at(0.5);
      const dry = await admin.gc({ keep: 1, grace_seconds: 0 });
      const applied = await admin.gc({ keep: 1, grace_seconds: 0, apply: true });
      events.push(
        `gc --keep 1 --grace-hours 0: dry run ${Object.values(dry.deletable).reduce((a, b) => a + b, 0)} deletable; applied, ${Object.values(applied.deleted).reduce((a, b) => a + b, 0)} deleted (grace applied: ${applied.grace_seconds} s)`,
      );
      await at(0.55);
      await admin.mergeAdvisories([advisory("withdrawn")]);
      events.push(`advisory: ${blocked.skill} withdrawn`);
      await at(0.65);
      await publish(g3);
      await at(0.75);
      await admin.rollback({ generation: g0.id, previous: await admin.current() });
      events.push(`rollback to ${g0.label}`);
      await at(0.85);
      await publish(g2);
    };

    log(`${seconds} s at concurrency ${concurrency} against ${url}; ${models.size} generations built`);
    const startedAt = Date.now();
    const operatorDone = operator().catch((error: unknown) => {
      events.push(`operator step failed: ${(error as Error).message}`);
      tally.errorCount++;
    });
    await Promise.all(Array.from({ length: concurrency }, (_, i) => reader(i)));
    const elapsed = (Date.now() - startedAt) / 1000;
    stopReaders = true;
    await operatorDone;

    const sorted = tally.latencies.sort((a, b) => a - b);
    const report = {
      date: new Date().toISOString(),
      machine: `${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} at the end`,
      seconds: Math.round(elapsed),
      concurrency,
      requests: tally.requests,
      requests_per_second: Math.round(tally.requests / elapsed),
      by_status: Object.fromEntries([...tally.byStatus].sort(([a], [b]) => a - b)),
      predicted_404: tally.predicted404,
      predicted_410: tally.predicted410,
      errors: tally.errorCount,
      wrong_bytes: tally.wrongBytes,
      latency_ms: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 },
      generations: [...published].map((id) => `${models.get(id)!.label}: ${id}`),
      events,
      first_errors: tally.errors,
    };
    const round = (ms: number) => Math.round(ms * 10) / 10;
    report.latency_ms = {
      p50: round(report.latency_ms.p50),
      p90: round(report.latency_ms.p90),
      p99: round(report.latency_ms.p99),
      max: round(report.latency_ms.max),
    };
    if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      process.stdout.write(
        [
          `soak: ${report.requests} requests in ${report.seconds} s at concurrency ${concurrency} (${report.requests_per_second}/s) on ${report.machine}`,
          `  statuses: ${Object.entries(report.by_status)
            .map(([s, n]) => `${s}: ${n}`)
            .join(", ")}`,
          `  predicted 404s: ${report.predicted_404}, predicted 410s: ${report.predicted_410}`,
          `  errors: ${report.errors}, wrong bytes: ${report.wrong_bytes}`,
          `  latency ms: p50 ${report.latency_ms.p50}, p90 ${report.latency_ms.p90}, p99 ${report.latency_ms.p99}, max ${report.latency_ms.max}`,
          ...events.map((e) => `  event: ${e}`),
          ...tally.errors.map((e) => `  error: ${e.what} (${e.probe}, status ${e.status}, generation ${e.generation ?? "none"})`),
          "",
        ].join("\n"),
      );
    }
    return report.errors === 0 && report.wrong_bytes === 0 ? 0 : 1;
  } finally {
    await stopAll();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
