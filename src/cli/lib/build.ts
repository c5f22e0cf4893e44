// `skillshelf build`: turns a shelf folder into a build folder (manifest.json plus every object
// under its SHA-256). Every skill is checked first (checkShelf, which `validate` reports) and every
// problem reported; when any is refused nothing is written. The folder is written to a temporary
// sibling and renamed into place.
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../core/skill/hash.ts";
import { assembleGeneration, describeSkill, type BuiltGeneration, type SkillBuildInput } from "../../core/generation/assemble.ts";
import { GenerationManifestSchema, type GenerationManifest } from "../../core/generation/manifest.ts";
import type { Problem } from "../../core/skill/validate.ts";
import { judgeSkill } from "../../core/trust/select.ts";
import { sourceCandidates, validationsFor } from "../../core/trust/evaluate.ts";
import { loadShelfRecords, type ShelfRecordFiles, type ShelfRecords } from "../../core/trust/records.ts";
import { readShelfRecordFiles } from "./shelf-records.ts";
import { advisoryToDict, validationToDict } from "../../core/trust/serialize.ts";
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import { SignaturesDocumentSchema, type SignaturesDocument } from "../../core/signing/signatures.ts";
import { CliError } from "./cli.ts";
import { listShelfSkillDirs, loadSkill, requireDir, type LoadedSkill } from "./skill-dir.ts";

/** One reason a shelf cannot be built. `skill` is null for shelf-level problems (trust records). */
export interface BuildProblem {
  skill: string | null;
  field: string;
  message: string;
}

/** Thrown when the shelf cannot be built; lists every problem found. Exit code 1. */
export class BuildRefusedError extends CliError {
  readonly problems: readonly BuildProblem[];
  constructor(problems: readonly BuildProblem[]) {
    super(
      `build refused: ${problems.length} problem(s); nothing was written:\n${problems.map((p) => `  ${p.skill ?? "shelf"}: ${p.field}: ${p.message}`).join("\n")}`,
    );
    this.problems = problems;
  }
}

/** One skill folder as the build checks it. */
export interface CheckedSkill {
  folder: string;
  dir: string;
  /** Its errors and warnings, in the build's words; any error refuses the build. */
  problems: Problem[];
  /** What the build stores for the skill, present when it has no errors. */
  input?: SkillBuildInput;
}

/** A shelf as the build checks it, before anything is assembled or written. */
export interface CheckedShelf {
  recordBytes: ShelfRecordFiles;
  records: ShelfRecords;
  /** Malformed trust records (skill null): each refuses the build. */
  recordProblems: BuildProblem[];
  /** An absent record file, an unknown key: never refuses a build. */
  recordWarnings: string[];
  skills: CheckedSkill[];
}

/**
 * Reads and checks a whole shelf exactly as the build does, writing nothing: its trust records,
 * then every skill folder against core's rules (SKILL.md and the file tree, validateSkillFolder)
 * and the build's verdict (a blocked skill is refused). `validate` reports what this finds and
 * `build` refuses on it, so the two cannot disagree.
 */
export async function checkShelf(shelfDir: string): Promise<CheckedShelf> {
  await requireDir(shelfDir, "shelf folder");
  const recordBytes = await readShelfRecordFiles(shelfDir);
  const loaded = loadShelfRecords(recordBytes);
  const recordProblems = loaded.problems.map((p) => ({ skill: null, field: p.file, message: `${p.line !== null ? `line ${p.line}: ` : ""}${p.message}` }));
  const records: ShelfRecords = loaded.records;

  const skills: CheckedSkill[] = [];
  for (const dir of await listShelfSkillDirs(shelfDir)) {
    const folder = path.basename(dir);
    let skill: LoadedSkill;
    try {
      skill = await loadSkill(dir);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      skills.push({ folder, dir, problems: [{ skill: folder, field: "files", severity: "error", message: error.message }] });
      continue;
    }
    const checked: CheckedSkill = { folder, dir, problems: [...skill.validation.problems] };
    skills.push(checked);
    const { metadata: meta, parsed } = skill.validation;
    if (!skill.validation.ok || !meta || !parsed || !skill.inventory) continue;

    const inventory = skill.inventory;
    const notes: string[] = [];
    const verdict = judgeSkill(records, { name: meta.name, tree_hash: inventory.tree_hash, has_scripts: inventory.has_scripts }, (m) => notes.push(m));
    if (verdict.blocked) {
      checked.problems.push({
        skill: folder,
        field: "trust",
        severity: "error",
        message: `verdict is blocked (${verdict.reasons.join("; ")}); remove the skill from the shelf or withdraw the advisory`,
      });
      continue;
    }
    const hashBound = validationsFor(records, inventory.tree_hash);
    const bound = hashBound.length ? hashBound : records.validations.filter((r) => r.name === meta.name);
    checked.input = {
      files: skill.files,
      record: describeSkill(meta, parsed, inventory, {
        source: sourceCandidates(records, meta.name, inventory.tree_hash)[0]?.source ?? null,
        validations: bound.map(validationToDict),
        verdict: {
          level: verdict.level,
          blocked: verdict.blocked,
          requires_review: verdict.requires_review,
          attachable: verdict.attachable,
          reasons: verdict.reasons,
          warnings: [...new Set([...verdict.warnings, ...notes])],
        },
      }),
    };
  }
  return { recordBytes, records, recordProblems, recordWarnings: loaded.warnings, skills };
}

/** Every reason a checked shelf cannot be built: its records' problems, then each skill's errors. */
export function buildProblems(checked: CheckedShelf): BuildProblem[] {
  const skillErrors = checked.skills.flatMap((s) =>
    s.problems.filter((p) => p.severity === "error").map((p) => ({ skill: s.folder, field: p.field, message: p.message })),
  );
  return [...checked.recordProblems, ...skillErrors];
}

/** Options for {@link buildShelf}. */
export interface BuildShelfOptions {
  /** Called for each validation warning (warnings never refuse a build). */
  onWarning?: (warning: BuildProblem) => void;
  /** Called for each trust-record warning (an absent file, an unknown key); never refuses a build. */
  onRecordWarning?: (message: string) => void;
}

/** Reads and checks a whole shelf ({@link checkShelf}), then assembles its generation in memory. Writes nothing. */
export async function buildShelf(shelfDir: string, options: BuildShelfOptions = {}): Promise<BuiltGeneration> {
  const checked = await checkShelf(shelfDir);
  for (const w of checked.recordWarnings) options.onRecordWarning?.(w);
  for (const s of checked.skills) {
    for (const p of s.problems) if (p.severity === "warning") options.onWarning?.({ skill: s.folder, field: p.field, message: p.message });
  }
  const problems = buildProblems(checked);
  if (problems.length) throw new BuildRefusedError(problems);

  const { recordBytes, records } = checked;
  const digest = async (name: keyof ShelfRecordFiles) => (recordBytes[name] ? sha256Hex(recordBytes[name]) : null);
  return assembleGeneration(
    checked.skills.map((s) => s.input!),
    {
      catalogVersion: records.catalog?.version ?? null,
      recordDigests: {
        validations: await digest("validations"),
        advisories: await digest("advisories"),
        guidance: await digest("guidance"),
        catalog: await digest("catalog"),
      },
      advisories: recordBytes.advisories ? records.advisories.map(advisoryToDict) : null,
    },
  );
}

/** Folder names inside a build folder, one per object kind. */
export const BUILD_DIRS = { blob: "blobs", record: "records", shard: "shards" } as const;
export const BUILD_MANIFEST = "manifest.json";
/** A signed build's signatures (canonical JSON, src/core/signing), beside the manifest, never inside what they sign. */
export const BUILD_SIGNATURES = "signatures.json";

/** The real path of `p`: symlinks resolved for the longest existing prefix, the rest appended. */
async function realPathOf(p: string): Promise<string> {
  const abs = path.resolve(p);
  try {
    return await realpath(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(await realPathOf(parent), path.basename(abs));
  }
}

/** True when `inner` is `outer` or lies somewhere beneath it. */
function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Names a build folder holds at its top level, and nothing else. */
const BUILD_ENTRIES: ReadonlySet<string> = new Set([BUILD_MANIFEST, BUILD_SIGNATURES, ...Object.values(BUILD_DIRS)]);

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

/**
 * Writes a build folder atomically: everything goes to a temporary sibling, which is renamed
 * over `outDir` only when complete, so a crash never leaves a half-written build behind. Only a
 * missing or empty folder or an earlier build folder is replaced ({@link checkBuildTarget});
 * anything else is refused with nothing touched.
 */
export async function writeBuild(built: BuiltGeneration, outDir: string, options: { shelfDir?: string; signatures?: SignaturesDocument } = {}): Promise<void> {
  await checkBuildTarget(outDir, options.shelfDir);
  const parent = path.dirname(path.resolve(outDir));
  await mkdir(parent, { recursive: true });
  const suffix = `${process.pid}-${Date.now().toString(36)}`;
  const tmp = path.join(parent, `.${path.basename(outDir)}.tmp-${suffix}`);
  const old = path.join(parent, `.${path.basename(outDir)}.old-${suffix}`);
  try {
    for (const dir of Object.values(BUILD_DIRS)) await mkdir(path.join(tmp, dir), { recursive: true });
    for (const object of built.objects) await writeFile(path.join(tmp, BUILD_DIRS[object.kind], object.sha256), object.bytes);
    await writeFile(path.join(tmp, BUILD_MANIFEST), built.manifestBytes);
    if (options.signatures) await writeFile(path.join(tmp, BUILD_SIGNATURES), canonicalJson(options.signatures));
    let hadOld = false;
    try {
      await rename(outDir, old);
      hadOld = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await rename(tmp, outDir);
    if (hadOld) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw new CliError(`cannot write build folder ${outDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
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
