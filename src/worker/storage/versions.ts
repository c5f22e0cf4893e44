// The version index as the read path sees it: a live document like the pointer and the
// advisories (memory, then KV only announcing a higher seq, R2 deciding; live.ts), parsed against
// the core's schema. Absent means empty: a shelf published before the index existed starts with
// none, and readers overlay the current generation until a publish or a rebuild stores one.
import { emptyVersionIndex, VersionIndexSchema, type VersionIndex } from "../../core/versions/record.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { parseWith, r2Text, RequestReads } from "./documents.ts";
import { KV_VERSIONS_KEY, R2_VERSIONS_KEY } from "./keys.ts";
import { kvAnnouncement, liveTtlMs, readLive } from "./live.ts";

/**
 * The version index as R2 last said (30 s in memory, KV announcing changes, R2 at least every
 * 300 s); the empty index when none is stored. Throws StorageUnavailableError when R2 fails or
 * the stored record breaks its schema.
 * @example (await loadVersionIndex(env, Date.now)).pointer_seq
 */
export async function loadVersionIndex(env: StorageBindings, clock: Clock, budget = new RequestReads()): Promise<VersionIndex> {
  const value = await readLive<VersionIndex>(
    "versions",
    clock,
    budget,
    {
      kv: () => kvAnnouncement(env, KV_VERSIONS_KEY, budget),
      r2: async () => {
        const text = await r2Text(env, R2_VERSIONS_KEY);
        if (text === null) return null;
        const index = parseWith(VersionIndexSchema, text, R2_VERSIONS_KEY);
        return { value: index, seq: index.seq };
      },
    },
    liveTtlMs(env),
  );
  return value ?? emptyVersionIndex();
}
