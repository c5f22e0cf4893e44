// Reading skills from disk: what only a filesystem has (symlinks, directories, unreadable
// files). Turns a folder into SkillFile[] exactly as the tree hash sees it, then hands off to
// src/core for everything else.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, type BigIntStats, type Dirent, type Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { isOsJunkFile, sortPathsBytewise } from "../../core/skill/hash.ts";
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
 * One regular file of a skill folder as the walk found it: its path relative to the folder (with
 * `/`) and the stat fields the build's cache compares (bigint nanoseconds, so no edit hides in a
 * rounded millisecond).
 */
export interface SkillDirEntry {
  path: string;
  abs: string;
  size: number;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
}

/**
 * Every regular file under a skill folder, paths relative with `/`, OS junk skipped, without
 * reading any. A symlink anywhere is refused (it can point outside the tree), as is anything
 * that is neither a file nor a folder.
 */
export async function walkSkillDir(dir: string): Promise<SkillDirEntry[]> {
  await requireDir(dir, "skill folder");
  const files: SkillDirEntry[] = [];
  // Synchronous on purpose: stat answers come from the kernel's cache in microseconds, where each
  // promise round trip through the thread pool costs tens; an unchanged rebuild is mostly this walk.
  function walk(rel: string): void {
    const abs = rel ? path.join(dir, rel) : dir;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
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
      if (entry.isDirectory()) walk(childRel);
      else if (entry.isFile()) {
        if (isOsJunkFile(childRel)) continue;
        let stat: BigIntStats;
        try {
          stat = lstatSync(childAbs, { bigint: true });
        } catch (error) {
          throw new CliError(`cannot read ${childAbs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        files.push({ path: childRel, abs: childAbs, size: Number(stat.size), mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs, ino: stat.ino });
      } else {
        throw new CliError(`${childAbs} is not a regular file or folder; remove it from the skill`);
      }
    }
  }
  walk("");
  // readdir's order is the file system's; the tree hash's bytewise order is stable.
  return sortPathsBytewise(files, (f) => f.path);
}

/** Reads the files a walk found (bytes exactly as the tree hash sees them). */
export async function readSkillFiles(entries: readonly SkillDirEntry[]): Promise<SkillFile[]> {
  // Synchronous reads, as in the walk: a skill's files are small and already listed.
  return entries.map((entry) => {
    try {
      return { path: entry.path, bytes: new Uint8Array(readFileSync(entry.abs)) };
    } catch (error) {
      throw new CliError(`cannot read ${entry.abs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  });
}

/**
 * Every regular file under a skill folder with its bytes ({@link walkSkillDir}, then read).
 * @example (await readSkillDir("shelf/skills/code-review")).map((f) => f.path) // ["SKILL.md", …]
 */
export async function readSkillDir(dir: string): Promise<SkillFile[]> {
  return readSkillFiles(await walkSkillDir(dir));
}

/** Node's SHA-256 (synchronous, no thread-pool round trip per file): the same digests as WebCrypto's. */
function nodeSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
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
 * folder. The SKILL.md bytes validated are the same bytes hashed: the folder is read once (or
 * not at all, when the caller passes the files it read).
 */
export async function loadSkill(dir: string, files?: SkillFile[]): Promise<LoadedSkill> {
  files ??= await readSkillDir(dir);
  const name = path.basename(path.resolve(dir));
  const validation = validateSkillFolder(name, files, dir);
  const hasSkillMd = files.some((f) => f.path === "SKILL.md");
  return { name, dir, files, validation, ...(hasSkillMd ? { inventory: await buildInventory(files, nodeSha256) } : {}) };
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
