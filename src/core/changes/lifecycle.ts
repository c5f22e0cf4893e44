// A shelf's lifecycle.yaml: which skills are deprecated (and why) and which names were replaced by
// which. Shelf metadata a team writes beside the record files, never the frontmatter (that would
// change the tree hash and force re-attestation and reinstalls) and never catalog.yaml.
import { z } from "zod";
import { parseYaml11, YamlError } from "../python-compat/yaml11.ts";
import { MAX_NAME_CHARS, SKILL_NAME_RE } from "../skill/skill.ts";

/** The schema of the lifecycle blob a generation references (manifest `shelf.lifecycle`). */
export const LIFECYCLE_SCHEMA = "skillshelf.lifecycle/1";
/** The file name at a shelf's root. */
export const LIFECYCLE_FILE = "lifecycle.yaml";
/** Longest deprecation reason, in characters. */
export const MAX_REASON_CHARS = 500;

const SkillName = z.string().min(1).max(MAX_NAME_CHARS).regex(SKILL_NAME_RE);

/**
 * One name's lifecycle. A skill on the shelf with an entry is deprecated (`deprecated` is the
 * reason); a name not on the shelf is a tombstone, and always names its replacement.
 */
export const LifecycleEntrySchema = z.strictObject({
  deprecated: z.string().min(1).max(MAX_REASON_CHARS).nullable(),
  replaced_by: SkillName.nullable(),
});
export type LifecycleEntry = z.infer<typeof LifecycleEntrySchema>;

/** The lifecycle of a generation, as stored (canonical JSON) and served. */
export const LifecycleSchema = z.strictObject({
  schema: z.literal(LIFECYCLE_SCHEMA),
  skills: z.record(SkillName, LifecycleEntrySchema),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/** What a lifecycle says about one name: deprecated (with reason), a tombstone, or nothing. */
export interface LifecycleStatus {
  deprecated: string | null;
  replaced_by: string | null;
}

const NONE: LifecycleStatus = { deprecated: null, replaced_by: null };

/**
 * The lifecycle of `name` (nothing known: both null).
 * @example lifecycleOf(lifecycle, "old-review").replaced_by // "code-review"
 */
export function lifecycleOf(lifecycle: Lifecycle | null | undefined, name: string): LifecycleStatus {
  return lifecycle?.skills[name] ?? NONE;
}

/**
 * One sentence for a deprecated skill, for clients that show only free text (the ClawHub CLI's
 * summary, a Claude Code plugin's description); null when the skill is not deprecated. A reason
 * that only says what replaced it is not repeated.
 * @example deprecationNote({ deprecated: "superseded", replaced_by: "code-review" }) // "Deprecated: superseded. Use code-review instead."
 */
export function deprecationNote(status: LifecycleStatus): string | null {
  if (status.deprecated === null) return null;
  const reason = status.deprecated.trim().replace(/[.\s]+$/, "");
  const replacement = status.replaced_by;
  const use = replacement !== null && reason.toLowerCase() !== `replaced by ${replacement}` ? ` Use ${replacement} instead.` : "";
  return `Deprecated: ${reason}.${use}`;
}

/** One problem in lifecycle.yaml, naming the entry. */
export interface LifecycleProblem {
  name: string | null;
  message: string;
}

/**
 * Parses lifecycle.yaml against the shelf's skill names. Each entry is a mapping with
 * `deprecated: <reason>` and/or `replaced_by: <name>`; a replacement must be a skill on the shelf
 * (so chains and cycles cannot form); a name not on the shelf must name its replacement (a
 * tombstone). A skill given only `replaced_by` is deprecated with the reason "replaced by <name>".
 * @example parseLifecycle("skills:\n  old: {replaced_by: new}\n", ["new"]).lifecycle?.skills.old
 */
export function parseLifecycle(text: string, shelfSkills: Iterable<string>): { lifecycle: Lifecycle | null; problems: LifecycleProblem[] } {
  const problems: LifecycleProblem[] = [];
  let value: unknown;
  try {
    value = parseYaml11(text).value;
  } catch (error) {
    if (error instanceof YamlError) return { lifecycle: null, problems: [{ name: null, message: `${LIFECYCLE_FILE}: ${error.message}` }] };
    throw error;
  }
  if (value === null || value === undefined) return { lifecycle: null, problems };
  if (typeof value !== "object" || Array.isArray(value) || Object.keys(value).some((k) => k !== "skills")) {
    return { lifecycle: null, problems: [{ name: null, message: `${LIFECYCLE_FILE} must be a mapping with one key, skills: a mapping of skill names` }] };
  }
  const skills = (value as { skills?: unknown }).skills ?? {};
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) {
    return { lifecycle: null, problems: [{ name: null, message: `${LIFECYCLE_FILE}: skills must be a mapping of skill names to {deprecated, replaced_by}` }] };
  }
  const onShelf = new Set(shelfSkills);
  const entries: Record<string, LifecycleEntry> = {};
  for (const [name, raw] of Object.entries(skills as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const fail = (message: string) => problems.push({ name, message: `${LIFECYCLE_FILE}: ${name}: ${message}` });
    if (!SkillName.safeParse(name).success) {
      fail("not a skill name (lowercase letters, digits and single hyphens)");
      continue;
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      fail("must be a mapping with deprecated: <reason> and/or replaced_by: <skill name>");
      continue;
    }
    const extra = Object.keys(raw).filter((k) => k !== "deprecated" && k !== "replaced_by");
    if (extra.length) {
      fail(`unknown key(s) ${extra.join(", ")}; only deprecated and replaced_by are read`);
      continue;
    }
    const { deprecated, replaced_by: replacedBy } = raw as { deprecated?: unknown; replaced_by?: unknown };
    if (deprecated !== undefined && (typeof deprecated !== "string" || !deprecated.trim() || deprecated.length > MAX_REASON_CHARS)) {
      fail(`deprecated must be a non-empty reason of at most ${MAX_REASON_CHARS} characters`);
      continue;
    }
    if (replacedBy !== undefined && (typeof replacedBy !== "string" || !SkillName.safeParse(replacedBy).success)) {
      fail("replaced_by must be a skill name");
      continue;
    }
    if (deprecated === undefined && replacedBy === undefined) {
      fail("says nothing; give deprecated: <reason>, replaced_by: <skill name>, or both");
      continue;
    }
    if (replacedBy === name) {
      fail("cannot be replaced by itself");
      continue;
    }
    if (replacedBy !== undefined && !onShelf.has(replacedBy)) {
      fail(`replaced_by names ${replacedBy}, which is not a skill on this shelf; name the skill that replaces it`);
      continue;
    }
    if (!onShelf.has(name) && replacedBy === undefined) {
      fail("is not a skill on this shelf; a removed skill's entry (a tombstone) must name its replacement with replaced_by");
      continue;
    }
    entries[name] = { deprecated: deprecated?.trim() ?? (onShelf.has(name) ? `replaced by ${replacedBy}` : null), replaced_by: replacedBy ?? null };
  }
  if (problems.length) return { lifecycle: null, problems };
  return { lifecycle: Object.keys(entries).length ? { schema: LIFECYCLE_SCHEMA, skills: entries } : null, problems };
}
