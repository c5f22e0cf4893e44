// CPU and size of the shelf's pages on a 1,000-skill shelf (issue 16's budget: the home page under
// 200 KB of HTML and under 50 ms of Worker CPU warm), side by side with the baseline of the JSON
// the API pays for the same 100 skills (GET /v1/skills?limit=100). Requests go through the whole
// Worker app (every route group, its middleware, the computed-answer cache) in Node's V8 over
// in-memory R2 and an empty KV. Node cannot load the .tsx pages itself, so the app is bundled
// first with esbuild (the same JSX settings wrangler uses, from tsconfig). Run: npm run bench --
// --only pages. Not a test: nothing here asserts; the budget line says "within" or "OVER".
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { assembleGeneration, describeSkill, type SkillBuildInput } from "../src/core/generation/assemble.ts";
import { ADVISORIES_SCHEMA, POINTER_SCHEMA } from "../src/core/generation/manifest.ts";
import { buildInventory } from "../src/core/skill/inventory.ts";
import type { SkillFile } from "../src/core/skill/skill.ts";
import { validateSkillMd } from "../src/core/skill/validate.ts";
import { cpuCell, cpuPerCall, emptyKv, machineLine, MemoryBucket } from "./harness.ts";
import { QUICK, reportSection, table } from "./report.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SKILLS = 1_000;
const HOME_BUDGET_BYTES = 200 * 1024;
const HOME_BUDGET_MS = 50;
/** Calls per figure (mean), and for a cold isolate; quick mode only indicates. */
const RUNS = QUICK ? 10 : 50;
const COLD_RUNS = QUICK ? 3 : 10;
const encoder = new TextEncoder();

/** The Worker app and its caches' resets, from one bundle (so they share module state). */
interface Bundle {
  app: { request(url: string, init: RequestInit, env: object): Response | Promise<Response> };
  resetComputedCache(): void;
  resetStorageMemory(): void;
  resetSearchIndexCache(): void;
  resetBodyCache(): void;
}

async function bundleWorker(): Promise<Bundle> {
  const out = mkdtempSync(path.join(tmpdir(), "skillshelf-pages-bench-"));
  const file = path.join(out, "worker.mjs");
  await build({
    stdin: {
      contents: [
        'export { default as app } from "./src/worker/index.ts";',
        'export { resetComputedCache } from "./src/worker/read/respond.ts";',
        'export { resetStorageMemory } from "./src/worker/storage/index.ts";',
        'export { resetSearchIndexCache } from "./src/worker/shelf/search.ts";',
        'export { resetBodyCache } from "./src/worker/shelf/service.ts";',
      ].join("\n"),
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    tsconfig: path.join(ROOT, "tsconfig.json"),
    outfile: file,
    logLevel: "error",
  });
  try {
    return (await import(pathToFileURL(file).href)) as Bundle;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A SKILL.md of typical size: description, version, when to use, tags, a few sections. */
function skillMd(i: number): string {
  const id = String(i).padStart(5, "0");
  const front = [
    `name: skill-${id}`,
    `description: ${JSON.stringify(`Skill ${id} handles <incidents> & reviews for team ${i % 17}: a description of typical length, around one hundred and fifty characters.`)}`,
    ...(i % 3 === 0 ? [`version: 1.${i % 10}.0`] : []),
    "when_to_use:",
    `  - "When the request mentions topic ${i % 23}"`,
    "metadata:",
    `  tags: "team-${i % 17}, ${i % 5 === 0 ? "ops" : "dev"}, topic-${i % 23}"`,
  ];
  const sections = Array.from({ length: 6 }, (_, s) => `## Step ${s + 1}\n\nDo part ${s + 1} of the work for topic ${i % 23}; check it with \`make check\`.\n`);
  return `---\n${front.join("\n")}\n---\n\n# Skill ${id}\n\nFollow the steps.\n\n${sections.join("\n")}`;
}

/** R2 keys as src/worker/storage/keys.ts writes them (the bench seeds the layout docs/storage.md documents). */
const keys = { pointer: "pointer.json", advisories: "advisories.json", object: (kind: string, sha: string) => `${kind}s/${sha}` };

async function seedShelf(bucket: MemoryBucket, r2Key: (kind: string, sha: string) => string): Promise<void> {
  const inputs: SkillBuildInput[] = [];
  for (let i = 0; i < SKILLS; i++) {
    const files: SkillFile[] = [{ path: "SKILL.md", bytes: encoder.encode(skillMd(i)) }];
    const name = `skill-${String(i).padStart(5, "0")}`;
    const validation = validateSkillMd(name, files[0]!.bytes);
    if (!validation.ok || !validation.metadata || !validation.parsed) throw new Error(`bench skill ${name} is invalid: ${JSON.stringify(validation.problems)}`);
    const verdict = { level: "first_party" as const, blocked: false, requires_review: false, attachable: true, reasons: [], warnings: [] };
    inputs.push({
      files,
      record: describeSkill(validation.metadata, validation.parsed, await buildInventory(files), { source: "first-party", validations: [], verdict }),
    });
  }
  const built = await assembleGeneration(inputs, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
  });
  for (const object of built.objects) await bucket.put(r2Key(object.kind, object.sha256), object.bytes);
  await bucket.put(r2Key("generation", built.id), built.manifestBytes);
  const at = "2026-12-01T00:00:00.000Z";
  const history = [{ seq: 1, generation: built.id, action: "publish", at }];
  await bucket.put(keys.pointer, JSON.stringify({ schema: POINTER_SCHEMA, generation: built.id, seq: 1, published_at: at, history }));
  await bucket.put(keys.advisories, JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: [], seq: 1, updated_at: at }));
}

const worker = await bundleWorker();
const { r2Key } = (await import(pathToFileURL(path.join(ROOT, "src/worker/storage/keys.ts")).href)) as { r2Key(kind: string, sha: string): string };
const { R2_POINTER_KEY, R2_ADVISORIES_KEY } = (await import(pathToFileURL(path.join(ROOT, "src/worker/storage/keys.ts")).href)) as Record<string, string>;
keys.pointer = R2_POINTER_KEY!;
keys.advisories = R2_ADVISORIES_KEY!;
const bucket = new MemoryBucket();
await seedShelf(bucket, r2Key);
const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(), SHELF_VISIBILITY: "public", SHELF_CAPABILITY_URLS: "off", SHELF_DISCOVERY: "all" };
const BROWSER = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** One request through the whole app; its body's bytes. */
async function request(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Uint8Array> {
  const res = await worker.app.request(`https://shelf.test${pathAndQuery}`, { headers }, bindings);
  if (res.status !== 200 && res.status !== 304) throw new Error(`${pathAndQuery}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const coldIsolate = () => {
  worker.resetComputedCache();
  worker.resetStorageMemory();
  worker.resetSearchIndexCache();
  worker.resetBodyCache();
};

console.log(`${SKILLS} skills; the whole Worker app (esbuild bundle); ${machineLine()}; in-memory R2, empty KV`);

const cases: Array<[string, string, Record<string, string>]> = [
  ["GET `/` (home page 1 of 10, browser Accept)", "/", BROWSER],
  ["GET `/?page=7`", "/?page=7", BROWSER],
  ["GET `/?q=incidents+topic` (search)", "/?q=incidents+topic", BROWSER],
  ["GET `/?tag=ops` (tag filter)", "/?tag=ops", BROWSER],
  ["GET `/ui/skills/skill-00007` (rendered body, outline, files)", "/ui/skills/skill-00007", BROWSER],
  ["baseline: GET `/v1/skills?limit=100` (the same 100 skills as JSON)", "/v1/skills?limit=100", {}],
];
const rows: string[][] = [];
let home: { bytes: number; warm: number } | undefined;
for (const [label, url, headers] of cases) {
  const bytes = (await request(url, headers)).byteLength;
  const warm = await cpuPerCall(() => request(url, headers), RUNS, worker.resetComputedCache);
  const hit = await cpuPerCall(() => request(url, headers), RUNS);
  const cold = await cpuPerCall(() => request(url, headers), COLD_RUNS, coldIsolate);
  rows.push([label, `${(bytes / 1024).toFixed(1)} KiB`, cpuCell(warm), cpuCell(hit), cpuCell(cold)]);
  console.log(`${label} (${(bytes / 1024).toFixed(1)} KiB): miss warm ${cpuCell(warm)}, hit ${cpuCell(hit)}, miss cold ${cpuCell(cold)}`);
  if (url === "/") home = { bytes, warm: warm.process };
}
const budget = home
  ? `**Budget (issue 16):** home page ${(home.bytes / 1024).toFixed(1)} KiB < 200 KiB and ${home.warm.toFixed(1)} ms < ${HOME_BUDGET_MS} ms CPU on a warm miss: ${home.bytes < HOME_BUDGET_BYTES && home.warm < HOME_BUDGET_MS ? "within" : "OVER"}.`
  : "";
reportSection(
  "pages",
  [
    `${SKILLS.toLocaleString("en-US")} skills through the whole Worker app (esbuild bundle) in Node, in-memory R2, empty KV. CPU per request, mean of ${RUNS} sequential calls (${COLD_RUNS} cold) after warm-up and a forced GC: whole process / main thread; ${machineLine()}${QUICK ? "; **quick mode: indicative only**" : ""}.`,
    "",
    table(["Request", "Size", "Miss, warm isolate", "Hit", "Miss, cold isolate"], rows),
    "",
    budget,
  ].join("\n"),
);
