// The version index as the read path sees it: a live document like the pointer and the
// advisories (memory, then KV only announcing a higher seq, R2 deciding; live.ts). Absent means
// empty: a shelf published before the index existed starts with none, and readers overlay the
// current generation until a publish or a rebuild stores one.
//
// A reader asks about one skill (or a page of them), and at 10,000 skills the index is ~2 MiB of
// JSON with ~10,000 entry lists: checking all of them against the schema cost a cold isolate
// ~75 ms of CPU for the one list it needed. So the record's head (seq, moves) is checked when it
// is read, and a skill's entries only when a request asks for them, every time (a few entries).
// The admin API checks the whole record against VersionIndexSchema before it stores it.
import { z } from "zod";
import { emptyVersionIndex, VersionEntrySchema, VersionIndexSchema, type VersionEntry, type VersionIndex } from "../../core/versions/record.ts";
import type { Clock, StorageBindings } from "./bindings.ts";
import { parseWith, r2Text, RequestReads } from "./documents.ts";
import { StorageUnavailableError } from "./errors.ts";
import { KV_VERSIONS_KEY, R2_VERSIONS_KEY } from "./keys.ts";
import { kvAnnouncement, liveTtlMs, readLive } from "./live.ts";

/** The record with its skills' entry lists not yet checked: any JSON object stands for them. */
const StoredIndexSchema = VersionIndexSchema.extend({
  skills: z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "an object of entry lists"),
});
type StoredIndex = z.infer<typeof StoredIndexSchema>;

const EntryListSchema = z.array(VersionEntrySchema);

/**
 * The version index as R2 last said (30 s in memory, KV announcing changes, R2 at least every
 * 300 s), holding only the skills of `names` (those it has): each one's entries checked against
 * the schema now. The empty index when none is stored. Throws StorageUnavailableError when R2
 * fails, or the record's head or an asked skill's entries break the schema.
 * @example (await loadVersionIndex(env, Date.now, ["code-review"])).skills["code-review"]?.[0]?.version
 */
export async function loadVersionIndex(env: StorageBindings, clock: Clock, names: readonly string[], budget = new RequestReads()): Promise<VersionIndex> {
  const stored = await readLive<StoredIndex>(
    "versions",
    clock,
    budget,
    {
      kv: () => kvAnnouncement(env, KV_VERSIONS_KEY, budget),
      r2: async () => {
        const text = await r2Text(env, R2_VERSIONS_KEY);
        if (text === null) return null;
        const index = parseWith(StoredIndexSchema, text, R2_VERSIONS_KEY);
        return { value: index, seq: index.seq };
      },
    },
    liveTtlMs(env),
  );
  if (stored === null) return emptyVersionIndex();
  const skills: Record<string, VersionEntry[]> = {};
  for (const name of names) {
    if (!Object.hasOwn(stored.skills, name)) continue;
    const checked = EntryListSchema.safeParse(stored.skills[name]);
    if (!checked.success)
      throw new StorageUnavailableError(`${R2_VERSIONS_KEY} does not match its schema at skills.${name}: ${checked.error.message.slice(0, 300)}`);
    skills[name] = checked.data;
  }
  return { ...stored, skills };
}
