// Seeding a curated bundle shelf into a team's shelf folder with AbstractSkill's seed_registry
// outcomes: add what is missing, refresh only what an earlier seed wrote and nobody edited,
// keep everything else with its reason, never delete, and record what was written in
// `.seeded.json` (schema 1, byte-compatible). Two seeds at once are serialised by a
// proper-lockfile lock (mkdir-based, with stale detection); every write is a rename of a fully
// written copy, so a crash leaves each item old or new, and a rerun restores or finishes it.
import { copyFile, lstat, mkdir, mkdtemp, open, readdir, readFile, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { isOsJunkFile, sha256Hex, treeHash } from "../../core/skill/hash.ts";
import { compareCodePoints } from "../../core/python-compat/py-text.ts";
import { pyRepr } from "../../core/python-compat/pyfmt.ts";
import { parsePyYaml } from "../../core/python-compat/yaml11.ts";
import { MAX_RECORD_ALIASES } from "../../core/trust/records.ts";
import { CliError, UsageError } from "./cli.ts";

/** The manifest of what seeds wrote (shared with AbstractSkill). */
export const SEED_MANIFEST = ".seeded.json";
/** Our lock: a directory (proper-lockfile), never AbstractSkill's `.seed.lock` file. */
export const SEED_LOCK_DIR = ".skillshelf-seed.lock";
/** Staging folders, named as AbstractSkill names them so either tool clears the other's leftovers. */
const STAGING_PREFIX = ".seed-staging";
const VERSION_RE = /^\d+(\.\d+)*$/;

/** The outcome buckets, in report order. */
export const SEED_BUCKETS = [
  "added",
  "updated",
  "unchanged",
  "kept_user_modified",
  "kept_foreign",
  "kept_unknown_provenance",
  "kept_symlink",
  "kept_unreadable",
  "kept_newer",
] as const;
export type SeedBucket = (typeof SEED_BUCKETS)[number];

/** What one seed did; every bundled item is in exactly one bucket. */
export type SeedReport = {
  dest: string;
  bundled_version: string;
  /** The version earlier seeds recorded; null when the folder had no manifest. */
  previous_version: string | null;
  not_in_bundle: string[];
  /** True when any item was written (AbstractSkill's `changed`). */
  changed: boolean;
  /** True when `.seeded.json` was (re)written, which may happen with no item written. */
  manifest_written: boolean;
  /** Every kept item mapped to its bucket. */
  kept: Record<string, string>;
  /** Bundle items left alone because the caller excluded them; present only when excluding. */
  excluded?: string[];
} & Record<SeedBucket, string[]>;

/** What the destination holds where a bundled item goes, as the seed found it. */
export type DestinationState = { kind: "absent" } | { kind: "symlink" } | { kind: "unreadable" } | { kind: "present"; hash: string | null };

/** What seeding does with one bundled item: install it, record it as already there, or keep what is there. */
export type SeedDecision = { install: true; bucket: "added" | "updated" } | { install: false; bucket: Exclude<SeedBucket, "added" | "updated"> };

/**
 * The seed's decision for one bundled item, a pure function of what is there and what the
 * manifest recorded (`recorded`: the hash the last seed wrote for it, undefined when it never
 * wrote it; `hasManifest`: whether any seed ran here). A symlink, an unreadable tree, a foreign
 * or user-modified item, and (on a downgrade) a newer seeded one are kept; `hash` is null for an
 * item of the other type (a file where a folder is bundled).
 * @example seedDecision({ kind: "absent" }, "ab…", false, undefined, false) // => { install: true, bucket: "added" }
 */
export function seedDecision(state: DestinationState, bundled: string, hasManifest: boolean, recorded: string | undefined, downgrade: boolean): SeedDecision {
  if (state.kind === "symlink") return { install: false, bucket: "kept_symlink" };
  if (state.kind === "absent") return { install: true, bucket: "added" };
  if (state.kind === "unreadable") return { install: false, bucket: "kept_unreadable" };
  if (state.hash === bundled) return { install: false, bucket: "unchanged" };
  if (!hasManifest) return { install: false, bucket: "kept_unknown_provenance" };
  if (recorded === undefined) return { install: false, bucket: "kept_foreign" };
  if (state.hash !== recorded) return { install: false, bucket: "kept_user_modified" };
  return downgrade ? { install: false, bucket: "kept_newer" } : { install: true, bucket: "updated" };
}

/** Whether the manifest a seed would write says what the one on disk says (then it is not rewritten). */
export function manifestUnchanged(onDisk: (Manifest & Record<string, unknown>) | null, next: Manifest): boolean {
  return (
    onDisk !== null &&
    Object.keys(onDisk).length === 3 &&
    onDisk.bundled_version === next.bundled_version &&
    JSON.stringify(Object.entries(onDisk.items).sort()) === JSON.stringify(Object.entries(next.items).sort())
  );
}

/** Fault-injection points, for crash tests: each runs before the named step. */
export type SeedStep = "stage" | "retire" | "install" | "manifest";

export interface SeedOptions {
  /** Called before each write step; a test kills the process here to simulate a crash. */
  beforeStep?: (step: SeedStep, key: string) => void | Promise<void>;
  /** How long another seed may hold the lock before we give up (ms). Default 120 000. */
  lockWaitMs?: number;
  /** A lock not refreshed for this long is stale and taken over (ms). Default 20 000. */
  lockStaleMs?: number;
  /**
   * Bundle items to leave alone this run: neither added nor updated, their `.seeded.json` entry
   * untouched. Each is a skill name (`security-review`) or an item key (`skills/x`, `guidance.yaml`).
   */
  exclude?: readonly string[];
}

/** A folder that cannot be hashed: a symlink inside it, or an unreadable file. */
class UnreadableTree extends Error {}

async function lstatOrNull(p: string) {
  return lstat(p).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
    throw error;
  });
}

/** AbstractSkill's tree hash of a folder: every regular file but OS junk; a symlink anywhere fails. */
export async function hashFolder(dir: string): Promise<string> {
  const entries: { path: string; sha256: string }[] = [];
  async function walk(rel: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(path.join(dir, rel));
    } catch (error) {
      throw new UnreadableTree(`cannot read ${path.join(dir, rel)}: ${(error as Error).message}`);
    }
    for (const name of names) {
      const childRel = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, childRel);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) throw new UnreadableTree(`skill tree contains a symlink at ${abs}; symlinks are not allowed inside skill folders`);
      if (st.isDirectory()) await walk(childRel);
      else if (st.isFile() && !isOsJunkFile(childRel)) {
        try {
          entries.push({ path: childRel, sha256: await sha256Hex(new Uint8Array(await readFile(abs))) });
        } catch (error) {
          throw new UnreadableTree(`cannot read ${abs}: ${(error as Error).message}`);
        }
      }
    }
  }
  await walk("");
  return treeHash(entries);
}

async function hashItem(p: string, isDir: boolean): Promise<string> {
  if (isDir) return hashFolder(p);
  try {
    return await sha256Hex(new Uint8Array(await readFile(p)));
  } catch (error) {
    throw new UnreadableTree(`cannot read ${p}: ${(error as Error).message}`);
  }
}

/** The bundle's `catalog.yaml` version (dotted numeric), or a CliError naming the file. */
async function bundleVersion(bundle: string): Promise<string> {
  const file = path.join(bundle, "catalog.yaml");
  const fail = () => new CliError(`${file} must declare a dotted-numeric string 'version' (e.g. "2026.09.25"); add it so seeds can order bundles`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw fail();
  }
  // An alias bomb or a document nested past the parser's stack is as unreadable as a typo.
  let data: unknown;
  try {
    const { doc } = parsePyYaml(text);
    data = doc.errors.length ? null : (doc.toJS({ maxAliasCount: MAX_RECORD_ALIASES }) as unknown);
  } catch {
    throw fail();
  }
  const version = data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>).version : undefined;
  if (typeof version !== "string" || !VERSION_RE.test(version.trim())) throw fail();
  return version.trim();
}

/** Compares dotted versions as integer tuples ("2026.9" < "2026.9.0"; "2026.09" = "2026.9"). */
function compareVersions(a: string, b: string): number {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Seedable items in AbstractSkill's order: top-level *.yaml, licenses/<file>, skills/<dir>. */
async function bundleItems(bundle: string): Promise<{ key: string; src: string; isDir: boolean }[]> {
  const items: { key: string; src: string; isDir: boolean }[] = [];
  const sorted = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).sort(compareCodePoints);
  const kind = (p: string) =>
    stat(p).then(
      (s) => (s.isDirectory() ? "dir" : s.isFile() ? "file" : "other"),
      () => "other",
    );
  for (const name of await sorted(bundle)) {
    if (name.endsWith(".yaml") && (await kind(path.join(bundle, name))) === "file") items.push({ key: name, src: path.join(bundle, name), isDir: false });
  }
  for (const name of await sorted(path.join(bundle, "licenses"))) {
    const src = path.join(bundle, "licenses", name);
    if ((await kind(src)) === "file" && !isOsJunkFile(name)) items.push({ key: `licenses/${name}`, src, isDir: false });
  }
  for (const name of await sorted(path.join(bundle, "skills"))) {
    const src = path.join(bundle, "skills", name);
    if ((await kind(src)) === "dir") items.push({ key: `skills/${name}`, src, isDir: true });
  }
  return items;
}

interface Manifest {
  schema: 1;
  bundled_version: string;
  items: Record<string, string>;
}

/**
 * Maps `--exclude` names to bundle item keys: a skill name or an exact item key. An unknown name
 * is a UsageError listing what the bundle holds, so a typo never seeds what it meant to skip.
 * @example await excludedKeys("shelf", ["security-review"]) // Set {"skills/security-review"}
 */
async function excludedKeys(bundle: string, names: readonly string[]): Promise<Set<string>> {
  const items = await bundleItems(bundle);
  const keys = new Set(items.map((i) => i.key));
  const unknown: string[] = [];
  const excluded = new Set<string>();
  for (const name of names) {
    if (keys.has(`skills/${name}`)) excluded.add(`skills/${name}`);
    else if (keys.has(name)) excluded.add(name);
    else unknown.push(name);
  }
  if (unknown.length) {
    const listed = items.map((i) => (i.key.startsWith("skills/") ? i.key.slice("skills/".length) : i.key));
    throw new UsageError(`--exclude names no item of bundle shelf ${bundle}: ${unknown.join(", ")}; it holds: ${listed.join(", ")}`);
  }
  return excluded;
}

/** Reads `.seeded.json`: null when absent; a CliError naming the file when unusable. */
export async function readManifest(file: string): Promise<(Manifest & Record<string, unknown>) | null> {
  const st = await stat(file).catch(() => null);
  if (!st?.isFile()) return null;
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new CliError(
      `cannot read seed manifest ${file}: ${(error as Error).message}. Restore it from a backup; without it, seeding can only adopt items identical to the bundle and keeps every other item unrefreshed`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new CliError(`seed manifest ${file} is malformed (not a JSON object)`);
  const m = data as Record<string, unknown>;
  if (m.schema !== 1 || typeof m.schema !== "number") {
    throw new CliError(`seed manifest ${file} has schema ${pyRepr(m.schema)}; this abstractskill understands schema 1 only (a newer abstractskill wrote it?)`);
  }
  const items = m.items;
  const okItems = typeof items === "object" && items !== null && !Array.isArray(items) && Object.values(items).every((v) => typeof v === "string");
  if (!okItems || typeof m.bundled_version !== "string" || !VERSION_RE.test(m.bundled_version)) {
    throw new CliError(`seed manifest ${file} is malformed (items/bundled_version)`);
  }
  return m as Manifest & Record<string, unknown>;
}

/** Python's json.dumps(obj, indent=2) + "\n" (ASCII-escaped), the manifest's exact bytes. */
function manifestText(manifest: Manifest): string {
  const sortedItems: [string, string][] = Object.entries(manifest.items).sort(([a], [b]) => compareCodePoints(a, b));
  const lines = sortedItems.map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  const items = lines.length ? `{\n${lines.join(",\n")}\n  }` : "{}";
  const text = `{\n  "schema": 1,\n  "bundled_version": ${JSON.stringify(manifest.bundled_version)},\n  "items": ${items}\n}\n`;
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(tmp, "wx", 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

async function copyTree(src: string, dest: string): Promise<void> {
  await mkdir(dest);
  for (const name of await readdir(src)) {
    const from = path.join(src, name);
    const st = await stat(from);
    if (st.isDirectory()) await copyTree(from, path.join(dest, name));
    else if (st.isFile() && !isOsJunkFile(name)) await copyFile(from, path.join(dest, name));
  }
}

/** The temporary name writeFileAtomic gives `.seeded.json` (pid and timestamp). */
const MANIFEST_TEMP_RE = /^\.seeded\.json\.\d+\.\d+\.tmp$/;

// A seed killed while writing `.seeded.json` leaves its temporary copy; under the lock no other
// seed is writing one, so every file of exactly that pattern is a leftover.
async function removeStaleManifestTemps(dest: string): Promise<void> {
  for (const name of await readdir(dest)) {
    if (MANIFEST_TEMP_RE.test(name)) await rm(path.join(dest, name), { force: true });
  }
}

// Refuses, before anything is written, a destination where an item cannot go: `skills/` or
// `licenses/` that is a file or a symlink (a symlink would send writes outside the shelf).
async function checkDestinationFolders(dest: string, items: readonly { key: string }[]): Promise<void> {
  for (const parent of new Set(items.map((i) => path.dirname(i.key)).filter((d) => d !== "."))) {
    const abs = path.join(dest, parent);
    const st = await lstatOrNull(abs);
    if (st?.isSymbolicLink()) throw new CliError(`${abs} is a symlink; seeding writes into a real ${parent}/ folder. Replace it with a folder and seed again`);
    if (st && !st.isDirectory()) throw new CliError(`${abs} is not a folder; seeding needs ${parent}/ to be a folder. Move the file aside and seed again`);
  }
}

// Hashes every bundle item up front, so a bundle that cannot be seeded (a symlink inside a
// skill, an unreadable file) is refused before the first write, never part-way.
async function hashBundle(bundle: string, items: readonly { key: string; src: string; isDir: boolean }[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const item of items) {
    try {
      hashes.set(item.key, await hashItem(item.src, item.isDir));
    } catch (error) {
      if (!(error instanceof UnreadableTree)) throw error;
      throw new CliError(`bundle shelf ${bundle}: cannot seed ${item.key}: ${error.message}; fix the bundle, nothing was written`);
    }
  }
  return hashes;
}

// A crash between the two renames of a folder replacement leaves `<staging>/<name>.previous`
// and no `skills/<name>`: put the old folder back, so the rerun sees it and refreshes it.
async function recoverStaging(dest: string): Promise<string[]> {
  const restored: string[] = [];
  for (const entry of (await readdir(dest)).filter((n) => n.startsWith(STAGING_PREFIX)).sort()) {
    const staging = path.join(dest, entry);
    const st = await lstat(staging);
    if (st.isSymbolicLink())
      throw new CliError(`${staging} is a symlink; seed staging must be a real folder inside ${dest}. Remove the symlink and seed again`);
    if (!st.isDirectory()) continue;
    for (const name of await readdir(staging)) {
      if (!name.endsWith(".previous")) continue;
      const target = path.join(dest, "skills", name.slice(0, -".previous".length));
      if (!(await lstatOrNull(target))) {
        await rename(path.join(staging, name), target);
        restored.push(`skills/${path.basename(target)}`);
      }
    }
    await rm(staging, { recursive: true, force: true });
  }
  return restored;
}

async function install(item: { key: string; src: string; isDir: boolean }, target: string, staging: string, options: SeedOptions): Promise<void> {
  const staged = path.join(staging, path.basename(target));
  await options.beforeStep?.("stage", item.key);
  if (item.isDir) await copyTree(item.src, staged);
  else await copyFile(item.src, staged);
  await mkdir(path.dirname(target), { recursive: true });
  const existing = await lstatOrNull(target);
  if (!(item.isDir && existing?.isDirectory())) {
    await options.beforeStep?.("install", item.key);
    await rename(staged, target);
    return;
  }
  const retired = path.join(staging, `${path.basename(target)}.previous`);
  await options.beforeStep?.("retire", item.key);
  await rename(target, retired);
  try {
    await options.beforeStep?.("install", item.key);
    await rename(staged, target);
  } catch (error) {
    await rename(retired, target);
    throw error;
  }
  await rm(retired, { recursive: true, force: true });
}

// The real path of `p`, or of its nearest existing ancestor joined with the rest, so a
// destination that does not exist yet still compares correctly against the bundle's real path.
async function resolvedOrAbsolute(p: string): Promise<string> {
  const absolute = path.resolve(p);
  let head = absolute;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(head), ...tail);
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return absolute;
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}

/**
 * Seeds `dest` from the bundle shelf `bundle`. Safe to run repeatedly and concurrently.
 * @example const report = await seedShelf("vendor/curated", "/srv/team-shelf")
 */
export async function seedShelf(bundle: string, dest: string, options: SeedOptions = {}): Promise<SeedReport> {
  const fromStat = await stat(bundle).catch(() => null);
  if (!fromStat) throw new UsageError(`bundle shelf not found: ${bundle}; point --from at a shelf folder (skills/, licenses/, *.yaml)`);
  if (!fromStat.isDirectory()) throw new UsageError(`bundle shelf ${bundle} is not a folder; point --from at a shelf folder`);
  const bundleStat = await stat(path.join(bundle, "skills")).catch(() => null);
  if (!bundleStat?.isDirectory()) throw new CliError(`bundle shelf ${bundle} has no skills/ folder; point --from at a shelf (skills/, licenses/, *.yaml)`);
  const version = await bundleVersion(bundle);
  const bundleReal = await realpath(bundle);
  const destReal = await resolvedOrAbsolute(dest);
  if (destReal === bundleReal || destReal.startsWith(bundleReal + path.sep)) {
    throw new CliError(`refusing to seed into the bundle shelf itself (${dest}); choose a folder outside ${bundle}`);
  }
  const destStat = await lstatOrNull(dest);
  if (destStat?.isSymbolicLink()) throw new CliError(`${dest} is a symlink; seed into the real folder`);
  if (destStat && !destStat.isDirectory()) throw new UsageError(`${dest} is not a folder; point --to at a shelf folder (it is created when missing)`);
  const exclude = options.exclude === undefined ? null : await excludedKeys(bundle, options.exclude);
  await mkdir(dest, { recursive: true });

  let compromised: Error | null = null;
  const stale = options.lockStaleMs ?? 20_000;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dest, {
      lockfilePath: path.join(dest, SEED_LOCK_DIR),
      realpath: false,
      stale,
      update: Math.max(1000, Math.floor(stale / 4)),
      retries: { retries: Math.ceil((options.lockWaitMs ?? 120_000) / 250), factor: 1, minTimeout: 250, maxTimeout: 250 },
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new CliError(
      `another seed holds ${path.join(dest, SEED_LOCK_DIR)} and did not finish in time (${(error as Error).message}); wait for it, or remove the lock folder if no seed is running`,
    );
  }
  try {
    await recoverStaging(dest);
    await removeStaleManifestTemps(dest);
    const report = await seedLocked(bundle, version, dest, options, exclude, () => compromised);
    return report;
  } finally {
    await release().catch(() => undefined);
  }
}

/** What is at `target`, hashed as the bundled item would be (null when it is of the other type). */
async function destinationState(target: string, isDir: boolean): Promise<DestinationState> {
  const st = await lstatOrNull(target);
  if (!st) return { kind: "absent" };
  if (st.isSymbolicLink()) return { kind: "symlink" };
  if (isDir !== st.isDirectory()) return { kind: "present", hash: null };
  try {
    return { kind: "present", hash: await hashItem(target, isDir) };
  } catch (error) {
    if (!(error instanceof UnreadableTree)) throw error;
    return { kind: "unreadable" };
  }
}

async function seedLocked(
  bundle: string,
  version: string,
  dest: string,
  options: SeedOptions,
  exclude: ReadonlySet<string> | null,
  lost: () => Error | null,
): Promise<SeedReport> {
  const manifestPath = path.join(dest, SEED_MANIFEST);
  const manifest = await readManifest(manifestPath);
  const previous = manifest ? manifest.bundled_version : null;
  const seeded: Record<string, string> = { ...(manifest?.items ?? {}) };
  const downgrade = previous !== null && compareVersions(version, previous) < 0;
  const buckets = Object.fromEntries(SEED_BUCKETS.map((b) => [b, [] as string[]])) as Record<SeedBucket, string[]>;
  const allItems = await bundleItems(bundle);
  // Excluded items are not hashed, checked or written: the run behaves as if the bundle lacked
  // them, except that they never count as not_in_bundle.
  const items = exclude ? allItems.filter((i) => !exclude.has(i.key)) : allItems;
  const bundledHashes = await hashBundle(bundle, items);
  await checkDestinationFolders(dest, items);
  const staging = await mkdtemp(path.join(dest, `${STAGING_PREFIX}-`));
  const checkLock = () => {
    const error = lost();
    if (error) throw new CliError(`lost the seed lock on ${dest} (${error.message}); nothing more was written — rerun the seed`);
  };
  try {
    for (const item of items) {
      const bundled = bundledHashes.get(item.key)!;
      const target = path.join(dest, item.key);
      const decision = seedDecision(
        await destinationState(target, item.isDir),
        bundled,
        manifest !== null,
        Object.hasOwn(seeded, item.key) ? seeded[item.key] : undefined,
        downgrade,
      );
      if (decision.install) {
        checkLock();
        await install(item, target, staging, options);
      }
      if (decision.install || decision.bucket === "unchanged") seeded[item.key] = bundled;
      buckets[decision.bucket].push(item.key);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const bundledKeys = new Set(allItems.map((i) => i.key));
  const notInBundle: string[] = [];
  for (const key of Object.keys(seeded)
    .filter((k) => !bundledKeys.has(k))
    .sort(compareCodePoints)) {
    if (await lstatOrNull(path.join(dest, key))) notInBundle.push(key);
    else delete seeded[key];
  }
  const next: Manifest = { schema: 1, bundled_version: downgrade ? previous! : version, items: seeded };
  const unchangedManifest = manifestUnchanged(manifest, next);
  if (!unchangedManifest) {
    checkLock();
    await options.beforeStep?.("manifest", SEED_MANIFEST);
    await writeFileAtomic(manifestPath, manifestText(next));
  }
  const kept: Record<string, string> = {};
  for (const bucket of SEED_BUCKETS) if (bucket.startsWith("kept_")) for (const key of buckets[bucket]) kept[key] = bucket;
  return {
    dest,
    bundled_version: version,
    previous_version: previous,
    ...buckets,
    not_in_bundle: notInBundle,
    changed: buckets.added.length > 0 || buckets.updated.length > 0,
    manifest_written: !unchangedManifest,
    kept,
    ...(exclude ? { excluded: allItems.filter((i) => exclude.has(i.key)).map((i) => i.key) } : {}),
  };
}
