// The live (mutable) documents: the pointer to the current generation, the advisories in force and
// the version index (versions.ts). R2 alone decides them: an isolate serves what R2 said at its last read, keeps it in
// memory for LIVE_MEMORY_TTL_MS, then asks KV only whether something changed (a higher seq),
// confirms any change against R2, and re-reads R2 at least every LIVE_R2_REVALIDATE_MS.
import { AdvisoriesRecordSchema, PointerSchema } from "../../core/generation/manifest.ts";
import { AdvisoryEntrySchema, type AdvisoryEntry } from "../../core/trust/records.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { kvRead, once, parseWith, r2Text, type RequestReads } from "./documents.ts";
import { StorageUnavailableError } from "./errors.ts";
import { KV_ADVISORIES_KEY, KV_POINTER_KEY, R2_ADVISORIES_KEY, R2_POINTER_KEY } from "./keys.ts";

/** How long an isolate trusts its copy of the pointer and advisories before asking KV for a change. */
export const LIVE_MEMORY_TTL_MS = 30_000;
/**
 * The Worker variable that shortens LIVE_MEMORY_TTL_MS (clamped to 0..LIVE_MEMORY_TTL_MS). `npm
 * start` sets it to 0 so a local publish shows on the next request; 0 reads R2 on every request.
 */
export const LIVE_TTL_VAR = "SHELF_LIVE_TTL_MS";

/** The memory TTL this Worker runs with: SHELF_LIVE_TTL_MS when set and a number, else the default. */
export function liveTtlMs(env: object): number {
  const raw = (env as Record<string, unknown>)[LIVE_TTL_VAR];
  const ms = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
  return Number.isFinite(ms) ? Math.min(Math.max(Math.floor(ms), 0), LIVE_MEMORY_TTL_MS) : LIVE_MEMORY_TTL_MS;
}

/** How often an isolate re-reads the pointer and advisories from R2, whatever KV says. */
export const LIVE_R2_REVALIDATE_MS = 300_000;
/** KV edge-cache TTL for the live keys (KV's minimum). */
const KV_LIVE_CACHE_TTL_S = 30;

/** What a request needs of the pointer: which generation is current, and since which move. */
export interface PointerSummary {
  generation: string;
  seq: number;
  published_at: string;
}

/** The advisories in force: the list and the sequence number of its last change. */
export interface AdvisoriesInForce {
  advisories: readonly AdvisoryEntry[];
  seq: number;
}

/** What KV says of a live document: only its seq counts (and its text, to recognise a repeat). */
export interface KvAnnouncement {
  seq: number;
  text: string;
}

/** A live document's two sources: KV, which can only announce a change, and R2, which decides. */
export interface LiveSources<T> {
  /** KV's copy; null on a miss, a failure or a copy without a seq. */
  kv(): Promise<KvAnnouncement | null>;
  /** R2's document; null when R2 holds none. Throws StorageUnavailableError when R2 fails. */
  r2(): Promise<{ value: T; seq: number } | null>;
}

interface LiveValue<T> {
  /** What R2 said at the read this value came from; null when R2 held no such document. */
  value: T | null;
  seq: number;
  /** When memory was last refreshed: an R2 read, or a KV read that announced no change. */
  checkedAt: number;
  /** When R2 was last read. */
  r2CheckedAt: number;
  /** Start order of the R2 read the value came from: of two overlapping reads, the later-started wins. */
  r2Read: number;
  /** A KV text that announced a change R2 did not show: not confirmed again while KV repeats it. */
  refuted: string | null;
}

/** The live documents: the pointer, the advisories in force, and the version index (storage/versions.ts). */
export type LiveName = "pointer" | "advisories" | "versions";

// Module state is per isolate.
const live: Partial<Record<LiveName, LiveValue<unknown>>> = {};
let r2ReadsStarted = 0;

/** Forgets the pointer and advisories (part of resetStorageMemory). */
export function resetLive(): void {
  delete live.pointer;
  delete live.advisories;
  delete live.versions;
}

/**
 * Reads a live document (pointer or advisories). Memory answers for `ttl` (LIVE_MEMORY_TTL_MS unless SHELF_LIVE_TTL_MS shortens it); then KV
 * is asked whether the seq moved past the one R2 gave; if it did (or KV has nothing usable, or
 * LIVE_R2_REVALIDATE_MS passed since the last R2 read, or the isolate is cold), R2 is read and
 * what it says is kept, whatever seq KV or memory held. So a KV value is never served: a forged
 * or damaged one costs at most one R2 read, and a lagging one delays nothing past the R2 bound.
 */
export async function readLive<T>(name: LiveName, clock: Clock, scope: RequestReads, sources: LiveSources<T>, ttl: number): Promise<T | null> {
  const now = clock();
  const state = live[name] as LiveValue<T> | undefined;
  if (state && now - state.checkedAt < ttl) return state.value;
  return once(scope, `live:${name}`, async () => {
    let announced: KvAnnouncement | null = null;
    // With no memory TTL (local development) KV's own edge cache would be the lag: ask R2.
    if (state && ttl > 0 && now - state.r2CheckedAt < LIVE_R2_REVALIDATE_MS) {
      const kv = await sources.kv();
      // Compare with the live value as it is now: another request may have read R2 meanwhile.
      const latest = (live[name] as LiveValue<T> | undefined) ?? state;
      if (kv !== null && (kv.seq <= latest.seq || kv.text === latest.refuted)) {
        // No change (or KV lags, or repeats what R2 already refuted): R2's value stands.
        store(name, { ...latest, checkedAt: Math.max(now, latest.checkedAt) });
        return latest.value;
      }
      announced = kv;
    }
    const order = ++r2ReadsStarted;
    const fromR2 = await sources.r2();
    const latest = live[name] as LiveValue<T> | undefined;
    // An R2 read that started after this one already answered: it is at least as new.
    if (latest && latest.r2Read > order) return latest.value;
    const seq = fromR2?.seq ?? 0;
    let refuted = latest?.refuted ?? null;
    if (announced !== null && announced.seq > seq) {
      // KV is written after R2, so a KV seq R2 does not reach is no lag: the copy is forged or damaged.
      console.warn(`KV ${name} announces seq ${announced.seq} but R2 holds seq ${seq}; serving R2's`);
      refuted = announced.text;
    }
    store(name, { value: fromR2?.value ?? null, seq, checkedAt: now, r2CheckedAt: now, r2Read: order, refuted });
    return fromR2?.value ?? null;
  });
}

/**
 * What memory holds of a live document while it still answers for it (within `ttl`, as readLive
 * decides), read synchronously; undefined when readLive would ask KV or R2.
 */
export function liveFromMemory<T>(name: LiveName, now: number, ttl: number): { value: T | null } | undefined {
  const state = live[name] as LiveValue<T> | undefined;
  return state && now - state.checkedAt < ttl ? { value: state.value } : undefined;
}

function store<T>(name: LiveName, value: LiveValue<T>): void {
  (live as Record<string, LiveValue<T>>)[name] = value;
}

/**
 * The seq a KV copy of a live document announces; null when it has none usable (read R2 instead):
 * a failure, a copy without a seq, or a miss, unless `absent` says what a miss announces.
 */
export async function kvAnnouncement(
  env: StorageBindings,
  key: string,
  budget: RequestReads,
  absent: KvAnnouncement | null = null,
): Promise<KvAnnouncement | null> {
  const text = await kvRead(env, key, KV_LIVE_CACHE_TTL_S, budget);
  if (text === undefined) return null;
  if (text === null) return absent;
  const seq = (safeJson(text) as { seq?: unknown } | undefined)?.seq;
  return typeof seq === "number" && Number.isSafeInteger(seq) && seq >= 0 ? { seq, text } : null;
}

/** The current pointer, as R2 last said; null when nothing has been published. */
export async function loadPointer(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<PointerSummary | null> {
  return readLive<PointerSummary>(
    "pointer",
    clock,
    budget,
    {
      kv: () => kvAnnouncement(env, KV_POINTER_KEY, budget),
      r2: async () => {
        const text = await r2Text(env, R2_POINTER_KEY);
        if (text === null) return null;
        const pointer = parseWith(PointerSchema, text, R2_POINTER_KEY);
        return { value: { generation: pointer.generation, seq: pointer.seq, published_at: pointer.published_at }, seq: pointer.seq };
      },
    },
    liveTtlMs(env),
  );
}

/**
 * What a KV miss of `advisories` announces: none, seq 0. The admin API writes that key with every
 * advisories change (R2 first), so no key is what KV holds for a shelf that never had an advisory:
 * the quiet state is cached in KV as the key's absence, and a quiet shelf's isolates confirm it
 * there every LIVE_MEMORY_TTL_MS instead of reading R2 (which they still do every
 * LIVE_R2_REVALIDATE_MS, and at once when KV announces a seq above R2's).
 */
const NO_ADVISORIES_ANNOUNCED: KvAnnouncement = { seq: 0, text: "" };

/** The advisories in force now, as R2 last said; none (seq 0) when none were ever published. */
export async function loadAdvisories(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<AdvisoriesInForce> {
  const value = await readLive<AdvisoriesInForce>(
    "advisories",
    clock,
    budget,
    {
      kv: () => kvAnnouncement(env, KV_ADVISORIES_KEY, budget, NO_ADVISORIES_ANNOUNCED),
      r2: async () => {
        const text = await r2Text(env, R2_ADVISORIES_KEY);
        if (text === null) return null;
        const parsed = AdvisoriesRecordSchema.safeParse(safeJson(text));
        if (!parsed.success) throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} does not match its schema`);
        const advisories: AdvisoryEntry[] = [];
        for (const raw of parsed.data.advisories) {
          const entry = AdvisoryEntrySchema.safeParse(raw);
          if (!entry.success) throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} holds a malformed advisory`);
          advisories.push(entry.data);
        }
        return { value: { advisories, seq: parsed.data.seq }, seq: parsed.data.seq };
      },
    },
    liveTtlMs(env),
  );
  return value ?? NO_ADVISORIES;
}

/** No advisories ever published: one object, so what a listing derives from the advisories it was judged under is kept (shelf/service.ts). */
const NO_ADVISORIES: AdvisoriesInForce = Object.freeze({ advisories: Object.freeze([]) as readonly AdvisoryEntry[], seq: 0 });

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
