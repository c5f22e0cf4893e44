// The build's local cache, kept in the build folder (build-cache.json, never published): for each
// skill folder, the stat fields of its files and what those files alone decided (validation
// problems, the record without its trust section, the archives' digests, the Claude Code plugin
// zip's included). A skill whose files all stat the same is not read again; its record is still
// recomputed from the cached fields and this build's trust records, so verdicts always follow the
// shelf's records. Archives are keyed by tree hash, so a skill whose files changed back, or moved,
// reuses them too. `build --verify` ignores
// the cache and rehashes everything. The file starts with the SHA-256 of its JSON, so a damaged
// cache is ignored rather than trusted, and so is one whose JSON does not have the cache's shape
// (an edit with the checksum recomputed) or that is not a regular file (a named pipe would hang).
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ARCHIVE_COMPRESSION_LEVEL } from "../../core/generation/archive.ts";
import { z } from "zod";
import { ArchivesSchema, SkillRecordSchema, type SkillRecord } from "../../core/generation/manifest.ts";
import type { DescribedSkill } from "../../core/generation/assemble.ts";
import type { Problem } from "../../core/skill/validate.ts";
import { AUDIT_RULE_SET, SEVERITIES } from "../../core/audit/rules.ts";
import type { Finding } from "../../core/audit/scan.ts";
import type { SkillDirEntry } from "./skill-dir.ts";

/** The cache's file name inside a build folder. */
export const BUILD_CACHE_FILE = "build-cache.json";
/** /2: described skills carry `skill_md_head` (a /1 cache is rebuilt, so every record gets one). */
const CACHE_SCHEMA = "skillshelf-build-cache/2";

/**
 * Files modified this recently are not cached: a write in the same clock tick as our stat could
 * keep its size and mtime (git's "racy clean" problem), so such a skill is read again next time.
 */
const RACY_WINDOW_NS = 2_000_000_000n;

/** What the cache remembers of one skill folder. */
export interface SkillScan {
  /** Validation problems (errors and warnings) exactly as a fresh read reports them. */
  problems: Problem[];
  /** Present when the skill is valid. */
  described: DescribedSkill | null;
  /**
   * The audit's findings for these bytes (core/audit), with the rule set and tree hash they were
   * computed for: an unchanged skill is not scanned again, a new rule set scans it again.
   */
  audit?: { rule_set: string; tree_hash: string | null; findings: Finding[] };
}

type StatRow = [path: string, size: number, mtimeNs: string, ctimeNs: string, ino: string];

interface CacheDocument {
  schema: typeof CACHE_SCHEMA;
  /** Which code and which shelf the scans came from: any difference discards them. */
  key: string;
  skills: Record<string, { stats: StatRow[]; scan: SkillScan }>;
  /** Tree hash → archive digests (independent of the key's shelf part). */
  archives: Record<string, SkillRecord["archives"]>;
  /** The code fingerprint the archives were made with. */
  tool: string;
  /** SHA-256 of a document's JSON.stringify text → its canonical document's digest and size. */
  documents: Record<string, [sha256: string, size: number]>;
}

/** The cache's shape: a document that hashes right but breaks it is no cache at all. */
const CacheDocumentSchema = z.object({
  schema: z.literal(CACHE_SCHEMA),
  key: z.string(),
  tool: z.string(),
  skills: z.record(
    z.string(),
    z.object({
      stats: z.array(z.tuple([z.string(), z.number(), z.string(), z.string(), z.string()])),
      scan: z.object({
        problems: z.array(z.object({ skill: z.string(), field: z.string(), severity: z.enum(["error", "warning"]), message: z.string() })),
        described: SkillRecordSchema.omit({ schema: true, archives: true, trust: true }).nullable(),
        audit: z
          .object({
            rule_set: z.string(),
            tree_hash: z.string().nullable(),
            findings: z.array(
              z.object({
                rule: z.string(),
                severity: z.enum(SEVERITIES as [Finding["severity"], ...Finding["severity"][]]),
                file: z.string(),
                line: z.number(),
                column: z.number(),
                message: z.string(),
                excerpt: z.string(),
              }),
            ),
          })
          .optional(),
      }),
    }),
  ),
  archives: z.record(z.string(), ArchivesSchema),
  documents: z.record(z.string(), z.tuple([z.string().regex(/^[0-9a-f]{64}$/), z.number().int().nonnegative()])),
});

/** The cache file's text, or null when it is absent or not a regular file (opened without blocking, so a named pipe cannot hang the build). */
async function readCacheText(file: string): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

function statRows(entries: readonly SkillDirEntry[]): StatRow[] {
  return entries.map((e) => [e.path, e.size, e.mtimeNs.toString(), e.ctimeNs.toString(), e.ino.toString()]);
}

/**
 * A fingerprint of the code that scans and compresses: the bundle's bytes when the CLI runs from
 * dist/, else every source file's size and mtime under src/cli and src/core (a checkout), so an
 * edit to a rule or to the archive format never reuses an old answer.
 */
async function toolFingerprint(): Promise<string> {
  const hash = createHash("sha256").update(`${CACHE_SCHEMA} level=${ARCHIVE_COMPRESSION_LEVEL}\n`);
  const self = fileURLToPath(import.meta.url);
  if (!self.endsWith(".ts")) {
    hash.update(await readFile(self));
    return hash.digest("hex");
  }
  const src = path.resolve(path.dirname(self), "../..");
  for (const dir of ["cli", "core"]) {
    const names = (await readdir(path.join(src, dir), { recursive: true })).filter((n) => n.endsWith(".ts")).sort();
    for (const name of names) {
      const s = await stat(path.join(src, dir, name), { bigint: true });
      hash.update(`${dir}/${name} ${s.size} ${s.mtimeNs}\n`);
    }
  }
  return hash.digest("hex");
}

/** The stat cache of one build folder. Loading never fails: a missing or unreadable cache is an empty one. */
export class BuildCache {
  readonly #key: string;
  readonly #tool: string;
  readonly #previous: CacheDocument["skills"];
  readonly #previousArchives: CacheDocument["archives"];
  readonly #skills: CacheDocument["skills"] = {};
  readonly #archives: CacheDocument["archives"] = {};
  readonly #previousDocuments: CacheDocument["documents"];
  readonly #documents: CacheDocument["documents"] = {};
  readonly #startedNs: bigint;
  /** False while this build has learned nothing new: an unchanged rebuild then skips writing the cache. */
  #dirty: boolean;

  private constructor(key: string, tool: string, previous: CacheDocument | null) {
    this.#key = key;
    this.#tool = tool;
    this.#previous = previous?.key === key ? previous.skills : {};
    this.#previousArchives = previous?.tool === tool ? previous.archives : {};
    this.#previousDocuments = previous?.tool === tool ? previous.documents : {};
    this.#startedNs = BigInt(Date.now()) * 1_000_000n;
    this.#dirty = previous === null || previous.key !== key || previous.tool !== tool;
  }

  /**
   * The cache for building `shelfDir` into `outDir`; `fresh` (build --verify) starts empty.
   * @example const cache = await BuildCache.open("shelf", "build", false)
   */
  static async open(shelfDir: string, outDir: string, fresh: boolean): Promise<BuildCache> {
    const tool = await toolFingerprint();
    // Problem messages name folders as the user typed them, so the shelf argument and cwd are part of the key.
    const key = createHash("sha256")
      .update(JSON.stringify([tool, shelfDir, process.cwd()]))
      .digest("hex");
    if (fresh) return new BuildCache(key, tool, null);
    let previous: CacheDocument | null = null;
    try {
      // The first line is the SHA-256 of the rest: a damaged or edited cache is an empty one, never a wrong answer.
      const text = (await readCacheText(path.join(outDir, BUILD_CACHE_FILE))) ?? "";
      const newline = text.indexOf("\n");
      const body = text.slice(newline + 1);
      if (newline === 64 && createHash("sha256").update(body).digest("hex") === text.slice(0, 64)) {
        // Checked, but kept as read: the schema's output orders keys its own way, and cached
        // documents are keyed by the JSON text of what the build derives from these values.
        const doc = JSON.parse(body) as unknown;
        if (CacheDocumentSchema.safeParse(doc).success) previous = doc as CacheDocument;
      }
    } catch {
      // No cache yet, or one we cannot read: every skill is read.
    }
    return new BuildCache(key, tool, previous);
  }

  /** The cached scan of a skill folder when every file stats exactly as when it was cached. */
  lookup(folder: string, entries: readonly SkillDirEntry[]): SkillScan | null {
    const cached = Object.hasOwn(this.#previous, folder) ? this.#previous[folder] : undefined;
    if (!cached || cached.stats.length !== entries.length) return null;
    // Findings of another rule set are stale: the skill is read and scanned again.
    if (cached.scan.audit?.rule_set !== AUDIT_RULE_SET) return null;
    const rows = statRows(entries);
    for (let i = 0; i < rows.length; i++) {
      const a = rows[i]!;
      const b = cached.stats[i]!;
      if (a[0] !== b[0] || a[1] !== b[1] || a[2] !== b[2] || a[3] !== b[3] || a[4] !== b[4]) return null;
    }
    return cached.scan;
  }

  /** Remembers a folder's scan for the next build, unless a file changed too recently to trust its stat. */
  remember(folder: string, entries: readonly SkillDirEntry[], scan: SkillScan): void {
    if (entries.some((e) => e.mtimeNs > this.#startedNs - RACY_WINDOW_NS)) {
      this.#dirty = true;
      return;
    }
    const previous = this.#previous[folder];
    // lookup() hands back the cached object itself, so the same object means nothing changed.
    if (previous?.scan === scan) this.#skills[folder] = previous;
    else {
      this.#dirty = true;
      this.#skills[folder] = { stats: statRows(entries), scan };
    }
  }

  /** The archives built earlier for a tree hash, if any. */
  archivesFor(treeHash: string): SkillRecord["archives"] | null {
    return this.#archives[treeHash] ?? this.#previousArchives[treeHash] ?? null;
  }

  /** Records the archives of a tree hash (kept only for skills in this build). */
  rememberArchives(treeHash: string, archives: SkillRecord["archives"]): void {
    const previous = this.#previousArchives[treeHash];
    if (
      previous?.tar_gz.sha256 !== archives.tar_gz.sha256 ||
      previous?.zip.sha256 !== archives.zip.sha256 ||
      previous?.claude_plugin?.sha256 !== archives.claude_plugin?.sha256
    )
      this.#dirty = true;
    this.#archives[treeHash] = archives;
  }

  /**
   * The canonical document of a JSON value seen before (keyed by a hash of its JSON.stringify
   * text, which determines the value and so its canonical form), or null.
   */
  documentFor(jsonKey: string): { sha256: string; size: number } | null {
    const known = this.#previousDocuments[jsonKey] ?? this.#documents[jsonKey];
    return known ? { sha256: known[0], size: known[1] } : null;
  }

  /** Remembers a document's digest for the next build (kept only for documents of this build). */
  rememberDocument(jsonKey: string, doc: { sha256: string; size: number }): void {
    if (this.#previousDocuments[jsonKey]?.[0] !== doc.sha256) this.#dirty = true;
    this.#documents[jsonKey] = [doc.sha256, doc.size];
  }

  /**
   * Writes the cache into the build folder (through a temporary sibling of the folder, so a crash
   * never leaves a stray file inside it), unless nothing changed since the cache was read.
   */
  async save(outDir: string): Promise<void> {
    const count = (o: object) => Object.keys(o).length;
    const shrank =
      count(this.#skills) !== count(this.#previous) ||
      count(this.#archives) !== count(this.#previousArchives) ||
      count(this.#documents) !== count(this.#previousDocuments);
    if (!this.#dirty && !shrank) return;
    const doc: CacheDocument = {
      schema: CACHE_SCHEMA,
      key: this.#key,
      tool: this.#tool,
      skills: this.#skills,
      archives: this.#archives,
      documents: this.#documents,
    };
    const tmp = path.join(path.dirname(path.resolve(outDir)), `.${path.basename(outDir)}.cache-tmp-${process.pid}`);
    const body = JSON.stringify(doc);
    await writeFile(tmp, `${createHash("sha256").update(body).digest("hex")}\n${body}`);
    await rename(tmp, path.join(outDir, BUILD_CACHE_FILE));
  }
}
