// The advisories in force: read, and merged with a compare-and-swap on their R2 etag. A merge
// replaces an advisory with the same key (so a withdrawal takes effect) and never drops one.
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import { ADVISORIES_SCHEMA, AdvisoriesRecordSchema, type AdvisoriesRecord } from "../../core/generation/manifest.ts";
import type { AdvisoriesMerged } from "../../core/publish/contract.ts";
import type { AdvisoryEntry } from "../../core/trust/records.ts";
import { advisoryToDict } from "../../core/trust/serialize.ts";
import type { Clock } from "../storage/index.ts";
import { KV_ADVISORIES_KEY, R2_ADVISORIES_KEY } from "../storage/keys.ts";
import { adminError } from "./errors.ts";
import type { AdminStorage } from "./storage.ts";

/**
 * Merges advisories (stored form): the same key replaces (a withdrawal updates), nothing in
 * force is ever dropped. The key is the advisory_id, or else name, source, tree hash and reference.
 * @example mergeAdvisoryLists(inForce, [withdrawal]).length === inForce.length
 */
export function mergeAdvisoryLists(current: readonly Record<string, unknown>[], incoming: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const keyOf = (a: Record<string, unknown>) =>
    typeof a.advisory_id === "string" && a.advisory_id ? `id:${a.advisory_id}` : `nsr:${JSON.stringify([a.name, a.source, a.tree_hash ?? null, a.reference])}`;
  const merged = new Map<string, Record<string, unknown>>();
  for (const a of current) merged.set(keyOf(a), a);
  for (const a of incoming) merged.set(keyOf(a), a);
  return [...merged.values()];
}

/** The advisories in force, with the etag to replace them conditionally (null: none stored yet). */
export async function readAdvisories(storage: AdminStorage): Promise<{ record: AdvisoriesRecord; etag: string | null }> {
  const stored = await storage.getJson(R2_ADVISORIES_KEY);
  if (!stored) return { record: { schema: ADVISORIES_SCHEMA, advisories: [], seq: 0, updated_at: new Date(0).toISOString() }, etag: null };
  return { record: AdvisoriesRecordSchema.parse(stored.json), etag: stored.etag };
}

/**
 * Merges validated advisories into the ones in force and stores the result with a conditional
 * write, retrying twice when another writer got there first.
 */
export async function mergeAdvisories(
  storage: AdminStorage,
  clock: Clock,
  incoming: readonly AdvisoryEntry[],
  /** Called once the change is stored, with the advisories before and after (the history's advisory entry). */
  onChange: (before: AdvisoriesRecord, after: AdvisoriesRecord) => Promise<void> = async () => {},
): Promise<AdvisoriesMerged> {
  const entries = incoming.map(advisoryToDict);
  for (let attempt = 0; attempt < 3; attempt++) {
    const { record, etag } = await readAdvisories(storage);
    const merged = mergeAdvisoryLists(record.advisories, entries);
    // Canonical comparison: parsing may reorder keys, which is not a change.
    if (sameJson(merged, record.advisories)) return { record, changed: false };
    const next: AdvisoriesRecord = {
      schema: ADVISORIES_SCHEMA,
      advisories: merged as AdvisoriesRecord["advisories"],
      seq: record.seq + 1,
      updated_at: new Date(clock()).toISOString(),
    };
    const written = await storage.put(
      R2_ADVISORIES_KEY,
      JSON.stringify(next),
      { onlyIf: etag ? { etagMatches: etag } : { etagDoesNotMatch: "*" }, httpMetadata: { contentType: "application/json" } },
      "R2 did not store the advisories; nothing changed. Retry shortly",
    );
    if (written) {
      await storage.kvPut(KV_ADVISORIES_KEY, JSON.stringify(next));
      await onChange(record, next);
      return { record: next, changed: true };
    }
  }
  throw adminError("conflict", "the advisories changed under three attempts in a row; retry");
}

function sameJson(a: unknown, b: unknown): boolean {
  const x = canonicalJson(a);
  const y = canonicalJson(b);
  return x.length === y.length && x.every((byte, i) => byte === y[i]);
}
