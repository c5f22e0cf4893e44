// skillshelf-lock.json: what `skillshelf lock` resolved, so `skillshelf install` can fetch
// exactly those bytes again later: per skill the range asked for, the version, the tree hash,
// the generation its files are pinned to, and every file's size and SHA-256. No URLs and no
// access tokens: the pinned URLs are derived from the shelf's address and the generation.
import { z } from "zod";
import { Sha256Schema } from "../generation/manifest.ts";
import { SKILL_NAME_RE } from "../skill/skill.ts";

export const LOCK_SCHEMA = "skillshelf.lock/1";
/** The lockfile's default name, in the current folder. */
export const LOCK_FILE = "skillshelf-lock.json";

/** A skill-relative path a lockfile may name: relative, `/`-separated, no empty, `.` or `..` segment, no backslash or control character. */
const LockPathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.startsWith("/") && !/[\\\u0000-\u001f\u007f]/.test(p) && p.split("/").every((s) => s !== "" && s !== "." && s !== ".."), {
    message: "a relative path inside the skill",
  });

export const LockedFileSchema = z.strictObject({ path: LockPathSchema, size: z.number().int().nonnegative(), sha256: Sha256Schema });
export type LockedFile = z.infer<typeof LockedFileSchema>;

export const LockedSkillSchema = z.strictObject({
  range: z.string().min(1),
  version: z.string().nullable(),
  tree_hash: Sha256Schema,
  generation: Sha256Schema,
  files: z.array(LockedFileSchema).min(1),
});
export type LockedSkill = z.infer<typeof LockedSkillSchema>;

export const LockFileSchema = z.strictObject({
  schema: z.literal(LOCK_SCHEMA),
  /** The shelf's address as given to `lock`, without a capability token. */
  shelf: z.string().url(),
  skills: z.record(z.string().regex(SKILL_NAME_RE, "a skill name"), LockedSkillSchema),
});
export type LockFile = z.infer<typeof LockFileSchema>;

/**
 * A `name@range` argument: the range after the first `@` (a name has none), `latest` when absent.
 * @example parseSkillSpec("code-review@^1.2") // => { name: "code-review", range: "^1.2" }
 */
export function parseSkillSpec(spec: string): { name: string; range: string } {
  const at = spec.indexOf("@");
  const name = at < 0 ? spec : spec.slice(0, at);
  const range = at < 0 ? "latest" : spec.slice(at + 1).trim();
  return { name, range: range === "" ? "latest" : range };
}

/**
 * The lockfile's text: keys sorted (skills by name, files by path as resolved), two-space
 * indent, one trailing newline, so re-locking an unchanged shelf rewrites the same bytes.
 * @example renderLockFile(lock).endsWith("}\n") // => true
 */
export function renderLockFile(lock: LockFile): string {
  const skills = Object.fromEntries(
    Object.keys(lock.skills)
      .sort()
      .map((name) => {
        const s = lock.skills[name]!;
        return [
          name,
          {
            range: s.range,
            version: s.version,
            tree_hash: s.tree_hash,
            generation: s.generation,
            files: s.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
          },
        ];
      }),
  );
  return `${JSON.stringify({ schema: LOCK_SCHEMA, shelf: lock.shelf, skills }, null, 2)}\n`;
}

/**
 * The pinned URL of a locked file below a shelf's address (which may carry a capability prefix).
 * @example lockedFileUrl("https://shelf.example", "code-review", locked, "references/a b.md")
 */
export function lockedFileUrl(shelf: string, name: string, skill: Pick<LockedSkill, "generation">, path: string): string {
  return `${shelf.replace(/\/+$/, "")}/g/${skill.generation}/skills/${name}/${path.split("/").map(encodeURIComponent).join("/")}`;
}
