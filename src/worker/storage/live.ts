// The two live (mutable) documents: the pointer to the current generation and the advisories in
// force. Each isolate keeps them in memory for LIVE_MEMORY_TTL_MS, then reads KV (which may lag a
// publish) and, every LIVE_R2_REVALIDATE_MS or when cold, R2; it never moves back to a lower seq.
import { AdvisoriesRecordSchema, PointerSchema } from "../../core/generation/manifest.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { AdvisoryEntrySchema, type AdvisoryEntry } from "../../core/trust/records.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { kvText, once, parseWith, r2Text, type RequestReads } from "./documents.ts";
import { StorageUnavailableError } from "./errors.ts";
import { KV_ADVISORIES_KEY, KV_POINTER_KEY, R2_ADVISORIES_KEY, R2_POINTER_KEY } from "./keys.ts";

/** How long an isolate trusts its copy of the pointer and advisories before re-reading KV. */
export const LIVE_MEMORY_TTL_MS = 30_000;
/** How often an isolate re-reads the pointer and advisories from R2, bypassing KV's lag. */
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

interface LiveValue<T> {
  value: T;
  seq: number;
  checkedAt: number;
  r2CheckedAt: number;
}

// Module state is per isolate.
const live: { pointer?: LiveValue<PointerSummary | null>; advisories?: LiveValue<AdvisoriesInForce | null> } = {};

/** Forgets the pointer and advisories (part of resetStorageMemory). */
export function resetLive(): void {
  delete live.pointer;
  delete live.advisories;
}

/** Reads a live key (pointer or advisories): memory, then KV, then R2, keeping the highest seq. */
async function readLive<T>(
  name: "pointer" | "advisories",
  clock: Clock,
  scope: RequestReads,
  load: (from: "kv" | "r2") => Promise<{ value: T; seq: number } | null>,
): Promise<T | null> {
  const now = clock();
  const state = live[name] as LiveValue<T | null> | undefined;
  if (state && now - state.checkedAt < LIVE_MEMORY_TTL_MS) return state.value;
  return once(scope, `live:${name}`, async () => {
    // A cold isolate and a periodic revalidation read R2, which is strongly consistent; in
    // between, KV answers (it may lag a publish by its propagation delay).
    const fromR2 = !state || now - state.r2CheckedAt >= LIVE_R2_REVALIDATE_MS;
    let fetched = fromR2 ? null : await load("kv");
    let r2CheckedAt = state?.r2CheckedAt ?? now;
    if (fetched === null) {
      fetched = await load("r2");
      r2CheckedAt = now;
    }
    // Compare with the live value as it is now, not as it was when this load started: another
    // request may have stored a newer seq while this one waited on a lagging KV edge.
    const latest = live[name] as LiveValue<T | null> | undefined;
    const r2At = Math.max(r2CheckedAt, latest?.r2CheckedAt ?? 0);
    if (fetched === null) {
      // Never go back to "nothing" once something was seen; remember "nothing yet" for the TTL
      // too, so an unpublished shelf (or one without advisories) costs no read per request.
      const kept = latest ?? { value: null, seq: 0, checkedAt: now, r2CheckedAt };
      (live as Record<string, LiveValue<T | null>>)[name] = { ...kept, checkedAt: Math.max(now, kept.checkedAt), r2CheckedAt: r2At };
      return kept.value;
    }
    const keep = latest && latest.seq > fetched.seq ? latest : { value: fetched.value, seq: fetched.seq };
    (live as Record<string, LiveValue<T | null>>)[name] = { value: keep.value, seq: keep.seq, checkedAt: Math.max(now, latest?.checkedAt ?? 0), r2CheckedAt: r2At };
    return keep.value;
  });
}

/** The current pointer; null when nothing has been published. */
export async function loadPointer(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<PointerSummary | null> {
  return readLive<PointerSummary>("pointer", clock, budget, async (from) => {
    const text = from === "kv" ? await kvText(env, KV_POINTER_KEY, KV_LIVE_CACHE_TTL_S, budget) : await r2Text(env, R2_POINTER_KEY);
    if (text === null) return null;
    if (from === "kv") {
      try {
        const v = JSON.parse(text) as PointerSummary;
        // A malformed copy (a bad manual `kv put`, a truncated value) falls back to R2 below.
        if (typeof v.generation === "string" && isSha256Hex(v.generation) && Number.isSafeInteger(v.seq) && typeof v.published_at === "string") {
          return { value: { generation: v.generation, seq: v.seq, published_at: v.published_at }, seq: v.seq };
        }
      } catch {
        // fall through to R2
      }
      return null;
    }
    const pointer = parseWith(PointerSchema, text, R2_POINTER_KEY);
    return { value: { generation: pointer.generation, seq: pointer.seq, published_at: pointer.published_at }, seq: pointer.seq };
  });
}

/** The advisories in force now; none (seq 0) when none were ever published. */
export async function loadAdvisories(env: StorageBindings, clock: Clock, budget: RequestReads): Promise<AdvisoriesInForce> {
  const value = await readLive<AdvisoriesInForce>("advisories", clock, budget, async (from) => {
    const text = from === "kv" ? await kvText(env, KV_ADVISORIES_KEY, KV_LIVE_CACHE_TTL_S, budget) : await r2Text(env, R2_ADVISORIES_KEY);
    if (text === null) return null;
    const parsed = AdvisoriesRecordSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      if (from === "kv") return null;
      throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} does not match its schema`);
    }
    const advisories: AdvisoryEntry[] = [];
    for (const raw of parsed.data.advisories) {
      const entry = AdvisoryEntrySchema.safeParse(raw);
      if (!entry.success) {
        if (from === "kv") return null;
        throw new StorageUnavailableError(`${R2_ADVISORIES_KEY} holds a malformed advisory`);
      }
      advisories.push(entry.data);
    }
    return { value: { advisories, seq: parsed.data.seq }, seq: parsed.data.seq };
  });
  return value ?? { advisories: [], seq: 0 };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
