// Reading skills from disk: what only a filesystem has (symlinks, directories, unreadable
// files). Turns a folder into SkillFile[] exactly as the tree hash sees it, then hands off to
// src/core for everything else.
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { isOsJunkFile } from "../../core/skill/hash.ts";
import { buildInventory, type Inventory } from "../../core/skill/inventory.ts";
import type { SkillFile } from "../../core/skill/skill.ts";
import { validateSkillFolder, type SkillValidation } from "../../core/skill/validate.ts";
import { CliError, UsageError } from "./cli.ts";

/** Fails with a usage error (exit 2) when `dir` does not exist or is not a folder. */
export async function requireDir(dir: string, what = "folder"): Promise<void> {
  let stat: Stats;
  try {
    stat = await lstat(dir);
  } catch {
    throw new UsageError(`${what} not found: ${dir}`);
  }
  if (stat.isSymbolicLink()) throw new CliError(`${what} ${dir} is a symlink; point at the real folder`);
  if (!stat.isDirectory()) throw new UsageError(`${what} ${dir} is not a folder`);
}

/**
 * Every regular file under a skill folder, paths relative with `/`, OS junk skipped. A symlink
 * anywhere is refused (it can point outside the tree), as is anything that is neither a file
 * nor a folder.
 */
export async function readSkillDir(dir: string): Promise<SkillFile[]> {
  await requireDir(dir, "skill folder");
  const files: SkillFile[] = [];
  async function walk(rel: string): Promise<void> {
    const abs = rel ? path.join(dir, rel) : dir;
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (error) {
      throw new CliError(`cannot read folder ${abs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const childAbs = path.join(dir, childRel);
      if (entry.isSymbolicLink()) {
        throw new CliError(
          `${childAbs} is a symlink; symlinks are not allowed inside skill folders (they can point outside the tree). Replace it with the file itself`,
        );
      }
      if (entry.isDirectory()) await walk(childRel);
      else if (entry.isFile()) {
        if (isOsJunkFile(childRel)) continue;
        try {
          files.push({ path: childRel, bytes: new Uint8Array(await readFile(childAbs)) });
        } catch (error) {
          throw new CliError(`cannot read ${childAbs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
      } else {
        throw new CliError(`${childAbs} is not a regular file or folder; remove it from the skill`);
      }
    }
  }
  await walk("");
  return files;
}

export interface LoadedSkill {
  /** The folder name, which must equal the skill's name. */
  name: string;
  dir: string;
  files: SkillFile[];
  validation: SkillValidation;
  /** Present when the folder has a SKILL.md. */
  inventory?: Inventory;
}

/**
 * Reads, validates (SKILL.md and the file tree: core's one rule table) and inventories one skill
 * folder. The SKILL.md bytes validated are the same bytes hashed: the folder is read once.
 */
export async function loadSkill(dir: string): Promise<LoadedSkill> {
  const files = await readSkillDir(dir);
  const name = path.basename(path.resolve(dir));
  const validation = validateSkillFolder(name, files, dir);
  const hasSkillMd = files.some((f) => f.path === "SKILL.md");
  return { name, dir, files, validation, ...(hasSkillMd ? { inventory: await buildInventory(files) } : {}) };
}

/** True when `dir` looks like a shelf (has a skills/ folder) rather than a single skill. */
export async function isShelfDir(dir: string): Promise<boolean> {
  try {
    return (await lstat(path.join(dir, "skills"))).isDirectory();
  } catch {
    return false;
  }
}

/** The skill folders of a shelf (`<shelf>/skills/<name>/`), sorted by name. */
export async function listShelfSkillDirs(shelfDir: string): Promise<string[]> {
  await requireDir(shelfDir, "shelf folder");
  const skillsDir = path.join(shelfDir, "skills");
  await requireDir(skillsDir, "shelf skills folder");
  const entries = await readdir(skillsDir, { withFileTypes: true });
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.isSymbolicLink()) throw new CliError(`${path.join(skillsDir, entry.name)} is a symlink; shelves hold real skill folders only`);
    if (entry.isDirectory()) dirs.push(path.join(skillsDir, entry.name));
    else if (!isOsJunkFile(entry.name) && !entry.name.startsWith(".")) {
      throw new CliError(`${path.join(skillsDir, entry.name)} is a file; ${skillsDir} must hold only skill folders`);
    }
  }
  return dirs.sort();
}
