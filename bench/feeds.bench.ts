// In-process CPU of a warm request to the big generated answers of a 10,000-skill shelf (issue 35):
// the Atom feeds (the shelf's and one skill's) over a history whose first publish added every
// skill (a change document of 10,000 entries, ~1.2 MiB), the v0.2 index and the Claude Code
// marketplace. The whole app (`app.fetch`) over in-memory R2 (bench/harness.ts, KV empty), body
// read to the end, mean CPU of the main thread per request after warm-up, and the storage calls of
// one warm request. What workerd adds (writing the body out, the storage simulators) is not here:
// the budget bench measures that. Also the v0.1 and root indexes (other body sizes) and a skill's
// feed asked for the first time in the isolate. Prints only (no docs section; docs/benchmarks.md
// quotes it in prose). Run: npm run bench -- --only feeds (--quick: 1,000 skills);
// FEEDS_BENCH_NO_BODY=1 leaves bodies unread, FEEDS_BENCH_PROFILE=<dir> writes a V8 profile of
// each route's timed requests there.
import { createHash } from "node:crypto";
import { actLikeWorkerdCrypto } from "./workerd-shims.ts";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { CHANGES_SCHEMA, type ChangeDocument } from "../src/core/changes/document.ts";
import { POINTER_SCHEMA } from "../src/core/generation/manifest.ts";
import app from "../src/worker/index.ts";
import { R2_POINTER_KEY, changesKey } from "../src/worker/storage/keys.ts";
import { benchSkill, cpuPerCall, emptyKv, MemoryBucket, publishInMemory, type StorageCall } from "./harness.ts";
import { ms, QUICK } from "./report.ts";

actLikeWorkerdCrypto();

const SKILLS = QUICK ? 1_000 : 10_000;
const RUNS = QUICK ? 20 : 30;
const BASE = "https://shelf.test";
const encoder = new TextEncoder();
const name = (i: number) => `skill-${String(i).padStart(5, "0")}`;
const AT = "2026-12-01T00:00:00.000Z";

const calls: Record<StorageCall, number> = { "R2.get": 0, "R2.head": 0, "KV.get": 0 };
const bucket = new MemoryBucket((call) => calls[call]++);
const t0 = performance.now();
const inputs = [];
for (let i = 0; i < SKILLS; i++) {
  const md = `---\nname: ${name(i)}\ndescription: "Skill ${i} handles incidents for team ${i % 17}: a description of typical length."\n---\n\n# Skill ${i}\n\nStep by step.\n`;
  inputs.push((await benchSkill(name(i), [{ path: "SKILL.md", bytes: encoder.encode(md) }])).input);
}
const built = await publishInMemory(bucket, inputs);
// The first publish's change document: every skill added.
const doc: ChangeDocument = {
  schema: CHANGES_SCHEMA,
  seq: 1,
  action: "publish",
  at: AT,
  generation: built.id,
  previous: null,
  added: inputs.map((input) => ({ name: input.record.name, version: null, tree_hash: input.record.tree_hash })),
  removed: [],
  changed: [],
  renamed: [],
  deprecated: [],
  undeprecated: [],
  blocked: [],
  unblocked: [],
};
const docText = JSON.stringify(doc);
const docSha = createHash("sha256").update(docText).digest("hex");
await bucket.put(changesKey(docSha), docText);
const history = [{ seq: 1, generation: built.id, action: "publish", at: AT, changes: docSha }];
await bucket.put(R2_POINTER_KEY, JSON.stringify({ schema: POINTER_SCHEMA, generation: built.id, seq: 1, published_at: AT, history }));
process.stdout.write(
  `${SKILLS} skills built and stored in ${((performance.now() - t0) / 1000).toFixed(0)} s; change document ${(docText.length / 2 ** 20).toFixed(2)} MiB\n`,
);

const env = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv((call) => calls[call]++), SHELF_VISIBILITY: "public" } as unknown as CloudflareBindings;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

const session = new Session();
// The last two: generated documents of other sizes, for how a hit's cost follows its body's size.
const routes = [
  "/ui/feed.xml",
  `/ui/skills/${name(1)}/feed.xml`,
  "/.well-known/agent-skills/index.json",
  "/.claude-plugin/marketplace.json",
  "/.well-known/skills/index.json",
  "/skills/index.json",
];
async function request(path: string): Promise<number> {
  const res = await app.fetch(new Request(`${BASE}${path}`), env, ctx);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  if (process.env.FEEDS_BENCH_NO_BODY === "1") {
    await res.body?.cancel();
    return Number(res.headers.get("Content-Length") ?? 0);
  }
  return (await res.arrayBuffer()).byteLength;
}

process.stdout.write(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n\n| route | body | warm CPU (main thread) | warm storage calls |\n| --- | --- | --- | --- |\n`,
);
for (const path of routes) {
  const bytes = await request(path);
  const profiling = process.env.FEEDS_BENCH_PROFILE;
  if (profiling) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
  }
  const cpu = await cpuPerCall(() => request(path), RUNS);
  if (profiling) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(`${profiling}/${path.replaceAll("/", "_")}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
  for (const k of Object.keys(calls) as StorageCall[]) calls[k] = 0;
  await request(path);
  const counted = Object.entries(calls)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  process.stdout.write(`| \`GET ${path}\` | ${(bytes / 1024).toFixed(0)} KiB | ${ms(cpu.thread)} | ${counted || "0"} |\n`);
}
// A skill's feed asked for the first time in this isolate (another skill each call): rendered from
// the change documents the isolate holds, if it holds them.
let next = 100;
const firstAsk = () => request(`/ui/skills/${name(next++)}/feed.xml`);
await firstAsk();
const firstCpu = await cpuPerCall(firstAsk, RUNS);
for (const k of Object.keys(calls) as StorageCall[]) calls[k] = 0;
await firstAsk();
process.stdout.write(
  `| \`GET /ui/skills/<another each time>/feed.xml\` (first ask) | 1 KiB | ${ms(firstCpu.thread)} | ${
    Object.entries(calls)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "0"
  } |\n`,
);
process.stdout.write(
  `\nload average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n`,
);
