// CPU cost of GET /v1/catalog and GET /v1/fast-path on a 1,000-skill shelf, as requests through
// the read surface's /v1 chain (CORS, security headers, read access, the request's shelf service,
// the contract's query validation, the computed-answer cache, the core's renderCatalog) in Node's
// V8 over in-memory R2 and KV bindings, side by side with the baseline the CLI pays:
// renderCatalog over the same 1,000 skills' metadata alone. The chain is assembled here from the
// same middleware src/worker/routes/index.ts uses, so the figures are the /v1 chain's alone
// (bench/search.bench.ts goes through the whole app). The budget is under 5 ms CPU on a miss and a hit.
// Run: npm run bench. Not a test: nothing here asserts.
import { cpus, loadavg } from "node:os";
import { Hono, type MiddlewareHandler } from "hono";
import { renderCatalog, type CatalogOptions } from "../src/core/disclosure/catalog.ts";
import type { SkillMetadata } from "../src/core/skill/skill.ts";
import { benchSkill, cpuPerCall, emptyKv, MemoryBucket, publishInMemory, type Cpu } from "./harness.ts";

/**
 * A Worker module, loaded untyped: its sources use the Workers types (R2Bucket, FixedLengthStream),
 * which the Node type check that covers bench/ does not have. The shapes used are declared below.
 */
async function workerModule<T>(path: string): Promise<T> {
  const url = new URL(`../src/worker/${path}`, import.meta.url).href;
  return (await import(url)) as T;
}

interface ApiAppLike {
  onError(handler: unknown): void;
}
const { buildCatalog, catalogArgs, catalogRoutes } = await workerModule<{
  buildCatalog(served: unknown[], args: unknown): unknown;
  catalogArgs(query: Record<string, string>): unknown;
  catalogRoutes(app: ApiAppLike): void;
}>("api/catalog.ts");
const { resetComputedCache } = await workerModule<{ resetComputedCache(): void }>("api/respond.ts");
const { handleApiError } = await workerModule<{ handleApiError: unknown }>("api/problem.ts");
const { apiApp } = await workerModule<{ apiApp(): ApiAppLike & Hono }>("api/routes.ts");
const { readAccess } = await workerModule<{ readAccess(): MiddlewareHandler }>("auth/read-access.ts");
const { strictSecurityHeaders } = await workerModule<{ strictSecurityHeaders(): MiddlewareHandler }>("http/headers.ts");
const { openShelf } = await workerModule<{ openShelf(): MiddlewareHandler }>("routes/context.ts");
const { shelfCors } = await workerModule<{ shelfCors(): MiddlewareHandler }>("routes/policy.ts");
const { ShelfService } = await workerModule<{ ShelfService: new (env: object) => { skills(): Promise<unknown[]> } }>("shelf/service.ts");
const { resetStorageMemory } = await workerModule<{ resetStorageMemory(): void }>("storage/index.ts");

const encoder = new TextEncoder();
const SKILLS = 1_000;

/** A SKILL.md of typical size with every catalog field (the same shape bench/disclosure.bench.ts renders). */
function skillMd(i: number): string {
  const id = String(i).padStart(5, "0");
  const lines = [
    `name: skill-${id}`,
    `description: ${JSON.stringify(`Skill ${id} handles <incidents> & reviews for team ${i % 17}: a description of typical length, around one hundred and fifty characters.`)}`,
    ...(i % 3 === 0 ? [`version: 1.${i % 10}.0`] : []),
    "when_to_use:",
    `  - "When the request mentions topic ${i % 23}"`,
    '  - "When a checklist is needed"',
    ...(i % 2 === 0 ? ["when_not_to_use:", '  - "Never for unrelated chores"'] : []),
    "metadata:",
    `  tags: "team-${i % 17}, ${i % 5 === 0 ? "Ops" : "dev"}"`,
  ];
  return `---\n${lines.join("\n")}\n---\n\n# Skill ${id}\n\nFollow the steps.\n`;
}

async function seedShelf(bucket: MemoryBucket): Promise<SkillMetadata[]> {
  const skills = [];
  for (let i = 0; i < SKILLS; i++) {
    skills.push(await benchSkill(`skill-${String(i).padStart(5, "0")}`, [{ path: "SKILL.md", bytes: encoder.encode(skillMd(i)) }]));
  }
  await publishInMemory(
    bucket,
    skills.map((s) => s.input),
  );
  return skills.map((s) => s.metadata);
}

const row = (label: string, cpu: Cpu) => console.log(`${label.padEnd(72)} ${cpu.process.toFixed(3).padStart(8)} ms ${cpu.thread.toFixed(3).padStart(8)} ms`);

/** The read surface's /v1 chain with the catalog group bound (src/worker/routes/index.ts, src/worker/api/index.ts). */
function readApiApp(): Hono {
  const api = apiApp();
  api.onError(handleApiError);
  catalogRoutes(api);
  const app = new Hono();
  app.use("*", shelfCors());
  app.use("/v1/*", strictSecurityHeaders(), readAccess(), openShelf());
  app.route("/", api);
  return app;
}
const app = readApiApp();

const bucket = new MemoryBucket();
const metas = await seedShelf(bucket);
const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(), SHELF_VISIBILITY: "public" };

/** One request through the whole Worker app, its body read as bytes. */
async function request(path: string, init: RequestInit = {}): Promise<Uint8Array> {
  const res = await app.request(`https://shelf.test${path}`, init, bindings);
  if (res.status !== 200 && res.status !== 304) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const [load1] = loadavg();
console.log(
  `${SKILLS} skills; the /v1 chain in node ${process.versions.node} (${process.platform}/${process.arch}, ${cpus().length} CPUs, load ${load1!.toFixed(1)}), in-memory R2, empty KV`,
);
console.log(`${"".padEnd(72)} ${"process".padStart(11)} ${"main thread".padStart(11)}\n`);

const cases: Array<[string, CatalogOptions]> = [
  ["", {}],
  ["?format=markdown", { format: "markdown" }],
  ["?max_chars=8000", { maxChars: 8000 }],
  ["?tags=ops,team-3&total=1000&selection_hints=false&format=markdown", { tags: ["ops", "team-3"], total: 1000, selectionHints: false, format: "markdown" }],
];
const decoder = new TextDecoder();
for (const [query, options] of cases) {
  const path = `/v1/catalog${query}`;
  const body = decoder.decode(await request(path));
  if (body !== renderCatalog(metas, options)) throw new Error(`${path} differs from renderCatalog`);
  const args = catalogArgs(Object.fromEntries(new URLSearchParams(query)));
  console.log(`${path}  (${(body.length / 1024).toFixed(0)} KiB)`);
  row("  baseline: renderCatalog over the skills' metadata alone (the CLI's work)", await cpuPerCall(() => renderCatalog(metas, options), 50));
  row(
    "  view: shelf.skills() (shards in memory) + buildCatalog",
    await cpuPerCall(async () => buildCatalog(await new ShelfService(bindings).skills(), args), 50),
  );
  row("  GET, miss on a warm isolate (shards in memory)", await cpuPerCall(() => request(path), 50, resetComputedCache));
  row("  GET, hit (the computed answer from isolate memory)", await cpuPerCall(() => request(path), 50));
  row(
    "  GET, miss on a cold isolate (pointer, manifest, 16 shards read from R2)",
    await cpuPerCall(
      () => request(path),
      15,
      () => {
        resetComputedCache();
        resetStorageMemory();
      },
    ),
  );
}

row(
  "for contrast: opening the same storage alone (cold isolate: shelf.skills())",
  await cpuPerCall(() => new ShelfService(bindings).skills(), 15, resetStorageMemory),
);
const etag = (await app.request("https://shelf.test/v1/catalog", {}, bindings)).headers.get("ETag")!;
row("GET /v1/catalog with its ETag (304 from the key alone)", await cpuPerCall(() => request("/v1/catalog", { headers: { "If-None-Match": etag } }), 50));
row("GET /v1/fast-path (1,000 in play, no body read), miss", await cpuPerCall(() => request("/v1/fast-path"), 50, resetComputedCache));
row("GET /v1/fast-path, hit", await cpuPerCall(() => request("/v1/fast-path"), 50));
row(
  "GET /v1/fast-path?include=skill-00007 (its body in memory), miss",
  await cpuPerCall(() => request("/v1/fast-path?include=skill-00007"), 50, resetComputedCache),
);
