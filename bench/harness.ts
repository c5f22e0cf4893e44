// What every benchmark that runs the Worker in Node shares: in-memory stand-ins for the R2 and
// KV bindings (what the read path calls: get with ranges, head; KV that holds nothing, so every
// read falls back to R2, as on a shelf whose KV copies expired), optionally counting each call,
// the CPU-per-call measurement every table reports, and a generated shelf stored as a publish
// leaves it.
import { cpus, loadavg } from "node:os";
import { assembleGeneration, describeSkill, type BuiltGeneration, type SkillBuildInput } from "../src/core/generation/assemble.ts";
import { ADVISORIES_SCHEMA, POINTER_SCHEMA } from "../src/core/generation/manifest.ts";
import { buildInventory } from "../src/core/skill/inventory.ts";
import type { SkillFile, SkillMetadata } from "../src/core/skill/skill.ts";
import { validateSkillMd } from "../src/core/skill/validate.ts";
import { R2_ADVISORIES_KEY, R2_POINTER_KEY, r2Key } from "../src/worker/storage/keys.ts";
import { median, ms, ratio } from "./report.ts";

/** A storage call the read path makes, as the counting benchmarks name it. */
export type StorageCall = "R2.get" | "R2.head" | "KV.get";

const encoder = new TextEncoder();

/** In-memory R2: get (with ranges) and head as the read path calls them; put seeds it, uncounted. */
export class MemoryBucket {
  readonly objects = new Map<string, Uint8Array>();
  readonly #onCall: (call: StorageCall) => void;

  constructor(onCall: (call: StorageCall) => void = () => {}) {
    this.#onCall = onCall;
  }

  async put(key: string, value: Uint8Array | string): Promise<void> {
    this.objects.set(key, typeof value === "string" ? encoder.encode(value) : value);
  }

  async get(key: string, options: { range?: { offset: number; length: number } } = {}) {
    this.#onCall("R2.get");
    const stored = this.objects.get(key);
    if (stored === undefined) return null;
    const bytes = options.range ? stored.slice(options.range.offset, options.range.offset + options.range.length) : stored;
    return {
      key,
      size: stored.byteLength,
      text: async () => new TextDecoder().decode(bytes),
      arrayBuffer: async () => bytes.slice().buffer,
      get body() {
        return new Response(bytes).body;
      },
    };
  }

  async head(key: string) {
    this.#onCall("R2.head");
    const stored = this.objects.get(key);
    return stored === undefined ? null : { key, size: stored.byteLength, checksums: {} };
  }
}

/** In-memory KV that holds nothing: every read falls back to R2. */
export function emptyKv(onCall: (call: StorageCall) => void = () => {}) {
  return {
    async get(key: string | string[]) {
      onCall("KV.get");
      return Array.isArray(key) ? new Map(key.map((k) => [k, null])) : null;
    },
  };
}

/** Mean CPU milliseconds per call: the whole process (GC threads included) and the main thread. */
export interface Cpu {
  process: number;
  thread: number;
}

/**
 * Mean CPU per call over `runs` sequential calls, after warm-up and one full GC; `before` runs
 * inside the timed loop (it only clears a cache). GC during the loop is counted: it is part of
 * the cost. Each call awaits its own promise, and the bindings answer from memory, so no call
 * waits on I/O.
 * @example row("GET, hit", await cpuPerCall(() => request(path), 100))
 */
export async function cpuPerCall(fn: () => unknown, runs: number, before: () => void = () => {}): Promise<Cpu> {
  for (let i = 0; i < 3; i++) {
    before();
    await fn();
  }
  (globalThis as { gc?: () => void }).gc?.();
  const processStart = process.cpuUsage();
  const threadStart = process.threadCpuUsage();
  for (let i = 0; i < runs; i++) {
    before();
    await fn();
  }
  const processUsed = process.cpuUsage(processStart);
  const threadUsed = process.threadCpuUsage(threadStart);
  return { process: (processUsed.user + processUsed.system) / 1000 / runs, thread: (threadUsed.user + threadUsed.system) / 1000 / runs };
}

/** Measurements of several cases over rounds, each case's median taken field by field. */
export class CpuSamples {
  readonly #samples = new Map<string, Cpu[]>();

  add(key: string, cpu: Cpu): void {
    const list = this.#samples.get(key);
    if (list) list.push(cpu);
    else this.#samples.set(key, [cpu]);
  }

  /** The median of every measurement of `key` (process and main thread each on their own). */
  median(key: string): Cpu {
    const list = this.#samples.get(key);
    if (!list) throw new Error(`no measurement of ${key}`);
    return { process: median(list.map((c) => c.process)), thread: median(list.map((c) => c.thread)) };
  }
}

/** CPU as a table cell: whole process / main thread. */
export function cpuCell(cpu: Cpu): string {
  return `${ms(cpu.process)} / ${ms(cpu.thread)}`;
}

/** How much more `large` costs than `small` (process / main thread), e.g. `10.8× / 10.2×`. */
export function growthCell(small: Cpu, large: Cpu): string {
  return `${ratio(large.process, small.process)} / ${ratio(large.thread, small.thread)}`;
}

/** Storage calls as a table cell: the total and each kind, e.g. `3 (R2.get 2, KV.get 1)`; `0` for none. */
export function callsCell(calls: ReadonlyMap<StorageCall, number>): string {
  const total = [...calls.values()].reduce((a, b) => a + b, 0);
  return total === 0 ? "0" : `${total} (${[...calls].map(([kind, n]) => `${kind} ${n}`).join(", ")})`;
}

/** A generation's shards: how many, and their JSON's size (what an isolate parses and keeps to list its skills). */
export function shardFootprint(built: BuiltGeneration): { count: number; bytes: number } {
  const shards = built.objects.filter((o) => o.kind === "shard");
  return { count: shards.length, bytes: shards.reduce((sum, o) => sum + o.bytes.byteLength, 0) };
}

/**
 * A sentence for a growth table whose warm misses read storage on the larger shelf: an isolate
 * that cannot keep a generation's shards in memory re-reads them on every listing.
 */
export function storageNote(what: string, reads: string, shards: { count: number; bytes: number }): string {
  return `At this size a ${what} on a warm isolate is not warm: its storage calls are ${reads}, because the ${shards.count} shards (${(shards.bytes / 2 ** 20).toFixed(1)} MiB of JSON) do not fit the isolate's memory cache of parsed documents, so each listing reads again the ones evicted by the last; that, more than the work itself, is why those rows grow faster than the skills.`;
}

/** The machine's CPU count and 1-minute load average, for a section's first line: figures under load run high. */
export function machineLine(): string {
  return `${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}, Node ${process.versions.node}`;
}

/** A first-party skill ready for the build: validated (a bench skill must be valid), described, verdict first_party. */
export async function benchSkill(name: string, files: SkillFile[]): Promise<{ input: SkillBuildInput; metadata: SkillMetadata }> {
  const validation = validateSkillMd(name, files.find((f) => f.path === "SKILL.md")!.bytes);
  if (!validation.ok || !validation.metadata || !validation.parsed) throw new Error(`bench skill ${name} is invalid: ${JSON.stringify(validation.problems)}`);
  const verdict = { level: "first_party" as const, blocked: false, requires_review: false, attachable: true, reasons: [], warnings: [] };
  const record = describeSkill(validation.metadata, validation.parsed, await buildInventory(files), { source: "first-party", validations: [], verdict });
  return { input: { files, record }, metadata: validation.metadata };
}

/**
 * Builds a generation from `inputs` with the core's assembleGeneration and stores it in the
 * bucket in the layout docs/storage.md documents, current since one publish, no advisories.
 */
export async function publishInMemory(bucket: MemoryBucket, inputs: readonly SkillBuildInput[]): Promise<BuiltGeneration> {
  const built = await assembleGeneration(inputs, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
  });
  for (const object of built.objects) await bucket.put(r2Key(object.kind, object.sha256), object.bytes);
  await bucket.put(r2Key("generation", built.id), built.manifestBytes);
  await pointTo(bucket, built.id);
  await bucket.put(R2_ADVISORIES_KEY, JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories: [], seq: 1, updated_at: PUBLISHED_AT }));
  return built;
}

const PUBLISHED_AT = "2026-12-01T00:00:00.000Z";

/** Makes a stored generation the current one, as one publish would have (the pointer alone). */
export async function pointTo(bucket: MemoryBucket, generation: string): Promise<void> {
  const history = [{ seq: 1, generation, action: "publish", at: PUBLISHED_AT }];
  await bucket.put(R2_POINTER_KEY, JSON.stringify({ schema: POINTER_SCHEMA, generation, seq: 1, published_at: PUBLISHED_AT, history }));
}

/** A skill name of the in-process benches' shelf: skill-00000, skill-00001, … */
export const warmPathSkillName = (i: number): string => `skill-${String(i).padStart(5, "0")}`;

/** Skill i's SKILL.md on the in-process benches' shelf: a description of typical length, ~1.1 KiB in all. */
export function warmPathSkillMd(i: number): string {
  const description = JSON.stringify(`Skill ${i} handles incidents for team ${i % 17}: a description of typical length.`);
  return `---\nname: ${warmPathSkillName(i)}\ndescription: ${description}\nmetadata:\n  owner: team-${i % 17}\n---\n\n# Skill ${i}\n\nRead references/guide.md before you start.\n\n${"Step by step, with care.\n".repeat(40)}`;
}

/**
 * The in-process benches' shelf (warm-path.bench.ts, mcp-read-ab.ts): `count` skills of a SKILL.md
 * (warmPathSkillMd) and a ~2 KiB references/guide.md, plus whatever `extraFiles` gives a skill by
 * name, published into a MemoryBucket whose calls go to `onCall`; KV empty; a public shelf. Only
 * the skills' records are kept of the build's inputs (their files' digests), not the files.
 */
export async function warmPathShelf(
  count: number,
  onCall: (call: StorageCall) => void,
  extraFiles: (name: string) => SkillFile[] = () => [],
): Promise<{ bucket: MemoryBucket; env: CloudflareBindings; ctx: ExecutionContext; records: SkillBuildInput["record"][] }> {
  const bucket = new MemoryBucket(onCall);
  const inputs: SkillBuildInput[] = [];
  for (let i = 0; i < count; i++) {
    const name = warmPathSkillName(i);
    const files = [
      { path: "SKILL.md", bytes: encoder.encode(warmPathSkillMd(i)) },
      { path: "references/guide.md", bytes: encoder.encode(`# Guide ${i}\n\n${"The details, one line at a time.\n".repeat(60)}`) },
      ...extraFiles(name),
    ];
    inputs.push((await benchSkill(name, files)).input);
  }
  await publishInMemory(bucket, inputs);
  const env = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(onCall), SHELF_VISIBILITY: "public" } as unknown as CloudflareBindings;
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  return { bucket, env, ctx, records: inputs.map((input) => input.record) };
}
