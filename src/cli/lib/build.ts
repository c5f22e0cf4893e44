// `skillshelf build`: turns a shelf folder into a build folder (build-folder.ts). Every skill is
// checked first (checkShelf, which `validate` reports) and every problem reported; when any is
// refused nothing is written. Incremental: a skill whose files stat as in the last build is not
// read again (build-cache.ts), blobs the folder holds are not written again, and archives are
// reused by tree hash; what remains is compressed on worker threads (skill-objects-pool.ts) while
// the scan goes on. Records are always recomputed, so verdicts follow this build's trust records,
// and the result is byte-identical to a fresh build's.
import path from "node:path";
import { createHash } from "node:crypto";
import {
  assembleDocuments,
  describeSkillFiles,
  type AssembledDocuments,
  type DescribedSkill,
  type DocumentOf,
  type SkillRecordInput,
} from "../../core/generation/assemble.ts";
import { LIFECYCLE_FILE, parseLifecycle, type Lifecycle } from "../../core/changes/lifecycle.ts";
import { canonicalDocument } from "../../core/generation/canonical-json.ts";
import { SKILL_RECORD_SCHEMA, type GenerationManifest, type SkillRecord } from "../../core/generation/manifest.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { AUDIT_RULE_SET } from "../../core/audit/rules.ts";
import { auditSkill, type Finding } from "../../core/audit/scan.ts";
import { acknowledgedIds, applyAudit, findingId } from "../../core/audit/verdict.ts";
import { recordAudit } from "../../core/audit/published.ts";
import type { SkillFile } from "../../core/skill/skill.ts";
import type { Problem } from "../../core/skill/validate.ts";
import type { SignaturesDocument } from "../../core/signing/signatures.ts";
import { sourceCandidates, validationsFor } from "../../core/trust/evaluate.ts";
import { PROVENANCE_FILE, ProvenanceError, publishedProvenance, type ProvenanceEntry } from "../../core/import/provenance.ts";
import { loadShelfRecords, type ShelfRecordFiles, type ShelfRecords } from "../../core/trust/records.ts";
import { judgeSkill } from "../../core/trust/select.ts";
import { advisoryToDict, validationToDict } from "../../core/trust/serialize.ts";
import { BuildCache, type SkillScan } from "./build-cache.ts";
import { BuildStaging, checkBuildTarget, heldObjects, heldSize, withBuildLock, type HeldObjects } from "./build-folder.ts";
import { CliError } from "./cli.ts";
import { readProvenanceFile } from "./import/shelf-files.ts";
import { readLifecycleText, readShelfRecordFiles } from "./shelf-records.ts";
import { listShelfSkillDirs, loadSkill, readSkillFiles, requireDir, walkSkillDir, type SkillDirEntry } from "./skill-dir.ts";
import { StagingError, type StageResult } from "./skill-objects.ts";
import { defaultJobs, SkillObjectsPool, WorkerFailedError } from "./skill-objects-pool.ts";

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
      `build refused: ${problems.length} problem(s); nothing was written (the build folder is unchanged):\n${problems.map((p) => `  ${p.skill ?? "shelf"}: ${p.field}: ${p.message}`).join("\n")}`,
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
  /** What the build stores for the skill (its record without archives), present when it has no errors. */
  record?: SkillRecordInput;
  /** Its files as the walk found them (absent when the folder could not be walked). */
  entries?: SkillDirEntry[];
  /** True when its scan came from the build cache (nothing was read). */
  cached?: boolean;
  /** The audit's findings for its files (from the cache when unchanged); null when it could not be read. */
  audit?: SkillScan["audit"] | null;
  /** The bytes this scan read and hashed (absent when cached); the build drops them once staged. */
  files?: SkillFile[];
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
  /** The shelf's lifecycle.yaml (deprecations, renames), null when it has none or it is malformed (then a record problem). */
  lifecycle: Lifecycle | null;
  /** provenance.yaml's entries by skill name (none when the shelf has no such file). */
  provenance: Map<string, ProvenanceEntry>;
}

/** Options for {@link checkShelf}. */
export interface CheckShelfOptions {
  /** Reuse scans of unchanged folders, and remember new ones. */
  cache?: BuildCache;
  /** Called once the number of skill folders is known. */
  onStart?: (total: number) => void;
  /** Called for each skill as soon as it is checked (the build starts its heavy work here). */
  onSkill?: (skill: CheckedSkill) => void | Promise<void>;
}

/** How many skill folders are walked ahead of the one being checked. */
const SCAN_AHEAD = 16;

/** The blobs of a skill's archives; null where a cached entry predates the Claude Code plugin zip. */
function archiveBlobs(archives: SkillRecord["archives"]): (string | null)[] {
  return [archives.tar_gz.sha256, archives.zip.sha256, archives.claude_plugin?.sha256 ?? null];
}

type ScannedFolder = { folder: string; dir: string } & (
  | { entries: SkillDirEntry[]; scan: SkillScan; cached: boolean; files?: SkillFile[] }
  | { error: string }
);

/** Walks one folder and scans it, or takes its scan from the cache; a filesystem refusal is a problem. */
async function scanFolder(dir: string, cache: BuildCache | undefined): Promise<ScannedFolder> {
  const folder = path.basename(dir);
  try {
    const entries = await walkSkillDir(dir);
    const hit = cache?.lookup(folder, entries) ?? null;
    if (hit) return { folder, dir, entries, scan: hit, cached: true };
    const files = await readSkillFiles(entries);
    return { folder, dir, entries, scan: await scanSkill(dir, files), cached: false, files };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { folder, dir, error: error.message };
  }
}

/** Reads, validates and describes one skill folder: what its files alone decide. */
async function scanSkill(dir: string, files: SkillFile[]): Promise<SkillScan> {
  const skill = await loadSkill(dir, files);
  const { metadata, parsed } = skill.validation;
  const audit = { rule_set: AUDIT_RULE_SET, tree_hash: skill.inventory?.tree_hash ?? null, findings: auditSkill(files).findings };
  if (!skill.validation.ok || !metadata || !parsed || !skill.inventory) return { problems: [...skill.validation.problems], described: null, audit };
  return { problems: [...skill.validation.problems], described: describeSkillFiles(metadata, parsed, skill.inventory), audit };
}

/** The record's trust section for a skill under the shelf's records, or the reason it is blocked. */
function trustOf(
  records: ShelfRecords,
  folder: string,
  described: DescribedSkill,
  findings: readonly Finding[],
): { trust: SkillRecordInput["trust"]; audit: NonNullable<SkillRecordInput["audit"]> } | { blocked: Problem } {
  const notes: string[] = [];
  // The audit can only make a verdict stricter; without gating findings it is the same object.
  const verdict = applyAudit(
    judgeSkill(records, { name: described.name, tree_hash: described.tree_hash, has_scripts: described.has_scripts }, (m) => notes.push(m)),
    findings,
  );
  if (verdict.blocked) {
    return {
      blocked: {
        skill: folder,
        field: "trust",
        severity: "error",
        message: `verdict is blocked (${verdict.reasons.join("; ")}); remove the skill from the shelf, withdraw the advisory, or acknowledge a finding you have read`,
      },
    };
  }
  const hashBound = validationsFor(records, described.tree_hash);
  const bound = hashBound.length ? hashBound : records.validations.filter((r) => r.name === described.name);
  return {
    // Published with the record: the findings for exactly this tree, and what the verdict's validation record acknowledges.
    audit: recordAudit(AUDIT_RULE_SET, described.tree_hash, findings, acknowledgedIds(verdict.validation?.evidence)),
    trust: {
      source: sourceCandidates(records, described.name, described.tree_hash)[0]?.source ?? null,
      validations: bound.map(validationToDict),
      verdict: {
        level: verdict.level,
        blocked: verdict.blocked,
        requires_review: verdict.requires_review,
        attachable: verdict.attachable,
        reasons: verdict.reasons,
        warnings: [...new Set([...verdict.warnings, ...notes])],
      },
    },
  };
}

/**
 * Reads and checks a whole shelf exactly as the build does, writing nothing: its trust records,
 * then every skill folder against core's rules (SKILL.md and the file tree, validateSkillFolder)
 * and the build's verdict (a blocked skill is refused). `validate` reports what this finds and
 * `build` refuses on it, so the two cannot disagree.
 */
export async function checkShelf(shelfDir: string, options: CheckShelfOptions = {}): Promise<CheckedShelf> {
  await requireDir(shelfDir, "shelf folder");
  const recordBytes = await readShelfRecordFiles(shelfDir);
  const loaded = loadShelfRecords(recordBytes);
  const recordProblems = loaded.problems.map((p) => ({ skill: null, field: p.file, message: `${p.line !== null ? `line ${p.line}: ` : ""}${p.message}` }));
  const records: ShelfRecords = loaded.records;
  const provenance = await readProvenanceFile(shelfDir).catch((error: unknown) => {
    if (!(error instanceof ProvenanceError)) throw error;
    recordProblems.push({ skill: null, field: PROVENANCE_FILE, message: error.problems.join("; ") });
    return new Map<string, ProvenanceEntry>();
  });

  const skills: CheckedSkill[] = [];
  const dirs = await listShelfSkillDirs(shelfDir);
  options.onStart?.(dirs.length);
  // Folders are walked (and read, when not cached) a window ahead, so the file system's waits
  // overlap; results are taken in folder order, so the output never depends on timing.
  const scanAt = (i: number) => scanFolder(dirs[i]!, options.cache);
  const window: Promise<ScannedFolder>[] = [];
  for (let i = 0; i < Math.min(SCAN_AHEAD, dirs.length); i++) window.push(scanAt(i));
  for (let i = 0; i < dirs.length; i++) {
    const scanned = await window[i]!;
    if (i + SCAN_AHEAD < dirs.length) window.push(scanAt(i + SCAN_AHEAD));
    delete window[i];
    const { folder, dir } = scanned;
    if ("error" in scanned) {
      const failed: CheckedSkill = { folder, dir, problems: [{ skill: folder, field: "files", severity: "error", message: scanned.error }] };
      skills.push(failed);
      await options.onSkill?.(failed);
      continue;
    }
    const { entries, scan, cached, files } = scanned;
    options.cache?.remember(folder, entries, scan);
    // The bytes go along only to a caller that stages them (build); validate keeps none.
    const checked: CheckedSkill = { folder, dir, problems: [...scan.problems], entries, cached, ...(files && options.onSkill ? { files } : {}) };
    skills.push(checked);
    // Findings are shown as warnings (never refusing by themselves); the verdict below gates on them.
    const findings = scan.audit?.findings ?? [];
    for (const f of findings) {
      checked.problems.push({ skill: folder, field: "audit", severity: "warning", message: `${f.severity} ${findingId(f)}: ${f.message.split(". ")[0]}` });
    }
    checked.audit = scan.audit ?? null;
    if (scan.described) {
      const judged = trustOf(records, folder, scan.described, findings);
      if ("blocked" in judged) checked.problems.push(judged.blocked);
      else {
        const imported = provenance.get(folder);
        checked.record = {
          ...scan.described,
          trust: judged.trust,
          audit: judged.audit,
          ...(imported ? { provenance: publishedProvenance(imported, scan.described.tree_hash) } : {}),
        };
      }
    }
    await options.onSkill?.(checked);
  }
  // lifecycle.yaml names skills, so it is checked against the folders just read.
  const lifecycleText = await readLifecycleText(shelfDir);
  let lifecycle: Lifecycle | null = null;
  if (lifecycleText !== null) {
    const parsed = parseLifecycle(
      lifecycleText,
      skills.map((s) => s.record?.name ?? s.folder),
    );
    lifecycle = parsed.lifecycle;
    for (const p of parsed.problems) recordProblems.push({ skill: null, field: LIFECYCLE_FILE, message: p.message });
  }
  return { recordBytes, records, recordProblems, recordWarnings: loaded.warnings, skills, lifecycle, provenance };
}

/** Every reason a checked shelf cannot be built: its records' problems, then each skill's errors. */
export function buildProblems(checked: CheckedShelf): BuildProblem[] {
  const skillErrors = checked.skills.flatMap((s) =>
    s.problems.filter((p) => p.severity === "error").map((p) => ({ skill: s.folder, field: p.field, message: p.message })),
  );
  return [...checked.recordProblems, ...skillErrors];
}

/** The build's audit summary over its checked skills. */
function auditTotals(skills: readonly CheckedSkill[]): BuildSummary["audit"] {
  const counts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  let withFindings = 0;
  for (const s of skills) {
    const findings = s.audit?.findings ?? [];
    if (findings.length) withFindings++;
    for (const f of findings) counts[f.severity]++;
  }
  return { rule_set: AUDIT_RULE_SET, counts, skills_with_findings: withFindings, scanned: skills.filter((s) => s.audit && !s.cached).length };
}

/** How far a build has got, for progress output. */
export interface BuildProgress {
  total: number;
  checked: number;
  /** Skills whose blobs or archives are being prepared (in the staging folder), and how many of those are done. */
  staging: number;
  staged: number;
}

/** Options for {@link buildShelf}. */
export interface BuildShelfOptions {
  /** Called for each validation warning (warnings never refuse a build). */
  onWarning?: (warning: BuildProblem) => void;
  /** Called for each trust-record warning (an absent file, an unknown key); never refuses a build. */
  onRecordWarning?: (message: string) => void;
  /** Called as skills are checked and staged. */
  onProgress?: (progress: BuildProgress) => void;
  /** Ignore the build cache and what the folder holds: read, hash and compress everything again. */
  verify?: boolean;
  /** Worker threads for compression (default: one per core; 1 compresses on the main thread). */
  jobs?: number;
  /** Signs the assembled generation before it is written (signatures.json). */
  sign?: (documents: AssembledDocuments) => Promise<SignaturesDocument>;
}

/** What a build did. */
export interface BuildSummary {
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
  /** Each record with its digest, in name order. */
  records: AssembledDocuments["records"];
  /** Every object the generation references. */
  objects: number;
  /** Skills not read again (their files stat as in the last build). */
  reused: number;
  /** Skills whose archives were compressed by this build. */
  archived: number;
  /** Objects this build wrote, and their bytes. */
  written: number;
  writtenBytes: number;
  signatures?: SignaturesDocument;
  /** The audit over this build's skills: findings by severity, and how many skills were scanned (not cached). */
  audit: { rule_set: string; counts: Record<Finding["severity"], number>; skills_with_findings: number; scanned: number };
}

/**
 * Builds `shelfDir` into the build folder `outDir`: checks every skill (refusing with every
 * problem and writing nothing), stages what the folder lacks, assembles the records, shards,
 * search index and manifest, optionally signs, and commits (build-folder.ts).
 * @example const { id } = await buildShelf("shelf", "build") // the generation id
 */
export async function buildShelf(shelfDir: string, outDir: string, options: BuildShelfOptions = {}): Promise<BuildSummary> {
  await checkBuildTarget(outDir, shelfDir);
  return withBuildLock(outDir, async () => {
    await checkBuildTarget(outDir, shelfDir);
    const held: HeldObjects = options.verify ? { blob: new Set(), record: new Set(), shard: new Set() } : await heldObjects(outDir);
    const cache = await BuildCache.open(shelfDir, outDir, options.verify ?? false);
    const staging = await BuildStaging.create(outDir);
    const pool = new SkillObjectsPool(options.jobs ?? defaultJobs());
    try {
      return await buildInto(shelfDir, outDir, options, held, cache, staging, pool);
    } catch (error) {
      await staging.discard();
      throw error;
    } finally {
      await pool.close();
    }
  });
}

async function buildInto(
  shelfDir: string,
  outDir: string,
  options: BuildShelfOptions,
  held: HeldObjects,
  cache: BuildCache,
  staging: BuildStaging,
  pool: SkillObjectsPool,
): Promise<BuildSummary> {
  const progress: BuildProgress = { total: 0, checked: 0, staging: 0, staged: 0 };
  const report = () => options.onProgress?.({ ...progress });
  const staged = new Set<string>();
  const archivesOf = new Map<string, SkillRecord["archives"]>();
  const work: Promise<void>[] = [];
  // Skills staged at once: enough to keep every worker busy, few enough that finished and queued
  // skills never hold much of the shelf in memory (the scan waits for a slot).
  const maxInFlight = Math.max(2, 2 * (options.jobs ?? defaultJobs()));
  const inFlight = new Set<Promise<void>>();
  const failures: Error[] = [];
  let archived = 0;
  let written = 0;
  let writtenBytes = 0;
  const count = (result: StageResult) => {
    written += result.written;
    writtenBytes += result.bytes;
  };

  // Each valid skill's heavy work starts as soon as it is checked, so compression overlaps the scan.
  const stage = async (skill: CheckedSkill) => {
    progress.checked++;
    const record = skill.record;
    if (!record || !skill.entries) {
      delete skill.files;
      return report();
    }
    const heldOrStaged = (sha: string) => held.blob.has(sha) || staged.has(sha);
    const writeBlobs = [...new Set(record.files.map((f) => f.sha256))].filter((sha) => !heldOrStaged(sha));
    for (const sha of writeBlobs) staged.add(sha);
    const reusable = options.verify ? null : cache.archivesFor(record.tree_hash);
    // A cache entry from before the plugin zip existed has none: those archives are made again.
    const archive = !reusable || archiveBlobs(reusable).some((sha) => sha === null || !heldOrStaged(sha));
    if (!archive) {
      archivesOf.set(record.name, reusable!);
      cache.rememberArchives(record.tree_hash, reusable!);
    }
    if (writeBlobs.length === 0 && !archive) {
      delete skill.files;
      return report();
    }
    const byPath = new Map(skill.entries.map((e) => [e.path, e.abs]));
    const bytesOf = new Map(skill.files?.map((f) => [f.path, f.bytes]));
    const files = record.files.map((f) => ({ path: f.path, abs: byPath.get(f.path)!, sha256: f.sha256, size: f.size, bytes: bytesOf.get(f.path) }));
    delete skill.files; // held only until staged
    progress.staging++;
    report();
    const task = pool
      .run({
        skill: record.name,
        files,
        writeBlobs,
        archive,
        plugin: { name: record.name, description: record.description, version: record.version, tree_hash: record.tree_hash },
        staging: staging.dir,
      })
      .then(
        (result) => {
          count(result);
          if (result.archives) {
            archived++;
            archivesOf.set(record.name, result.archives);
            cache.rememberArchives(record.tree_hash, result.archives);
            for (const sha of archiveBlobs(result.archives)) staged.add(sha!);
          }
          progress.staged++;
          report();
        },
        (error: Error) => {
          failures.push(error);
        },
      )
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
    work.push(task);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  };

  const checked = await checkShelf(shelfDir, {
    cache,
    onStart: (total) => {
      progress.total = total;
    },
    onSkill: stage,
  });
  for (const w of checked.recordWarnings) options.onRecordWarning?.(w);
  for (const s of checked.skills) {
    for (const p of s.problems) if (p.severity === "warning") options.onWarning?.({ skill: s.folder, field: p.field, message: p.message });
  }
  await Promise.all(work);
  const problems = buildProblems(checked);
  if (problems.length) throw new BuildRefusedError(problems);
  if (failures.length) {
    const known = failures.find((e) => e instanceof StagingError || e instanceof WorkerFailedError);
    if (known instanceof StagingError && known.kind === "changed") throw new CliError(`${known.message}; nothing was written; run the build again`);
    if (known instanceof StagingError) throw new CliError(`${known.message}; nothing was written`);
    if (known) throw new CliError(`${known.message}; nothing was written; run the build again with --jobs 1 to compress on the main thread`);
    throw failures[0]!;
  }
  const { recordBytes, records } = checked;
  const digest = async (name: keyof ShelfRecordFiles) => (recordBytes[name] ? sha256Hex(recordBytes[name]) : null);
  const skillRecords: SkillRecord[] = checked.skills.map((s) => ({ schema: SKILL_RECORD_SCHEMA, ...s.record!, archives: archivesOf.get(s.record!.name)! }));
  // A record or shard whose JSON is unchanged since the last build (or a search index whose inputs
  // are), and which the folder holds, is not built or canonicalized again: its digest comes from the
  // cache (the JSON text determines the bytes).
  const documentOf: DocumentOf = async (kind, build, key) => {
    const jsonKey = createHash("sha256")
      .update(`${kind}\n${JSON.stringify(key)}`)
      .digest("hex");
    const known = cache.documentFor(jsonKey);
    const heldKind = kind === "search" ? "blob" : kind;
    // The cache names the digest; the size must be the held object's own (a cache edited with its
    // checksum recomputed could name any size, and the manifest would carry it).
    if (known && held[heldKind].has(known.sha256) && (await heldSize(outDir, heldKind, known.sha256)) === known.size) {
      cache.rememberDocument(jsonKey, known);
      return { ...known, bytes: null };
    }
    const doc = await canonicalDocument(build());
    cache.rememberDocument(jsonKey, doc);
    return doc;
  };
  const documents = await assembleDocuments(
    skillRecords,
    {
      catalogVersion: records.catalog?.version ?? null,
      recordDigests: {
        validations: await digest("validations"),
        advisories: await digest("advisories"),
        guidance: await digest("guidance"),
        catalog: await digest("catalog"),
      },
      advisories: recordBytes.advisories ? records.advisories.map(advisoryToDict) : null,
      lifecycle: checked.lifecycle,
    },
    documentOf,
  );
  const keep: HeldObjects = { blob: new Set(documents.digests.blob), record: new Set(documents.digests.record), shard: new Set(documents.digests.shard) };
  for (const { record } of documents.records) {
    for (const f of record.files) keep.blob.add(f.sha256);
    for (const sha of archiveBlobs(record.archives)) if (sha !== null) keep.blob.add(sha);
  }
  for (const object of documents.objects) {
    if (held[object.kind].has(object.sha256) || (object.kind === "blob" && staged.has(object.sha256))) continue;
    await staging.put(object.kind, object.sha256, object.bytes);
    written++;
    writtenBytes += object.bytes.length;
  }
  const signatures = options.sign ? await options.sign(documents) : undefined;
  await staging.commit(documents.manifestBytes, signatures, keep);
  written++;
  writtenBytes += documents.manifestBytes.length;
  // The cache only speeds up the next build: failing to write it is not this build's failure.
  await cache.save(outDir).catch(() => {});
  return {
    id: documents.id,
    manifest: documents.manifest,
    manifestBytes: documents.manifestBytes,
    records: documents.records,
    objects: keep.blob.size + keep.record.size + keep.shard.size,
    reused: checked.skills.filter((s) => s.cached).length,
    archived,
    written,
    writtenBytes,
    ...(signatures ? { signatures } : {}),
    audit: auditTotals(checked.skills),
  };
}
