// Auditing skills on disk: reads a skill or every skill of a shelf, runs core's scanner, and finds
// each skill's acknowledgements in the validation record bound to its tree hash (the shelf's
// validations.yaml; a lone skill inside <shelf>/skills/ uses its shelf's).
import { access } from "node:fs/promises";
import path from "node:path";
import { auditSkill, type Finding } from "../../core/audit/scan.ts";
import { acknowledgedIds } from "../../core/audit/verdict.ts";
import { strongest, validationsFor } from "../../core/trust/evaluate.ts";
import type { ValidationRecord } from "../../core/trust/records.ts";
import { readShelfRecords } from "./shelf-records.ts";
import { isShelfDir, listShelfSkillDirs, loadSkill, requireDir } from "./skill-dir.ts";

export interface AuditedSkill {
  name: string;
  dir: string;
  /** Null when the folder has no SKILL.md (nothing to hash as a skill). */
  tree_hash: string | null;
  findings: Finding[];
  /** Finding ids acknowledged by the validation record bound to this tree hash. */
  acknowledged: Set<string>;
  /** The record those came from, or null. */
  record: ValidationRecord | null;
  /** The files with their digests and bytes (for `--since`). */
  files: { path: string; sha256: string; bytes: Uint8Array }[];
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** The shelf a target belongs to: itself, or the shelf around `<shelf>/skills/<name>`; null for a loose skill. */
async function shelfOf(target: string): Promise<string | null> {
  if (await isShelfDir(target)) return target;
  const parent = path.dirname(path.resolve(target));
  if (path.basename(parent) === "skills" && (await exists(path.join(path.dirname(parent), "validations.yaml")))) return path.dirname(parent);
  return null;
}

/**
 * Audits a skill folder or every skill of a shelf folder.
 * @example (await auditTarget("shelf")).skills.map((s) => s.findings.length)
 */
export async function auditTarget(target: string, warn: (message: string) => void): Promise<{ shelf: string | null; skills: AuditedSkill[] }> {
  await requireDir(target);
  const shelf = await shelfOf(target);
  const records = shelf && (await exists(path.join(shelf, "validations.yaml"))) ? await readShelfRecords(shelf, warn) : null;
  const dirs = (await isShelfDir(target)) ? await listShelfSkillDirs(target) : [target];
  const skills: AuditedSkill[] = [];
  for (const dir of dirs) {
    const loaded = await loadSkill(dir);
    const treeHash = loaded.inventory?.tree_hash ?? null;
    const record = records && treeHash ? strongest(validationsFor(records, treeHash)) : null;
    skills.push({
      name: loaded.name,
      dir,
      tree_hash: treeHash,
      findings: auditSkill(loaded.files).findings,
      acknowledged: acknowledgedIds(record?.evidence),
      record,
      files: loaded.files.map((f) => ({ path: f.path, sha256: loaded.inventory?.files.find((i) => i.path === f.path)?.sha256 ?? "", bytes: f.bytes })),
    });
  }
  return { shelf, skills };
}
