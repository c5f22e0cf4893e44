// The shelf's import files on disk: provenance.yaml (read by build and validate, written by
// import) and skillshelf.yaml's allow-list, with relative folder entries resolved against the shelf.
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseProvenance, PROVENANCE_FILE, serializeProvenance, type ProvenanceEntry } from "../../../core/import/provenance.ts";
import { parseShelfConfig, SHELF_CONFIG_FILE, ShelfConfigError, SourceError, sourceIdentity } from "../../../core/import/sources.ts";
import { CliError } from "../cli.ts";

async function readOptionalText(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** provenance.yaml's entries (empty when the shelf has none); a malformed file throws ProvenanceError. */
export async function readProvenanceFile(shelfDir: string): Promise<Map<string, ProvenanceEntry>> {
  const text = await readOptionalText(path.join(shelfDir, PROVENANCE_FILE));
  return text === null ? new Map() : parseProvenance(text);
}

/** Writes provenance.yaml whole (a rename of a fully written copy, so a crash leaves old or new). */
export async function writeProvenanceFile(shelfDir: string, entries: ReadonlyMap<string, ProvenanceEntry>): Promise<void> {
  const file = path.join(shelfDir, PROVENANCE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, serializeProvenance(entries));
  await rename(tmp, file);
}

/** True when an allow-list entry or source names a local folder rather than a URL or owner/repo. */
export function isLocalPath(spec: string): boolean {
  return spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("/") || spec === "." || spec === ".." || /^[A-Za-z]:[\\/]/.test(spec);
}

/** The identity of a location, a local path made a file:// URL against `base` first. */
export function identityOf(spec: string, base: string): string {
  if (isLocalPath(spec)) return sourceIdentity(pathToFileURL(path.resolve(base, spec)).href);
  return sourceIdentity(spec);
}

/** The shelf's allow-list as identities; null when skillshelf.yaml is absent or names no sources. */
export async function readAllowList(shelfDir: string): Promise<{ file: string; entries: { written: string; identity: string }[] } | null> {
  const file = path.join(shelfDir, SHELF_CONFIG_FILE);
  const text = await readOptionalText(file);
  if (text === null) return null;
  let sources: string[] | null;
  try {
    sources = parseShelfConfig(text).sources;
  } catch (error) {
    if (error instanceof ShelfConfigError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
  if (sources === null) return null;
  return {
    file,
    entries: sources.map((written) => {
      try {
        return { written, identity: identityOf(written, shelfDir) };
      } catch (error) {
        if (error instanceof SourceError) throw new CliError(`${file}: sources: ${error.message}`);
        throw error;
      }
    }),
  };
}
