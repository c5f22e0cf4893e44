// CPU cost of GET /v1/search (and the find contract, GET /api/search) on a 1,000-skill shelf,
// through the whole Worker app (routing, read access, query validation, the computed-answer
// cache, the stored index) in Node's V8 over in-memory R2 and KV bindings, side by side with the
// baseline the stored index avoids: building the index from the entries on every request. The
// issue's budget is under 5 ms CPU on a cache miss and on a hit. Run: npm run bench. Not a test:
// nothing here asserts.
import { cpus, loadavg } from "node:os";
import { canonicalDocument } from "../src/core/generation/canonical-json.ts";
import { GenerationManifestSchema } from "../src/core/generation/manifest.ts";
import { buildSearchIndex, parseQuery, prepareSearchIndex, searchIndex } from "../src/core/search/bm25.ts";
import { resetComputedCache } from "../src/worker/api/respond.ts";
import app from "../src/worker/index.ts";
import { resetSearchIndexCache, searchShelf } from "../src/worker/shelf/search.ts";
import { ShelfService } from "../src/worker/shelf/service.ts";
import { resetStorageMemory, type StorageBindings } from "../src/worker/storage/index.ts";
import { r2Key } from "../src/worker/storage/keys.ts";
import { benchSkill, cpuPerCall, emptyKv, MemoryBucket, pointTo, publishInMemory, type Cpu } from "./harness.ts";

const encoder = new TextEncoder();
const SKILLS = 1_000;

// A vocabulary of 2,000 pseudo-words (deterministic syllable pairs), so the index has the spread
// of terms real descriptions give it, plus a few hundred common English words.
const SYLLABLES =
  "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo fu ga ge gi go gu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu".split(" ");
const RARE = Array.from(
  { length: 2_000 },
  (_v, i) => `${SYLLABLES[i % 45]}${SYLLABLES[Math.floor(i / 45) % 45]}${i % 7 === 0 ? "ing" : i % 5 === 0 ? "s" : "r"}`,
);
const COMMON =
  "review change deploy release test build incident database migration security upgrade api design write commit branch merge pipeline service team production alert error cache queue schema index table column version package library".split(
    " ",
  );
const word = (i: number, k: number) => (k % 3 === 0 ? COMMON[(i * 31 + k * 7) % COMMON.length]! : RARE[(i * 131 + k * 977) % RARE.length]!);
const words = (i: number, from: number, count: number) => Array.from({ length: count }, (_v, k) => word(i, from + k)).join(" ");

/** A SKILL.md of typical size: a ~200-character description, two when_to_use cases, three tags, a dozen headings. */
function skillMd(i: number): string {
  const id = String(i).padStart(5, "0");
  const sections = Array.from({ length: 12 }, (_v, s) => `## ${words(i, 100 + s * 3, 3)}\n\nStep ${s}.\n`).join("\n");
  return [
    "---",
    `name: skill-${id}`,
    `description: ${JSON.stringify(`Handle the ${words(i, 0, 14)} for the team, and say when an agent should use it: ${words(i, 20, 8)}.`)}`,
    "when_to_use:",
    `  - ${JSON.stringify(`When the request mentions ${words(i, 40, 5)}`)}`,
    `  - ${JSON.stringify(`When ${words(i, 50, 4)} is needed`)}`,
    "metadata:",
    `  tags: "${word(i, 60)}, ${word(i, 61)}, ${word(i, 63)}"`,
    "---",
    "",
    `# Skill ${id}`,
    "",
    "Follow the steps.",
    "",
    sections,
  ].join("\n");
}

/** Builds and stores the shelf; returns its generation id, its index's size, and the id of the same shelf without an index. */
async function seedShelf(bucket: MemoryBucket): Promise<{ id: string; indexBytes: number; legacyId: string }> {
  const inputs = [];
  for (let i = 0; i < SKILLS; i++) {
    inputs.push((await benchSkill(`skill-${String(i).padStart(5, "0")}`, [{ path: "SKILL.md", bytes: encoder.encode(skillMd(i)) }])).input);
  }
  const built = await publishInMemory(bucket, inputs);
  // The same shelf as published before search existed: its manifest without the index.
  const { search: _none, ...older } = GenerationManifestSchema.parse(built.manifest);
  const legacy = await canonicalDocument(older);
  await bucket.put(r2Key("generation", legacy.sha256), legacy.bytes);
  return { id: built.id, indexBytes: built.manifest.search!.size, legacyId: legacy.sha256 };
}

const row = (label: string, cpu: Cpu) => console.log(`${label.padEnd(76)} ${cpu.process.toFixed(3).padStart(8)} ms ${cpu.thread.toFixed(3).padStart(8)} ms`);

const bucket = new MemoryBucket();
const seeded = await seedShelf(bucket);
const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(), SHELF_VISIBILITY: "public" } as unknown as StorageBindings & { SHELF_VISIBILITY: string };

/** One request through the whole Worker app, its body read as bytes. */
async function request(path: string, init: RequestInit = {}): Promise<Uint8Array> {
  const res = await app.request(`https://shelf.test${path}`, init, bindings);
  if (res.status !== 200 && res.status !== 304) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const [load1] = loadavg();
console.log(
  `${SKILLS} skills, stored index ${(seeded.indexBytes / 1024).toFixed(0)} KiB; the Worker app in node ${process.versions.node} (${process.platform}/${process.arch}, ${cpus().length} CPUs, load ${load1!.toFixed(1)}), in-memory R2, empty KV`,
);
console.log(`${"".padEnd(76)} ${"process".padStart(11)} ${"main thread".padStart(11)}\n`);

const QUERY = `${word(7, 0)} ${word(7, 1)} review the ${word(7, 5)} before we deploy to production`;
const path = `/v1/search?q=${encodeURIComponent(QUERY)}`;
const answer = JSON.parse(new TextDecoder().decode(await request(path))) as { terms: string[]; results: Array<{ name: string }> };
if (answer.results.length === 0) throw new Error(`${path} found nothing`);
console.log(`${path}\n  terms ${answer.terms.join(" ")}; ${answer.results.length} results, first ${answer.results[0]!.name}`);

const entries = async () => (await new ShelfService(bindings).generation()).listSkills();
row(
  "  baseline: build the index from the entries, then rank (what the stored index avoids)",
  await cpuPerCall(async () => {
    const list = await entries();
    const index = prepareSearchIndex(buildSearchIndex(list.map((e) => ({ ...e, sections: [] }))));
    return searchIndex(index, parseQuery(QUERY).terms, { limit: 10 });
  }, 15),
);
row("  view: searchShelf with the index and shards in memory", await cpuPerCall(() => searchShelf(new ShelfService(bindings), parseQuery(QUERY), 10), 100));
row("  GET, miss on a warm isolate (index and shards in memory)", await cpuPerCall(() => request(path), 100, resetComputedCache));
row("  GET, hit (the computed answer from isolate memory)", await cpuPerCall(() => request(path), 100));
const etag = (await app.request(`https://shelf.test${path}`, {}, bindings)).headers.get("ETag")!;
row("  GET with its ETag (304 from the key alone)", await cpuPerCall(() => request(path, { headers: { "If-None-Match": etag } }), 100));
row(
  "  GET, miss on a cold isolate (pointer, manifest, 16 shards, the index read from R2)",
  await cpuPerCall(
    () => request(path),
    15,
    () => {
      resetComputedCache();
      resetStorageMemory();
      resetSearchIndexCache();
    },
  ),
);
row(
  "  GET, miss with only the index cold (read from R2, parsed and decoded)",
  await cpuPerCall(
    () => request(path),
    15,
    () => {
      resetComputedCache();
      resetSearchIndexCache();
    },
  ),
);
const find = `/api/search?q=${encodeURIComponent(QUERY)}&limit=20`;
row("  GET /api/search (the skills CLI's find), miss on a warm isolate", await cpuPerCall(() => request(find), 100, resetComputedCache));
row("  GET /api/search, hit", await cpuPerCall(() => request(find), 100));

await pointTo(bucket, seeded.legacyId);
resetStorageMemory();
console.log("\na generation published before the index (no manifest.search)");
row(
  "  GET, miss on a cold isolate (index built from the 16 shards' entries, then kept)",
  await cpuPerCall(
    () => request(path),
    15,
    () => {
      resetComputedCache();
      resetStorageMemory();
      resetSearchIndexCache();
    },
  ),
);
row("  GET, miss on a warm isolate (that index in memory)", await cpuPerCall(() => request(path), 100, resetComputedCache));
