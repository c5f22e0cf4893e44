// Garbage collection: list what is stored, walk the generation graph from what must be kept
// (the current generation, the most recent ones in the history, and everything younger than the
// grace period, never under MIN_GC_GRACE_SECONDS so a publish in flight keeps what it uploaded)
// to its live set, and delete the rest, parents first, under gc's lease and within
// one invocation's operations; change documents go once no history entry names them.
import { OBJECT_KINDS_TOP_DOWN, walkGeneration, type DocumentKind, type ObjectKind } from "../../core/generation/graph.ts";
import type { Pointer } from "../../core/generation/manifest.ts";
import { DEFAULT_GC_GRACE_SECONDS, DEFAULT_GC_KEEP, MIN_GC_GRACE_SECONDS, type GcReport } from "../../core/publish/contract.ts";
import type { Clock } from "../storage/index.ts";
import {
  changesKey,
  kvKey,
  r2Key,
  r2Prefix,
  R2_CHANGES_PREFIX,
  R2_RENDERED_PREFIX,
  R2_SIGNATURE_SHARDS_PREFIX,
  R2_SIGNATURES_PREFIX,
  signaturesKey,
} from "../storage/keys.ts";
import { adminError } from "./errors.ts";
import type { ShelfError } from "../errors.ts";
import { GC_LEASE_MIN_LEFT_MS, GC_SETTLE_MS, releaseGcLease, takeGcLease } from "./gc-lease.ts";
import { readPointer } from "./pointer.ts";
import { pruneVersionIndex } from "./versions.ts";
import { NOTHING_CHANGED, type AdminStorage } from "./storage.ts";

/**
 * Most R2 reads one gc pass may do (list pages, manifests, shards, young records), staying far from
 * per-invocation limits. Shards carry their blob lists, so a 10,000-skill shelf needs ~300.
 */
export const GC_MAX_READS = 800;
/**
 * Most binding operations (R2 and KV calls, counted together) one gc invocation makes: the
 * platform allows about 1,000 per invocation. GC_OPERATION_MARGIN of them are kept spare.
 */
export const GC_MAX_OPERATIONS = 1_000;
export const GC_OPERATION_MARGIN = 50;

/** Time as gc sees it: the clock, the settle wait after taking the lease, and how to wait. */
export interface GcTiming {
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  /** GC_SETTLE_MS in production; tests pass 0. */
  settleMs: number;
}

/** What to collect: a dry run unless `apply`. */
export interface GcOptions {
  keep?: number;
  graceSeconds?: number;
  apply?: boolean;
}

/** Stored objects of one kind, by SHA-256: upload time and size. */
export type Listing = Map<string, { uploaded: number; size: number }>;

/** What one gc invocation has spent: R2 reads while planning, and every binding operation. */
interface GcBudget {
  reads: number;
  ops: number;
}

/**
 * The generations gc keeps besides young ones: the current one and the `keep` most recent
 * others in the pointer's history.
 */
export function keptGenerations(pointer: Pointer | null, keep: number): string[] {
  const kept = new Set<string>();
  if (pointer) {
    kept.add(pointer.generation);
    for (const h of pointer.history) {
      if (kept.size > keep) break;
      kept.add(h.generation);
    }
  }
  return [...kept];
}

/**
 * Where gc's walk of the live set starts: the kept generations, and every object uploaded after
 * `youngAfter` (an upload in flight, not yet referenced by any stored document).
 * @example liveRoots(listed, ["9f2c…"], Date.now() - 3_600_000).generation // => ["9f2c…", …young ones]
 */
export function liveRoots(listed: Record<ObjectKind, Listing>, keptIds: readonly string[], youngAfter: number): Record<ObjectKind, string[]> {
  const young = (kind: ObjectKind) => [...listed[kind]].filter(([, meta]) => meta.uploaded > youngAfter).map(([sha]) => sha);
  return { generation: [...keptIds, ...young("generation")], shard: young("shard"), record: young("record"), blob: young("blob") };
}

/** The stored signatures documents gc deletes: a generation's go with it (and any whose generation is gone already). */
export function doomedSignatures(signed: Iterable<string>, liveGenerations: ReadonlyMap<string, unknown>): string[] {
  return [...signed].filter((id) => !liveGenerations.has(id));
}

/**
 * The stored objects kept per generation (`<generation id>/<rest>`: signature shards, rendered
 * documents) gc deletes: those of the generations it does not keep.
 */
export function doomedPerGeneration(stored: Iterable<string>, liveGenerations: ReadonlyMap<string, unknown>): string[] {
  return [...stored].filter((rest) => !liveGenerations.has(rest.split("/")[0]!));
}

/**
 * The rendered documents (`<generation id>/<key digest>`, src/worker/read/rendered.ts) gc deletes:
 * those of the generations it does not keep, and any written before the pointer's newest history
 * entry (a publish, a rollback or an advisory change), which names another state than the one they
 * were built for: an older advisories seq, pointer seq or deployment. A copy that is still right
 * costs its next reader one rebuild; nothing else can tell the two apart (the key is a digest).
 */
export function doomedRendered(stored: Listing, liveGenerations: ReadonlyMap<string, unknown>, pointer: Pointer | null): string[] {
  const newest = Date.parse(pointer?.history[0]?.at ?? "");
  return [...stored]
    .filter(([rest, meta]) => !liveGenerations.has(rest.split("/")[0]!) || (!Number.isNaN(newest) && meta.uploaded < newest))
    .map(([rest]) => rest);
}

/**
 * The change documents gc deletes: those no entry of the pointer's history names any more (the
 * history dropped the entry), unless younger than the grace period (a move in flight writes its
 * document just before the pointer that names it). Kept exactly as long as the history is.
 */
export function doomedChanges(stored: Listing, pointer: Pointer | null, youngAfter: number): string[] {
  const named = new Set((pointer?.history ?? []).flatMap((h) => (h.changes ? [h.changes] : [])));
  return [...stored].filter(([sha, meta]) => !named.has(sha) && meta.uploaded <= youngAfter).map(([sha]) => sha);
}

/**
 * What gc deletes: every stored object outside the live set, by kind, and the report that
 * counts and samples them (20 keys per kind).
 */
export function planDeletions(
  listed: Record<ObjectKind, Listing>,
  live: Record<ObjectKind, ReadonlyMap<string, unknown>>,
  pass: Pick<GcReport, "applied" | "keep" | "grace_seconds" | "kept_generations">,
): { doomed: Record<ObjectKind, string[]>; report: GcReport } {
  const report: GcReport = {
    ...pass,
    deletable: { generation: 0, shard: 0, record: 0, blob: 0 },
    deletable_bytes: 0,
    deleted: { generation: 0, shard: 0, record: 0, blob: 0 },
    sample: { generation: [], shard: [], record: [], blob: [] },
  };
  const doomed: Record<ObjectKind, string[]> = { generation: [], shard: [], record: [], blob: [] };
  for (const kind of OBJECT_KINDS_TOP_DOWN) {
    for (const [sha, meta] of listed[kind]) {
      if (live[kind].has(sha)) continue;
      doomed[kind].push(sha);
      report.deletable[kind]++;
      report.deletable_bytes += meta.size;
      if (report.sample[kind].length < 20) report.sample[kind].push(sha);
    }
  }
  return { doomed, report };
}

/**
 * The grace period gc applies: what was asked, but never less than MIN_GC_GRACE_SECONDS, so the
 * objects of a publish in flight (uploaded, not yet referenced by any stored document) survive
 * a gc that asks for no grace at all.
 * @example effectiveGraceSeconds(0) // 3600
 */
export function effectiveGraceSeconds(requested: number): number {
  return Math.max(requested, MIN_GC_GRACE_SECONDS);
}

function tooLargeForGc(): ShelfError {
  return adminError(
    "gc_too_large",
    `this bucket needs more than ${GC_MAX_READS} reads for one gc pass; gc in one invocation does not support a shelf this large yet (see docs/storage.md)`,
  );
}

/**
 * One gc invocation. Everything a surviving object references survives; deletions go parents
 * first so a present object always has its children.
 * @example await new GarbageCollector(storage, { clock: Date.now, sleep, settleMs: GC_SETTLE_MS }).run({ keep: 5 })
 */
export class GarbageCollector {
  readonly #storage: AdminStorage;
  readonly #timing: GcTiming;
  /** When the lease this applying gc holds expires (ms since the epoch). */
  #leaseUntil = 0;

  constructor(storage: AdminStorage, timing: Partial<GcTiming> = {}) {
    this.#storage = storage;
    this.#timing = {
      clock: timing.clock ?? Date.now,
      sleep: timing.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      settleMs: timing.settleMs ?? GC_SETTLE_MS,
    };
  }

  /** Lists (and with `apply`, deletes, under gc's lease) what no kept generation references. */
  async run(options: GcOptions): Promise<GcReport> {
    const keep = options.keep ?? DEFAULT_GC_KEEP;
    const graceSeconds = options.graceSeconds ?? DEFAULT_GC_GRACE_SECONDS;
    if (!Number.isSafeInteger(keep) || keep < 0) throw adminError("invalid_request", "keep must be a whole number ≥ 0");
    if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) throw adminError("invalid_request", "grace_seconds must be a whole number ≥ 0");
    return this.#run(keep, effectiveGraceSeconds(graceSeconds), options.apply === true);
  }

  async #run(keep: number, graceSeconds: number, apply: boolean): Promise<GcReport> {
    const budget: GcBudget = { reads: 0, ops: 0 };
    if (!apply) return this.#collect(keep, graceSeconds, false, budget);
    budget.ops += 2; // the lease's head and put
    this.#leaseUntil = await takeGcLease(this.#storage, this.#timing.clock);
    try {
      // Uploads and pointer moves that checked before the lease existed finish first.
      if (this.#timing.settleMs > 0) await this.#timing.sleep(this.#timing.settleMs);
      return await this.#collect(keep, graceSeconds, true, budget);
    } finally {
      await releaseGcLease(this.#storage);
    }
  }

  async #collect(keep: number, graceSeconds: number, apply: boolean, budget: GcBudget): Promise<GcReport> {
    const youngAfter = this.#timing.clock() - graceSeconds * 1000;
    budget.ops++;
    const pointer = await readPointer(this.#storage);
    if (apply && !pointer) throw adminError("conflict", "nothing has been published yet, so gc cannot tell what to keep; publish first");
    const keptIds = keptGenerations(pointer?.pointer ?? null, keep);
    const listed: Record<ObjectKind, Listing> = {
      generation: await this.#list("generation", budget),
      shard: await this.#list("shard", budget),
      record: await this.#list("record", budget),
      blob: await this.#list("blob", budget),
    };
    // The live set: the kept generations and every young object (an upload in flight), and all
    // they reference. A stored shard's blob list was checked against its records when it was
    // stored, so only records no shard's list covers are read.
    const walk = await walkGeneration({
      roots: liveRoots(listed, keptIds, youngAfter),
      select: (kind, shas) => shas.filter((sha) => listed[kind].has(sha)),
      read: (kind, sha) => this.#readJson(kind, sha, budget),
      trustShardBlobLists: true,
    });

    const { doomed, report } = planDeletions(listed, walk.reached, { applied: apply, keep, grace_seconds: graceSeconds, kept_generations: keptIds });
    const signatures = [
      ...doomedSignatures((await this.#listKeys(R2_SIGNATURES_PREFIX, budget)).keys(), walk.reached.generation).map((id) => signaturesKey(id)),
      ...doomedPerGeneration((await this.#listKeys(R2_SIGNATURE_SHARDS_PREFIX, budget)).keys(), walk.reached.generation).map(
        (rest) => R2_SIGNATURE_SHARDS_PREFIX + rest,
      ),
    ];
    const rendered = doomedRendered(await this.#listKeys(R2_RENDERED_PREFIX, budget), walk.reached.generation, pointer?.pointer ?? null).map(
      (rest) => R2_RENDERED_PREFIX + rest,
    );
    const changes = doomedChanges(await this.#listKeys(R2_CHANGES_PREFIX, budget), pointer?.pointer ?? null, youngAfter);
    if (apply) {
      // The version index first, so it never names a generation that is gone (a read, a write, its KV announcement).
      budget.ops += 3;
      await pruneVersionIndex(this.#storage, this.#timing.clock, walk.reached.generation);
      await this.#deleteDoomed(doomed, report, budget);
      for (let i = 0; i < signatures.length; i += 1000) {
        budget.ops++;
        await this.#storage.delete(
          signatures.slice(i, i + 1000),
          "R2 failed while gc was deleting the signatures of collected generations; storage is consistent. Rerun gc --apply to continue",
        );
      }
      for (let i = 0; i < rendered.length; i += 1000) {
        budget.ops++;
        await this.#storage.delete(
          rendered.slice(i, i + 1000),
          "R2 failed while gc was deleting rendered listings (of collected generations, or built for an earlier state); storage is consistent. Rerun gc --apply to continue",
        );
      }
      for (let i = 0; i < changes.length; i += 1000) {
        budget.ops++;
        await this.#storage.delete(
          changes.slice(i, i + 1000).map((sha) => changesKey(sha)),
          "R2 failed while gc was deleting change documents the history no longer names; storage is consistent. Rerun gc --apply to continue",
        );
      }
    }
    return report;
  }

  /** Every object of a kind with its upload time and size (paginated list; ≤1000 per page). */
  #list(kind: ObjectKind, budget: GcBudget): Promise<Listing> {
    return this.#listKeys(r2Prefix(kind), budget);
  }

  /** Every object under a prefix, by the rest of its key, with its upload time and size. */
  async #listKeys(prefix: string, budget: GcBudget): Promise<Listing> {
    const out: Listing = new Map();
    let cursor: string | undefined;
    do {
      if (++budget.reads > GC_MAX_READS) throw tooLargeForGc();
      budget.ops++;
      const page = await this.#storage.list(prefix, cursor, NOTHING_CHANGED);
      for (const o of page.objects) out.set(o.key.slice(prefix.length), { uploaded: o.uploaded.getTime(), size: o.size });
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  }

  async #readJson(kind: DocumentKind, sha: string, budget: GcBudget): Promise<unknown> {
    if (++budget.reads > GC_MAX_READS) throw tooLargeForGc();
    budget.ops++;
    const stored = await this.#storage.getJson(r2Key(kind, sha));
    if (!stored) throw adminError("inconsistent", `${r2Key(kind, sha)} is referenced but missing; gc refuses to run on inconsistent storage`);
    return stored.json;
  }

  /**
   * Deletes parents first (R2, in bulk batches of 1,000 keys), each batch only while the lease
   * has GC_LEASE_MIN_LEFT_MS left, then the KV copies of the deleted documents, as many as the
   * invocation's remaining operations allow (GC_MAX_OPERATIONS, less what gc already did, the
   * lease release and GC_OPERATION_MARGIN). KV copies left behind are harmless: nothing
   * references them, and the next gc that deletes documents removes what it can of its own.
   */
  async #deleteDoomed(doomed: Record<ObjectKind, string[]>, report: GcReport, budget: GcBudget): Promise<void> {
    const done = () => OBJECT_KINDS_TOP_DOWN.map((k) => `${report.deleted[k]} ${k}(s)`).join(", ");
    for (const kind of OBJECT_KINDS_TOP_DOWN) {
      const keys = doomed[kind].map((sha) => r2Key(kind, sha));
      for (let i = 0; i < keys.length; i += 1000) {
        const left = this.#leaseUntil - this.#timing.clock();
        if (left < GC_LEASE_MIN_LEFT_MS) {
          throw adminError(
            "gc_lease_expiring",
            `gc stopped before deleting more ${kind}s: its lease has ${Math.max(0, Math.round(left / 1000))} s left (under ${GC_LEASE_MIN_LEFT_MS / 1000} s), so publishes could resume while it deletes. Deleted so far: ${done()}; storage is consistent. Rerun gc --apply to continue`,
          );
        }
        if (budget.ops + 2 > GC_MAX_OPERATIONS - GC_OPERATION_MARGIN) {
          // 2: this batch and the lease release. Only a bucket of hundreds of thousands of
          // objects gets here; what was deleted is consistent (parents first).
          throw adminError(
            "gc_operation_limit",
            `gc stopped before deleting more ${kind}s: it has used ${budget.ops} of the ${GC_MAX_OPERATIONS} operations one invocation allows. Deleted so far: ${done()}; storage is consistent. Rerun gc --apply to continue`,
          );
        }
        budget.ops++;
        await this.#storage.delete(
          keys.slice(i, i + 1000),
          `R2 failed while gc was deleting ${kind}s. Deleted so far: ${done()}; storage is consistent (parents go first). Rerun gc --apply to continue`,
        );
        report.deleted[kind] += Math.min(1000, keys.length - i);
      }
    }
    let kvAllowed = GC_MAX_OPERATIONS - GC_OPERATION_MARGIN - budget.ops - 1; // 1: the lease release
    for (const kind of OBJECT_KINDS_TOP_DOWN) {
      if (kind === "blob") continue; // blobs are never in KV
      for (const sha of doomed[kind]) {
        if (kvAllowed <= 0) return;
        kvAllowed--;
        budget.ops++;
        await this.#storage.kvDelete(kvKey(kind, sha));
      }
    }
  }
}
