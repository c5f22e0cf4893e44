// Trust-gated selection at the edge: core's selectSkills (the pipeline `skillshelf select` runs)
// over a SkillSource that resolves names from the shelf service. The records it judges with are
// the validations stored with the named skills (each record keeps every validation bound to its
// tree, or, when none is, every one naming the skill: exactly what selection consults for that
// skill) and the advisories in force now. Blocked skills are resolved too, so selection reports
// them blocked rather than missing.
import type { SelectBody, SelectionView } from "../../core/api/trust.ts";
import type { SkillEntry, SkillRecord } from "../../core/generation/manifest.ts";
import { checkSkillName, type TrustRecords, type ValidationRecord } from "../../core/trust/records.ts";
import { selectSkills, type SelectableSkill, type SkillResolution, type SkillSource } from "../../core/trust/select.ts";
import { effectiveToolsForSkill } from "../../core/trust/tools.ts";
import { NotOnShelfError, SkillBlockedError } from "./errors.ts";
import type { ShelfService } from "./service.ts";
import { storedValidations } from "./trust.ts";

/** A name as the shelf resolved it: its entry and record, or absent. */
type ShelfLookup = { found: true; entry: SkillEntry; record: SkillRecord } | { found: false };

/** A SkillSource over the shelf, which also hands over the validations stored with what it resolved. */
export interface ShelfSkillSource extends SkillSource {
  /** The validation records stored with `names` (resolving them), merged in registry order. */
  validationsFor(names: readonly string[]): Promise<ValidationRecord[]>;
}

/** Where a resolved copy lives, as selection names it in notes: the skill's folder at this generation. */
export function shelfLocation(generation: string, name: string): string {
  return `/g/${generation}/skills/${name}`;
}

/** The parts of a record selection reads, as the CLI's filesystem source reads them from SKILL.md. */
export function selectableSkill(record: SkillRecord): SelectableSkill {
  const metadata = record.frontmatter.metadata;
  return {
    name: record.name,
    description: record.description,
    allowed_tools: record.allowed_tools ?? [],
    metadata: metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {},
  };
}

/**
 * A SkillSource over the request's shelf: a name resolves to its record's metadata, tree hash,
 * has_scripts and location; a name the shelf lacks is "skill not found" (the CLI's words); a
 * blocked skill resolves (selection blocks it). Each name is looked up once per source.
 * @example await selectSkills(records, shelfSkillSource(c.get("shelf")), ["adr"])
 */
export function shelfSkillSource(shelf: ShelfService): ShelfSkillSource {
  const lookups = new Map<string, Promise<ShelfLookup>>();
  const lookup = (name: string): Promise<ShelfLookup> => {
    let found = lookups.get(name);
    if (!found) {
      found = lookupOnShelf(shelf, name);
      lookups.set(name, found);
    }
    return found;
  };
  return {
    async resolve(name): Promise<SkillResolution> {
      const found = await lookup(name);
      if (!found.found) return { ok: false, message: `skill not found: ${name}` };
      const { entry, record } = found;
      const generation = await shelf.generation();
      return {
        ok: true,
        resolved: { skill: selectableSkill(record), tree_hash: entry.tree_hash, has_scripts: entry.has_scripts, location: shelfLocation(generation.id, name) },
      };
    },
    async validationsFor(names) {
      const found = await Promise.all([...new Set(names)].filter((n) => checkSkillName(n).ok).map(lookup));
      return mergeInOrder(found.flatMap((f) => (f.found ? [storedValidations(f.record)] : [])));
    },
  };
}

async function lookupOnShelf(shelf: ShelfService, name: string): Promise<ShelfLookup> {
  try {
    const { skill, record } = await shelf.record(name);
    return { found: true, entry: skill, record };
  } catch (error) {
    if (error instanceof NotOnShelfError && error.kind === "skill") return { found: false };
    if (!(error instanceof SkillBlockedError)) throw error;
  }
  // Blocked: the service serves it nowhere, but selection must see it to report it blocked.
  const generation = await shelf.generation();
  const entry = await generation.findSkill(name);
  if (!entry) return { found: false };
  return { found: true, entry, record: await generation.readRecord(entry) };
}

/**
 * Merges lists that are each in registry order (validations.yaml's) into one list consistent
 * with all of them, repeats dropped: each skill's records keep their order, which is what
 * selection's tie-breaks (the first of the strongest) depend on.
 * @example mergeInOrder([[a, c], [b, c]]) // [a, b, c]
 */
export function mergeInOrder<T>(lists: readonly (readonly T[])[]): T[] {
  const keyOf = (item: T) => JSON.stringify(item);
  const items = new Map<string, T>();
  const after = new Map<string, Set<string>>();
  const before = new Map<string, number>();
  for (const list of lists) {
    let previous: string | null = null;
    for (const item of list) {
      const key = keyOf(item);
      if (!items.has(key)) {
        items.set(key, item);
        after.set(key, new Set());
        before.set(key, 0);
      }
      if (previous !== null && previous !== key && !after.get(previous)!.has(key)) {
        after.get(previous)!.add(key);
        before.set(key, before.get(key)! + 1);
      }
      previous = key;
    }
  }
  // Kahn's algorithm, first-seen order among the ready; a cycle (a list repeating a record) keeps first-seen order.
  const out: T[] = [];
  const done = new Set<string>();
  while (done.size < items.size) {
    const ready = [...items.keys()].find((k) => !done.has(k) && before.get(k) === 0) ?? [...items.keys()].find((k) => !done.has(k))!;
    done.add(ready);
    out.push(items.get(ready)!);
    for (const k of after.get(ready)!) before.set(k, before.get(k)! - 1);
  }
  return out;
}

/**
 * Notes for enabled entries that cannot do what the operator meant (the CLI's --enable notes,
 * worded for the API): a bare entry that is not a skill name, or one naming no requested skill.
 * Malformed pins are already noted by selectSkills.
 */
export function enabledNotes(enabled: readonly string[], names: readonly string[]): string[] {
  const notes: string[] = [];
  for (const entry of enabled) {
    const at = entry.indexOf("@");
    const checked = checkSkillName(at < 0 ? entry : entry.slice(0, at));
    if (!checked.ok) {
      if (at < 0)
        notes.push(`enabled entry ${JSON.stringify(entry)} is not a skill name or a name@<64-hex tree hash> pin (${checked.message}); it grants nothing`);
    } else if (!names.includes(checked.name)) {
      notes.push(`enabled entry ${JSON.stringify(entry)} names no requested skill (names: ${names.join(",")}); it grants nothing`);
    }
  }
  return notes;
}

/**
 * The selection of a context on this shelf, as `skillshelf select --json` answers it (less the
 * active skills' metadata), with each active skill's effective tools when a grant is given.
 * @example await selectOnShelf(shelf, { names: ["adr"], enabled: ["adr@<hash>"], grant: ["read_file"] })
 */
export async function selectOnShelf(shelf: ShelfService, body: SelectBody): Promise<SelectionView> {
  const generation = await shelf.generation();
  const source = shelfSkillSource(shelf);
  const enabled = body.enabled ?? [];
  const records: TrustRecords = { validations: await source.validationsFor(body.names), advisories: generation.advisories };
  const selection = await selectSkills(records, source, body.names, { enabled });
  selection.warnings.push(...enabledNotes(enabled, body.names));
  const { active, ...rest } = selection;
  const view: SelectionView = { generation: generation.id, ...rest };
  if (body.grant !== undefined) {
    const grant = body.grant;
    view.effective_tools = Object.fromEntries(active.map((skill) => [skill.name, effectiveToolsForSkill(grant, skill)]));
  }
  return view;
}
