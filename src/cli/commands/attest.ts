// skillshelf attest <shelf-dir> <name>... | --all: binds each skill's current tree hash to a
// validation record in <shelf-dir>/validations.yaml, so an edited skill is unverified until a
// reviewer attests it again. `--check` writes nothing and fails when any record is stale.
import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { auditSkill, type Finding } from "../../core/audit/scan.ts";
import { ACCEPTED_EVIDENCE_KEY, acknowledgedIds, acknowledgementProblem, findingId, unacknowledgedAtLeast } from "../../core/audit/verdict.ts";
import { GRANTABLE_LEVELS, parseValidations, ValidationRecordSchema, type TrustLevel, type ValidationRecord } from "../../core/trust/records.ts";
import { serializeValidations } from "../../core/trust/serialize.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { listShelfSkillDirs, loadSkill, requireDir } from "../lib/skill-dir.ts";

const USAGE =
  "skillshelf attest <shelf-dir> (<name>... | --all) [--by <reviewer>] [--level first_party] [--method <method>] [--source <label>] [--at YYYY-MM-DD] [--notes <text>] [--accept <rule>@<file>:<line> ...] [--check] [--prune]";

/** The comment block written at the top of validations.yaml. */
const VALIDATIONS_HEADER: readonly string[] = [
  "Validation records of this shelf (AbstractSkill 0.3.2 validations.yaml format).",
  "",
  "Each record binds one skill tree, by its tree hash, to a trust level. Any byte change to a",
  "skill voids its record: the skill is served as unverified until someone reviews it again and",
  "runs `npx skillshelf attest <shelf-dir> <name> --by <reviewer>`. Generated; edit with care.",
];

/** The method each level gets when --method is not given; only first_party has an obvious one. */
const DEFAULT_METHOD: Partial<Record<TrustLevel, string>> = { first_party: "first-party" };

/** What is known about a skill's current bytes when attesting it. */
export interface AttestSubject {
  name: string;
  tree_hash: string;
  has_scripts: boolean;
  files: number;
  /** SHA-256 of SKILL.md, recorded as evidence so a reader can check the file alone. */
  content_hash: string;
}

/** What the reviewer asserts; unset fields fall back to the skill's previous record. */
export interface AttestOptions {
  level: TrustLevel;
  method?: string;
  by?: string;
  source?: string;
  at: string;
  notes?: string;
  /**
   * Audit finding ids the reviewer read and accepts for these bytes (`rule@file:line`); kept under
   * evidence.audit_accepted together with those the record for the same tree already held.
   */
  accepted?: readonly string[];
}

/** How a skill's record compares with its current bytes. */
export type RecordState = "current" | "stale" | "missing";

/** The state of `name`'s records against `treeHash`. */
export function recordState(records: readonly ValidationRecord[], name: string, treeHash: string): RecordState {
  const mine = records.filter((r) => r.name === name);
  if (mine.length === 0) return "missing";
  return mine.some((r) => r.tree_hash === treeHash) ? "current" : "stale";
}

/**
 * Returns the record list with `subject` attested. A record that already binds the same hash
 * with the same level, method, source and reviewer is kept untouched (its date included);
 * otherwise every record of that name is replaced, in place, by one new record.
 * The new record is checked with the trust schema, so a method that cannot grant the level
 * is refused with AbstractSkill's message.
 */
export function attestRecord(
  records: readonly ValidationRecord[],
  subject: AttestSubject,
  options: AttestOptions,
): { records: ValidationRecord[]; record: ValidationRecord; changed: boolean } {
  const previous = records.find((r) => r.name === subject.name);
  const method = options.method ?? DEFAULT_METHOD[options.level];
  if (method === undefined) {
    throw new UsageError(
      `--level ${options.level} needs --method (first-party grants first_party; manual-review or first-party-adoption grant adopted; external-audit or simulated-execution grant audited)`,
    );
  }
  // A reviewer is only carried over for the bytes they reviewed: a new record, or a changed tree,
  // needs someone to say they looked at it.
  const sameBytes = records.some((r) => r.name === subject.name && r.tree_hash === subject.tree_hash);
  if (options.by === undefined && !sameBytes) {
    throw new UsageError(
      previous
        ? `${subject.name} changed since ${previous.validated_by} attested it (tree ${previous.tree_hash} → ${subject.tree_hash}); review it and pass --by <reviewer>`
        : `${subject.name} has no earlier record to take a reviewer from; pass --by <reviewer>`,
    );
  }
  const by = options.by ?? records.find((r) => r.name === subject.name && r.tree_hash === subject.tree_hash)!.validated_by;
  // Acknowledgements are bound to bytes: only a record of this very tree passes its own on.
  const kept = records.filter((r) => r.name === subject.name && r.tree_hash === subject.tree_hash).flatMap((r) => [...acknowledgedIds(r.evidence)]);
  const accepted = [...new Set([...kept, ...(options.accepted ?? [])])].sort();
  const sameAccepted = (r: ValidationRecord) => {
    const had = [...acknowledgedIds(r.evidence)].sort();
    return had.length === accepted.length && had.every((id, i) => id === accepted[i]);
  };
  const source = options.source ?? previous?.source ?? "first-party";

  const same = records.find(
    (r) =>
      r.name === subject.name &&
      r.tree_hash === subject.tree_hash &&
      r.level === options.level &&
      r.method === method &&
      r.source === source &&
      r.validated_by === by &&
      (options.notes === undefined || r.notes === options.notes) &&
      sameAccepted(r),
  );
  if (same) return { records: [...records], record: same, changed: false };

  const raw: Record<string, unknown> = {
    name: subject.name,
    source,
    tree_hash: subject.tree_hash,
    level: options.level,
    method,
    validated_by: by,
    validated_at: options.at,
    evidence: {
      has_scripts: subject.has_scripts,
      files: subject.files,
      skill_md_sha256: subject.content_hash,
      ...(accepted.length ? { [ACCEPTED_EVIDENCE_KEY]: accepted } : {}),
    },
    audience: previous?.audience ?? "host",
  };
  const notes = options.notes ?? previous?.notes;
  if (notes) raw.notes = notes;
  if (previous?.activation_description) raw.activation_description = previous.activation_description;
  const parsed = ValidationRecordSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`cannot attest ${subject.name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const record = parsed.data;

  const out: ValidationRecord[] = [];
  let placed = false;
  for (const r of records) {
    if (r.name !== subject.name) out.push(r);
    else if (!placed) {
      out.push(record);
      placed = true;
    }
  }
  if (!placed) out.push(record);
  return { records: out, record, changed: true };
}

/** Reads and parses <shelf>/validations.yaml; an absent file is an empty list, a malformed one is refused. */
async function readValidations(file: string, warn: (message: string) => void): Promise<ValidationRecord[]> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const parsed = parseValidations(bytes, file);
  for (const w of parsed.warnings) warn(w);
  if (parsed.problems.length) {
    throw new CliError(
      `${file} has ${parsed.problems.length} malformed record(s); fix them by hand first, nothing was written:\n${parsed.problems.map((p) => `  ${p.message}`).join("\n")}`,
    );
  }
  return parsed.entries;
}

/** Writes via a temporary file and a rename, so a crash never leaves half a validations.yaml. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, text, { flag: "wx" });
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const LEVELS = GRANTABLE_LEVELS as readonly string[];

/**
 * Removes the validation records of skills that are not on the shelf (what `attest --all --prune` does,
 * without attesting anything): `init` after a seed with --exclude. Returns the names removed.
 */
export async function pruneOrphanRecords(shelfDir: string, warn: (message: string) => void): Promise<string[]> {
  const file = path.join(shelfDir, "validations.yaml");
  const records = await readValidations(file, warn);
  const onShelf = new Set((await listShelfSkillDirs(shelfDir)).map((d) => path.basename(d)));
  const kept = records.filter((r) => onShelf.has(r.name));
  if (kept.length < records.length) await writeAtomically(file, serializeValidations(kept, VALIDATIONS_HEADER));
  return records.filter((r) => !onShelf.has(r.name)).map((r) => r.name);
}

/** True for YYYY-MM-DD naming a day that exists (2026-02-29 and 2026-13-45 do not). */
function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      all: { type: "boolean" },
      check: { type: "boolean" },
      prune: { type: "boolean" },
      by: { type: "string" },
      level: { type: "string" },
      method: { type: "string" },
      source: { type: "string" },
      at: { type: "string" },
      notes: { type: "string" },
      accept: { type: "string", multiple: true },
    },
    USAGE,
  );
  const [shelfDir, ...names] = positionals;
  if (shelfDir === undefined) throw new UsageError(`expected a shelf folder\nusage: ${USAGE}`);
  if (values.all ? names.length > 0 : names.length === 0) throw new UsageError(`name the skills to attest, or pass --all (not both)\nusage: ${USAGE}`);
  if (values.prune && !values.all) throw new UsageError("--prune needs --all: only a whole-shelf run knows which records have no skill");
  const level = (values.level ?? "first_party") as TrustLevel;
  if (!LEVELS.includes(level)) throw new UsageError(`--level must be one of ${LEVELS.join(", ")}; got "${values.level}"`);
  const at = values.at ?? new Date().toISOString().slice(0, 10);
  if (!isCalendarDate(at)) throw new UsageError(`--at must be a real calendar date as YYYY-MM-DD; got "${at}"`);
  for (const flag of ["by", "source", "method"] as const) {
    if (values[flag] !== undefined && !values[flag]!.trim()) throw new UsageError(`--${flag} must not be empty`);
  }
  const accept = values.accept ?? [];
  for (const id of accept) {
    const problem = acknowledgementProblem(id);
    if (problem) throw new UsageError(`--accept: ${problem}`);
  }
  if (accept.length && values.check) throw new UsageError("--accept writes a record; it cannot be combined with --check");
  await requireDir(shelfDir, "shelf folder");

  const allDirs = await listShelfSkillDirs(shelfDir);
  const byName = new Map(allDirs.map((d) => [path.basename(d), d]));
  for (const name of names) {
    if (!byName.has(name)) throw new UsageError(`no skill named "${name}" in ${path.join(shelfDir, "skills")}; check the folder name`);
  }
  const selected = values.all ? allDirs : names.map((n) => byName.get(n)!);

  const file = path.join(shelfDir, "validations.yaml");
  let records = await readValidations(file, (w) => ctx.stderr(`warning: ${w}\n`));
  let failures = 0;
  let changed = false;
  const acceptedSomewhere = new Set<string>();
  const pending: { name: string; open: Finding[] }[] = [];

  for (const dir of selected) {
    const skill = await loadSkill(dir);
    const errors = skill.validation.problems.filter((p) => p.severity === "error");
    if (!skill.validation.ok || !skill.inventory) {
      ctx.stderr(`${skill.name}: not attested, the skill is invalid (${errors.length} error(s)); run npx skillshelf validate ${dir}\n`);
      failures++;
      continue;
    }
    const inv = skill.inventory;
    if (values.check) {
      const state = recordState(records, skill.name, inv.tree_hash);
      ctx.stdout(`${skill.name}: ${state} (tree ${inv.tree_hash})\n`);
      if (state !== "current") {
        failures++;
        ctx.stderr(
          `${skill.name}: ${state === "missing" ? "no validation record" : "validation record does not match the skill's tree hash (edited since attested)"}; review it, then run npx skillshelf attest ${shelfDir} ${skill.name} --by <reviewer>\n`,
        );
      }
      continue;
    }
    const findings = auditSkill(skill.files).findings;
    const ids = new Set(findings.map(findingId));
    const mine = accept.filter((id) => ids.has(id));
    for (const id of mine) acceptedSomewhere.add(id);
    const result = attestRecord(
      records,
      { name: skill.name, tree_hash: inv.tree_hash, has_scripts: inv.has_scripts, files: inv.files.length, content_hash: inv.content_hash },
      { level, method: values.method, by: values.by, source: values.source, at, notes: values.notes, accepted: mine },
    );
    pending.push({ name: skill.name, open: unacknowledgedAtLeast(findings, acknowledgedIds(result.record.evidence), "high") });
    records = result.records;
    changed ||= result.changed;
    const r = result.record;
    const note = inv.has_scripts ? "; bundles scripts, so clients still require review" : "";
    ctx.stdout(
      `${skill.name}: ${result.changed ? "attested" : "already current"} ${r.level} via ${r.method} by ${r.validated_by} (${r.validated_at}), tree ${r.tree_hash}${note}\n`,
    );
  }

  if (values.all) {
    const orphans = records.filter((r) => !byName.has(r.name));
    for (const r of orphans) {
      if (values.prune && !values.check) ctx.stdout(`${r.name}: record removed, no such skill on the shelf\n`);
      else {
        ctx.stderr(`${r.name}: validation record for a skill that is not on the shelf; remove it, or run with --prune\n`);
        if (values.check) failures++;
      }
    }
    if (values.prune && !values.check && orphans.length) {
      records = records.filter((r) => byName.has(r.name));
      changed = true;
    }
  }

  const unknown = accept.filter((id) => !acceptedSomewhere.has(id));
  if (unknown.length) {
    throw new UsageError(
      `--accept names no current finding of the skill(s) attested: ${unknown.join(", ")}; run npx skillshelf audit ${shelfDir} and copy the id (nothing was written)`,
    );
  }
  for (const p of pending) {
    const critical = p.open.filter((f) => f.severity === "critical").length;
    if (p.open.length) {
      ctx.stderr(
        `${p.name}: ${critical ? `${critical} critical audit finding(s) still block it` : `${p.open.length} high audit finding(s) still require review`}; read them (npx skillshelf audit ${shelfDir}) and accept each with --accept <rule>@<file>:<line>\n`,
      );
    }
  }
  if (!values.check && failures) {
    ctx.stderr(`nothing written: fix the invalid skill(s) above and attest again\n`);
    return 1;
  }
  if (!values.check && changed) {
    await writeAtomically(file, serializeValidations(records, VALIDATIONS_HEADER));
    ctx.stdout(`wrote ${file} (${records.length} record(s))\n`);
  }
  return failures ? 1 : 0;
};
