// Reading a shelf folder's record files (validations.yaml, advisories.yaml, guidance.yaml,
// catalog.yaml) for the trust commands; a file that is absent is reported, never invented.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { assertRecordsValid, loadShelfRecords, TrustRecordsError, type ShelfRecordFiles, type ShelfRecords } from "../../core/trust/records.ts";
import { CliError } from "./cli.ts";

async function readOptional(file: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** The raw bytes of the record files present at a shelf's root (absent files are left out). */
export async function readShelfRecordFiles(shelfDir: string): Promise<ShelfRecordFiles> {
  const files: ShelfRecordFiles = {};
  for (const kind of ["validations", "advisories", "guidance", "catalog"] as const) {
    const bytes = await readOptional(path.join(shelfDir, `${kind}.yaml`));
    if (bytes !== undefined) files[kind] = bytes;
  }
  return files;
}

/** The text of a shelf's lifecycle.yaml (deprecations, renames), null when it has none. */
export async function readLifecycleText(shelfDir: string): Promise<string | null> {
  const bytes = await readOptional(path.join(shelfDir, "lifecycle.yaml"));
  if (bytes === undefined) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CliError(`${path.join(shelfDir, "lifecycle.yaml")} is not UTF-8 text; save it as UTF-8`);
  }
}

/**
 * Loads a shelf's records, or throws a CliError listing every malformed entry (file:line:col)
 * so the operator can fix them all in one pass. Warnings (absent files) go to `warn`.
 */
export async function readShelfRecords(shelfDir: string, warn: (message: string) => void): Promise<ShelfRecords> {
  const result = loadShelfRecords(await readShelfRecordFiles(shelfDir));
  for (const w of result.warnings) warn(w);
  try {
    return assertRecordsValid(result);
  } catch (error) {
    if (error instanceof TrustRecordsError) {
      throw new CliError(
        `${shelfDir}: ${error.problems.length} malformed trust record(s); fix every one (trust is refused until then):\n${error.problems.map((p) => `  ${p.message}`).join("\n")}`,
      );
    }
    throw error;
  }
}
