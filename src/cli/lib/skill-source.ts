// The filesystem SkillSource for selection: several roots (the later valid copy wins, a broken
// later copy falls back loudly), and the check that the SKILL.md bytes parsed are the bytes the
// tree hash covered. SKILL.md is read once; those bytes are hashed and parsed, then the tree is
// hashed from a second walk and the two digests must agree, or the skill is refused.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../core/skill/hash.ts";
import { buildInventory, type Inventory } from "../../core/skill/inventory.ts";
import type { SkillResolution, SkillSource } from "../../core/trust/select.ts";
import { validateSkillMd } from "../../core/skill/validate.ts";
import { auditSkill } from "../../core/audit/scan.ts";
import { readSkillDir } from "./skill-dir.ts";

export interface FilesystemSourceOptions {
  /**
   * Test seam: runs after SKILL.md was read and parsed and before the tree is hashed, so a test
   * can swap the file in that window and prove the mismatch is refused.
   */
  afterParse?: (skillDir: string) => Promise<void> | void;
}

async function isDir(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function isFile(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * A SkillSource over skill roots (each holds `<name>/SKILL.md` folders); later roots take
 * precedence, as AbstractSkill's FilesystemSkillLoader.
 * @example await selectSkills(records, filesystemSkillSource([shelfSkills, userSkills]), ["adr"])
 */
export function filesystemSkillSource(roots: readonly string[], options: FilesystemSourceOptions = {}): SkillSource {
  return {
    async resolve(name, note): Promise<SkillResolution> {
      let firstError: string | null = null;
      for (const root of [...roots].reverse()) {
        if (!(await isDir(root))) continue;
        const dir = path.join(root, name);
        const skillFile = path.join(dir, "SKILL.md");
        if (!(await isFile(skillFile))) continue;
        let bytes: Uint8Array;
        try {
          bytes = new Uint8Array(await readFile(skillFile));
        } catch (error) {
          const message = `unable to read SKILL.md at ${skillFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
          firstError ??= message;
          note(`#FALLBACK: skipping invalid skill at ${skillFile}: ${message}`);
          continue;
        }
        const parsedDigest = await sha256Hex(bytes);
        const validation = validateSkillMd(name, bytes);
        if (!validation.ok || !validation.metadata) {
          const message = validation.problems.find((p) => p.severity === "error")?.message ?? "SKILL.md is not valid";
          firstError ??= message;
          note(`#FALLBACK: skipping invalid skill at ${skillFile}: ${message}`);
          continue;
        }
        // This copy won: from here a failure holds the name as missing, never falls back (a
        // user-root write can deny a curated skill, loudly, but never substitute for it).
        await options.afterParse?.(dir);
        let inventory: Inventory;
        let files: Awaited<ReturnType<typeof readSkillDir>>;
        try {
          files = await readSkillDir(dir);
          inventory = await buildInventory(files);
        } catch (error) {
          return { ok: false, message: (error as Error).message };
        }
        const hashed = inventory.files.find((f) => f.path === "SKILL.md")?.sha256;
        if (hashed === undefined) {
          return {
            ok: false,
            verbatim: true,
            message: `#FALLBACK: skill '${name}' at ${dir} has no exact-case SKILL.md in its hashed tree (case-aliased filename on a case-insensitive filesystem, or deleted mid-inspection); refusing — the verdict cannot attest the parsed document`,
          };
        }
        if (hashed !== parsedDigest) {
          return {
            ok: false,
            verbatim: true,
            message: `#FALLBACK: skill '${name}' at ${dir} changed between load and hash (parsed SKILL.md sha256 ${parsedDigest.slice(0, 16)}… vs hashed ${hashed.slice(0, 16)}…); refusing this selection — re-run, and treat the root as compromised if it persists`,
          };
        }
        const meta = validation.metadata;
        return {
          ok: true,
          resolved: {
            skill: { name: meta.name, description: meta.description, allowed_tools: meta.allowed_tools ?? [], metadata: meta.metadata },
            tree_hash: inventory.tree_hash,
            has_scripts: inventory.has_scripts,
            location: dir,
            // The same bytes the tree hash covered: the audit can only tighten the verdict.
            audit_findings: auditSkill(files).findings,
          },
        };
      }
      return { ok: false, message: firstError ?? `skill not found: ${name}` };
    },
  };
}
