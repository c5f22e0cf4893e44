// A build folder: manifest.json, every object under its SHA-256 in blobs/, records/ and shards/,
// signatures.json for a signed build, and build-cache.json (the local cache, never published).
// Writing one is staged: new objects go to a temporary sibling folder first; then either the
// sibling becomes the build folder (a new one) or its objects move in and manifest.json is
// replaced last, in one rename, so the folder always names a complete generation; objects no
// longer referenced are removed after. A lock keeps two builds out of one folder.
import { lstat, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import { GenerationManifestSchema, type GenerationManifest } from "../../core/generation/manifest.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { SignaturesDocumentSchema, type SignaturesDocument } from "../../core/signing/signatures.ts";
import { BUILD_CACHE_FILE } from "./build-cache.ts";
import { CliError } from "./cli.ts";
import { isWithin, realPathOf } from "./paths.ts";
import { requireDir } from "./skill-dir.ts";

/** Folder names inside a build folder, one per object kind. */
export const BUILD_DIRS = { blob: "blobs", record: "records", shard: "shards" } as const;
export const BUILD_MANIFEST = "manifest.json";
/** A signed build's signatures (canonical JSON, src/core/signing), beside the manifest, never inside what they sign. */
export const BUILD_SIGNATURES = "signatures.json";

/** Names a build folder holds at its top level, and nothing else. */
const BUILD_ENTRIES: ReadonlySet<string> = new Set([BUILD_MANIFEST, BUILD_SIGNATURES, BUILD_CACHE_FILE, ...Object.values(BUILD_DIRS)]);

/**
 * Refuses a build target that writeBuild must not replace, touching nothing: the shelf itself, a
 * folder inside it or around it, a regular file or symlink, or a folder that is neither empty nor
 * a build folder (a manifest plus only the build's own entries). A missing target is fine.
 */
export async function checkBuildTarget(outDir: string, shelfDir?: string): Promise<void> {
  const out = await realPathOf(outDir);
  if (shelfDir !== undefined) {
    const shelf = await realPathOf(shelfDir);
    if (isWithin(out, shelf) || isWithin(shelf, out)) {
      throw new CliError(
        `refusing to write the build to ${outDir}: it ${out === shelf ? "is" : isWithin(out, shelf) ? "is inside" : "contains"} the shelf folder ${shelfDir}; pass --out a folder outside the shelf`,
      );
    }
  }
  let stat: Awaited<ReturnType<typeof lstat>>;
  try {
    stat = await lstat(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new CliError(`cannot inspect build target ${outDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!stat.isDirectory()) {
    throw new CliError(
      `refusing to write the build to ${outDir}: it is ${stat.isSymbolicLink() ? "a symlink" : "a file, not a folder"}; pass --out a new or empty folder, or an earlier build folder`,
    );
  }
  const names = await readdir(outDir);
  if (names.length === 0) return;
  const foreign = names.filter((n) => !BUILD_ENTRIES.has(n));
  if (!names.includes(BUILD_MANIFEST) || foreign.length) {
    const shown = (foreign.length ? foreign : names)
      .slice(0, 3)
      .map((n) => JSON.stringify(n))
      .join(", ");
    throw new CliError(
      `refusing to replace ${outDir}: it is not empty and not a skillshelf build folder (it holds ${shown}${names.length > 3 ? ", …" : ""}); pass --out a new or empty folder, or remove it yourself`,
    );
  }
}

/** Object kinds as a build folder names them. */
export type ObjectKind = keyof typeof BUILD_DIRS;

/** The digests a build folder already holds, per kind (empty for a new or empty folder). */
export type HeldObjects = Record<ObjectKind, Set<string>>;

/** Lists the objects an earlier build left in `outDir` (which checkBuildTarget has accepted). */
export async function heldObjects(outDir: string): Promise<HeldObjects> {
  const held: HeldObjects = { blob: new Set(), record: new Set(), shard: new Set() };
  for (const kind of Object.keys(BUILD_DIRS) as ObjectKind[]) {
    try {
      for (const name of await readdir(path.join(outDir, BUILD_DIRS[kind]))) if (/^[0-9a-f]{64}$/.test(name)) held[kind].add(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return held;
}

/** The size of an object the build folder holds, or -1 when it is not a regular file there. */
export async function heldSize(outDir: string, kind: ObjectKind, sha256: string): Promise<number> {
  try {
    const info = await lstat(path.join(outDir, BUILD_DIRS[kind], sha256));
    return info.isFile() ? info.size : -1;
  } catch {
    return -1;
  }
}

/**
 * Holds the build folder's lock for the length of `work`: a second build into the same folder is
 * refused with a clear message instead of interleaving its writes.
 */
export async function withBuildLock<T>(outDir: string, work: () => Promise<T>): Promise<T> {
  const parent = path.dirname(path.resolve(outDir));
  await mkdir(parent, { recursive: true });
  let release: () => Promise<void>;
  let compromised: Error | null = null;
  try {
    release = await lockfile.lock(path.resolve(outDir), {
      lockfilePath: path.join(parent, `.${path.basename(outDir)}.build-lock`),
      realpath: false,
      stale: 30_000,
      update: 5_000,
      // A main thread busy compressing can miss an update; the build checks this before it commits.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") throw new CliError(`another skillshelf build is writing ${outDir}; wait for it to finish`);
    throw new CliError(`cannot lock build folder ${outDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let result: T;
  try {
    // Holding the lock, any staging folder beside ours is a build that was interrupted (Ctrl-C, a crash): remove it.
    const prefix = `.${path.basename(outDir)}.tmp-`;
    for (const name of await readdir(parent)) if (name.startsWith(prefix)) await rm(path.join(parent, name), { recursive: true, force: true });
    result = await work();
  } finally {
    await release().catch(() => {});
  }
  if (compromised)
    throw new CliError(`the lock on ${outDir} was lost during the build (${(compromised as Error).message}); check the folder, then build again`);
  return result;
}

/** A temporary sibling of the build folder where a build writes what the folder lacks. */
export class BuildStaging {
  readonly dir: string;
  readonly outDir: string;

  private constructor(outDir: string, dir: string) {
    this.outDir = outDir;
    this.dir = dir;
  }

  /** Creates the staging folder beside `outDir`. */
  static async create(outDir: string): Promise<BuildStaging> {
    const parent = path.dirname(path.resolve(outDir));
    const dir = path.join(parent, `.${path.basename(outDir)}.tmp-${process.pid}-${Date.now().toString(36)}`);
    for (const sub of Object.values(BUILD_DIRS)) await mkdir(path.join(dir, sub), { recursive: true });
    return new BuildStaging(outDir, dir);
  }

  /** Writes one object (the caller skips what the folder already holds). */
  async put(kind: ObjectKind, sha256: string, bytes: Uint8Array): Promise<void> {
    const file = path.join(this.dir, BUILD_DIRS[kind], sha256);
    try {
      await writeFile(file, bytes);
    } catch (error) {
      throw new CliError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; nothing was written`);
    }
  }

  /** Removes the staging folder (a refused or failed build leaves nothing). */
  async discard(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /**
   * Makes the staged generation the build folder's: a new or empty folder is replaced by the
   * staging folder in one rename; an earlier build folder gets the new objects first and its
   * manifest.json last (one rename), then loses every object `keep` does not list.
   */
  async commit(manifestBytes: Uint8Array, signatures: SignaturesDocument | undefined, keep: HeldObjects): Promise<void> {
    try {
      await writeFile(path.join(this.dir, BUILD_MANIFEST), manifestBytes);
      if (signatures) await writeFile(path.join(this.dir, BUILD_SIGNATURES), canonicalJson(signatures));
      const names = await readdir(this.outDir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
      if (names === null || names.length === 0) {
        if (names) await rmdir(this.outDir);
        await rename(this.dir, this.outDir);
        return;
      }
      for (const sub of Object.values(BUILD_DIRS)) {
        await mkdir(path.join(this.outDir, sub), { recursive: true });
        for (const name of await readdir(path.join(this.dir, sub))) await rename(path.join(this.dir, sub, name), path.join(this.outDir, sub, name));
      }
      // Signatures first: a crash between the two renames leaves signatures for another generation,
      // which readBuildFolder refuses ("rebuild it"), never a manifest that seems unsigned.
      if (signatures) await rename(path.join(this.dir, BUILD_SIGNATURES), path.join(this.outDir, BUILD_SIGNATURES));
      await rename(path.join(this.dir, BUILD_MANIFEST), path.join(this.outDir, BUILD_MANIFEST));
      if (!signatures) await rm(path.join(this.outDir, BUILD_SIGNATURES), { force: true });
      for (const kind of Object.keys(BUILD_DIRS) as ObjectKind[]) {
        const sub = path.join(this.outDir, BUILD_DIRS[kind]);
        for (const name of await readdir(sub)) if (!keep[kind].has(name)) await rm(path.join(sub, name), { force: true, recursive: true });
      }
      await this.discard();
    } catch (error) {
      await this.discard();
      throw new CliError(`cannot write build folder ${this.outDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
}

/** A build folder read back: the manifest, its id, and where each object's bytes are. */
export interface BuildFolder {
  dir: string;
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
  /** The build's signatures as written, or null for an unsigned build. */
  signatures: Uint8Array | null;
}

/** Reads a build folder's manifest and checks it parses and hashes to its id. */
export async function readBuildFolder(dir: string): Promise<BuildFolder> {
  await requireDir(dir, "build folder");
  const file = path.join(dir, BUILD_MANIFEST);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch {
    throw new CliError(`no ${BUILD_MANIFEST} in ${dir}; run \`skillshelf build <shelf-dir> --out ${dir}\` first`);
  }
  let manifest: GenerationManifest;
  try {
    manifest = GenerationManifestSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
  } catch (error) {
    throw new CliError(`${file} is not a skillshelf generation manifest (${(error as Error).message.split("\n")[0]}); rebuild it`);
  }
  const id = await sha256Hex(bytes);
  const signatures = await readFile(path.join(dir, BUILD_SIGNATURES)).then(
    (b) => new Uint8Array(b),
    () => null,
  );
  if (signatures) {
    let doc: SignaturesDocument;
    try {
      doc = SignaturesDocumentSchema.parse(JSON.parse(new TextDecoder().decode(signatures)));
    } catch (error) {
      throw new CliError(`${path.join(dir, BUILD_SIGNATURES)} is not a signatures document (${(error as Error).message.split("\n")[0]}); rebuild it`);
    }
    if (doc.generation !== id) throw new CliError(`${path.join(dir, BUILD_SIGNATURES)} signs generation ${doc.generation}, not this build's ${id}; rebuild it`);
  }
  return { dir, id, manifest, manifestBytes: bytes, signatures };
}

/** Reads one object of a build folder. */
export async function readBuildObject(dir: string, kind: keyof typeof BUILD_DIRS, sha256: string): Promise<Uint8Array> {
  const file = path.join(dir, BUILD_DIRS[kind], sha256);
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    throw new CliError(`build folder ${dir} is missing ${BUILD_DIRS[kind]}/${sha256}; rebuild it`);
  }
}
