// The heavy half of a build, one skill at a time: read its files again, check each against the
// digest the scan found (a file edited mid-build refuses the build rather than storing bytes
// under another file's name), write the blobs the build folder lacks, and compress the archives
// (.tar.gz, .zip and the Claude Code plugin zip) when no earlier build made them for this tree
// hash. Runs inline or on a worker thread (skill-objects-worker.ts); either way the bytes are the same.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { skillArchives } from "../../core/generation/assemble.ts";
import type { PluginSource } from "../../core/generation/claude-plugin.ts";
import type { SkillRecord } from "../../core/generation/manifest.ts";
import type { SkillFile } from "../../core/skill/skill.ts";

/** One skill's work for {@link stageSkillObjects}: plain data, so it can cross to a worker thread. */
export interface StageTask {
  skill: string;
  /**
   * Every file of the skill: where it is and what the scan found in it, with the bytes the scan
   * hashed when it read them (then they are not read again: the bytes stored are the bytes hashed).
   */
  files: { path: string; abs: string; sha256: string; size: number; bytes?: Uint8Array }[];
  /** Digests of the files whose blobs must be written. */
  writeBlobs: string[];
  /** True when the archives must be built (no earlier build has them). */
  archive: boolean;
  /** What the plugin zip's plugin.json is made from (the record's name, description, version, tree hash). */
  plugin: PluginSource;
  /** The build's staging folder (holds blobs/). */
  staging: string;
}

/** What staging one skill produced. */
export interface StageResult {
  archives: SkillRecord["archives"] | null;
  /** Blobs written (files and archives) and their bytes. */
  written: number;
  bytes: number;
}

/**
 * A reason staging cannot go on that is the user's to fix, not a bug: a file that changed between
 * the scan and staging (`changed`), or a file that cannot be read or written (`io`: a full disk,
 * permissions). The build reports it without a stack trace and writes nothing.
 */
export class StagingError extends Error {
  readonly kind: "changed" | "io";
  constructor(message: string, kind: "changed" | "io" = "changed") {
    super(message);
    this.name = "StagingError";
    this.kind = kind;
  }
}

/** Runs a file-system call, turning its failure into a StagingError of kind "io" naming the file. */
function io<T>(what: string, file: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new StagingError(`cannot ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, "io");
  }
}

/**
 * Writes a blob under its digest in the staging folder. No temporary name is needed: the folder is
 * private to this build, each digest is staged once, and a build that fails discards the folder.
 */
function writeBlob(staging: string, sha256: string, bytes: Uint8Array): void {
  const file = path.join(staging, "blobs", sha256);
  io("write", file, () => writeFileSync(file, bytes));
}

/**
 * Stages one skill's blobs and archives into `task.staging/blobs`.
 * @example await stageSkillObjects({ skill, files, writeBlobs: [...], archive: true, staging })
 */
export async function stageSkillObjects(task: StageTask): Promise<StageResult> {
  const result: StageResult = { archives: null, written: 0, bytes: 0 };
  if (task.writeBlobs.length === 0 && !task.archive) return result;
  // Synchronous file calls: this runs on a worker thread (or a CLI's main thread with nothing else
  // to do), where a promise round trip per file costs more than the read or write itself.
  io("create", path.join(task.staging, "blobs"), () => mkdirSync(path.join(task.staging, "blobs"), { recursive: true }));
  const wanted = new Set(task.writeBlobs);
  // Only the files needed: every one for the archives, else just those whose blobs are missing.
  const needed = task.archive ? task.files : task.files.filter((f) => wanted.has(f.sha256));
  const files: SkillFile[] = [];
  for (const file of needed) {
    let bytes = file.bytes;
    if (bytes === undefined) {
      try {
        bytes = new Uint8Array(readFileSync(file.abs));
      } catch (error) {
        throw new StagingError(`${file.abs} could not be read again (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
      if (bytes.length !== file.size || createHash("sha256").update(bytes).digest("hex") !== file.sha256) {
        throw new StagingError(`${file.abs} changed during the build`);
      }
    }
    files.push({ path: file.path, bytes });
    if (wanted.delete(file.sha256)) {
      writeBlob(task.staging, file.sha256, bytes);
      result.written++;
      result.bytes += bytes.length;
    }
  }
  if (task.archive) {
    const archives = await skillArchives(files, task.plugin, (bytes) => createHash("sha256").update(bytes).digest("hex"));
    writeBlob(task.staging, archives.refs.tar_gz.sha256, archives.tarGz);
    writeBlob(task.staging, archives.refs.zip.sha256, archives.zip);
    writeBlob(task.staging, archives.refs.claude_plugin.sha256, archives.claudePlugin);
    result.written += 3;
    result.bytes += archives.tarGz.length + archives.zip.length + archives.claudePlugin.length;
    result.archives = archives.refs;
  }
  return result;
}
