// Writing an imported skill's folder into the shelf: staged in the shelf folder and renamed
// into place, so a crash leaves the old folder or the new one, never a mix.
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { SkillFile } from "../../../core/skill/skill.ts";

/** Replaces (or creates) `dest` with exactly `files`. */
export async function writeSkillFolder(dest: string, files: readonly SkillFile[]): Promise<void> {
  // Staged in the shelf folder, not skills/, where a leftover would read as a skill.
  const parent = path.dirname(path.dirname(dest));
  const staging = await mkdtemp(path.join(parent, ".import-staging-"));
  try {
    for (const f of files) {
      const target = path.join(staging, ...f.path.split("/"));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, f.bytes);
    }
    const retired = `${staging}.old`;
    const had = await rename(dest, retired).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return false;
        throw error;
      },
    );
    await rename(staging, dest);
    if (had) await rm(retired, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
