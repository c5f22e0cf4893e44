// gc's lease on the shelf: a create-only R2 object that holds document uploads and pointer moves
// back while an applying gc lists and deletes, so gc never deletes an old object that a publish
// in flight has just relied on.
import type { Clock } from "../storage/index.ts";
import { R2_GC_LEASE_KEY } from "../storage/keys.ts";
import { adminError } from "./errors.ts";
import type { AdminStorage } from "./storage.ts";

/** How long gc's lease on the pointer holds pointer moves back (released as soon as gc is done). */
export const GC_LEASE_MS = 120_000;
/** gc deletes a batch only while its lease has at least this long left; otherwise it stops. */
export const GC_LEASE_MIN_LEFT_MS = 30_000;
/** How long gc waits after taking its lease, longer than any document upload or pointer move takes. */
export const GC_SETTLE_MS = 15_000;

function leaseUntil(lease: R2Object | null): number {
  return lease ? Date.parse(lease.customMetadata?.until ?? "") : Number.NaN;
}

/**
 * 503 gc_in_progress (with Retry-After, at most 30 s) while gc holds its lease: document uploads
 * and pointer moves wait, so gc's listing and deletions never interleave with an upload that
 * relies on an old object.
 */
export async function assertNoGcRunning(storage: AdminStorage, clock: Clock): Promise<void> {
  const lease = await storage.head(R2_GC_LEASE_KEY);
  const left = lease ? leaseUntil(lease) - clock() : 0;
  if (left > 0) {
    const seconds = Math.min(30, Math.ceil(left / 1000));
    throw adminError(
      "gc_in_progress",
      `garbage collection is deleting unreferenced objects; retry in ${seconds} s (nothing changed)`,
      {},
      { "Retry-After": String(seconds) },
    );
  }
}

/**
 * Takes gc's lease (a create-only object; an expired one is replaced) and returns when it
 * expires (ms since the epoch). 409 conflict when another gc holds it.
 */
export async function takeGcLease(storage: AdminStorage, clock: Clock): Promise<number> {
  const untilMs = clock() + GC_LEASE_MS;
  const failure = "R2 did not answer; gc did not start and nothing changed. Retry shortly";
  const existing = await storage.head(R2_GC_LEASE_KEY, failure);
  if (existing && leaseUntil(existing) > clock()) throw adminError("conflict", "another gc is running; retry when it has finished");
  const written = await storage.put(
    R2_GC_LEASE_KEY,
    "",
    { onlyIf: existing ? { etagMatches: existing.etag } : { etagDoesNotMatch: "*" }, customMetadata: { until: new Date(untilMs).toISOString() } },
    failure,
  );
  if (!written) throw adminError("conflict", "another gc is running; retry when it has finished");
  return untilMs;
}

/** Releases gc's lease; a failure is logged (the lease expires by itself). */
export async function releaseGcLease(storage: AdminStorage): Promise<void> {
  try {
    await storage.delete(R2_GC_LEASE_KEY, "releasing the gc lease failed");
  } catch (err) {
    console.warn("releasing the gc lease failed; it expires by itself", err);
  }
}
