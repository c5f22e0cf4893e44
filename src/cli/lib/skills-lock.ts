// skills-lock.json, the project lockfile the `skills` CLI (npm `skills`, 1.7.x) writes beside a
// project: `{ "version": 1, "skills": { <name>: { source, sourceType, sourceUrl, computedHash,
// wellKnownDigest? } } }`. An entry installed from a well-known index (`sourceType: "well-known"`)
// carries the index entry's `digest` as `wellKnownDigest`; `computedHash` is the CLI's own hash
// of the installed folder (paths and bytes concatenated), not a skillshelf tree hash.
import { z } from "zod";
import { shelfAddressForLock } from "./install.ts";

/** The `skills` CLI's project lockfile's name. */
export const SKILLS_LOCK_FILE = "skills-lock.json";

const EntrySchema = z.looseObject({
  source: z.string().optional(),
  sourceType: z.string(),
  sourceUrl: z.string().optional(),
  computedHash: z.string().optional(),
  wellKnownDigest: z.string().optional(),
});

export const SkillsLockSchema = z.looseObject({
  version: z.number().int().positive(),
  skills: z.record(z.string(), EntrySchema),
});
export type SkillsLock = z.infer<typeof SkillsLockSchema>;

/** Whether parsed JSON is shaped as a skills-lock.json (a numeric `version`, no skillshelf `schema`). */
export function looksLikeSkillsLock(json: unknown): boolean {
  return json !== null && typeof json === "object" && typeof (json as { version?: unknown }).version === "number" && !("schema" in json);
}

/** A shelf address as compared across lockfiles: origin and path, without a capability prefix or trailing slash. */
function comparable(url: string): string | null {
  try {
    return shelfAddressForLock(url).address;
  } catch {
    return null;
  }
}

/**
 * The entries of a skills-lock.json installed from the shelf at `shelfUrl` through its well-known
 * index (with the digest to compare), and the names of the others (another source, or no digest).
 * @example fromShelf(lock, "https://shelf.example").mine // [{ name: "code-review", digest: "sha256:…" }]
 */
export function fromShelf(lock: SkillsLock, shelfUrl: string): { mine: { name: string; digest: string }[]; others: string[] } {
  const shelf = comparable(shelfUrl);
  const mine: { name: string; digest: string }[] = [];
  const others: string[] = [];
  for (const [name, entry] of Object.entries(lock.skills)) {
    const fromHere = entry.sourceType === "well-known" && entry.sourceUrl !== undefined && comparable(entry.sourceUrl) === shelf;
    if (fromHere && entry.wellKnownDigest) mine.push({ name, digest: entry.wellKnownDigest });
    else others.push(name);
  }
  return { mine, others };
}
