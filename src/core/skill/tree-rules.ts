// The rules a skill's file tree keeps so that it builds, serves and unpacks the same everywhere:
// one table, applied by `validate`, by `build` and by the Worker's admin API to every record it stores.
import { hasLoneSurrogate } from "../python-compat/yaml11.ts";
import { sortPathsBytewise } from "./hash.ts";
import { hasScripts, mediaTypeFor } from "./inventory.ts";
import { MAX_NAME_CHARS, SKILL_NAME_RE } from "./skill.ts";

/** The MCP skills extension's (SEP-2640) limits on one skill. */
export const MAX_FILES_PER_SKILL = 512;
export const MAX_BYTES_PER_SKILL = 16 * 1024 * 1024;

/** One file as the rules see it: its path relative to the skill root (POSIX separators) and its size. */
export interface TreeFile {
  path: string;
  size: number;
}

/** One rule about a single path: when it is broken, and the sentence that says so and how to fix it. */
interface PathRule {
  broken: (path: string, segments: readonly string[]) => boolean;
  message: (path: string) => string;
}

const shown = (path: string) => JSON.stringify(path);
const utf8 = new TextEncoder();

/**
 * True when a ustar header can hold `path`: at most 100 bytes, or split at a `/` into a prefix of
 * at most 155 bytes and a name of at most 100 (src/core/generation/archive.ts writes it so).
 */
function fitsUstar(path: string): boolean {
  const bytes = utf8.encode(path);
  if (bytes.length <= 100) return true;
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] !== 0x2f) continue;
    if (i <= 155 && bytes.length - i - 1 <= 100 && bytes.length - i - 1 > 0) return true;
  }
  return false;
}

/**
 * The per-path rules, in the order their problems are reported. A path that breaks one may break
 * others; each is reported, so one pass fixes them all.
 */
const PATH_RULES: readonly PathRule[] = [
  { broken: (p) => p.length === 0, message: () => `a file has an empty path; every file needs a name` },
  { broken: (p) => p.startsWith("/"), message: (p) => `path ${shown(p)} is absolute; skill paths are relative to the skill folder` },
  { broken: (p) => p.includes("\\"), message: (p) => `path ${shown(p)} contains a backslash; rename it (clients treat \\ as a separator)` },
  { broken: (p) => /[\u0000-\u001f\u007f]/.test(p), message: (p) => `path ${shown(p)} contains a NUL or control character; rename it` },
  { broken: hasLoneSurrogate, message: (p) => `path ${shown(p)} holds a lone surrogate, which no file name can carry; rename it` },
  {
    broken: (p) => p === "__proto__",
    message: () => `path "__proto__" at the skill root cannot be stored in the .zip archive (the zip library treats it as an object prototype); rename it`,
  },
  {
    // JS objects enumerate integer-like keys first: the .zip's order would silently change.
    broken: (p) => /^(0|[1-9][0-9]*)$/.test(p),
    message: (p) => `file name "${p}" is a bare number at the skill root; rename it (for example ${p}.txt)`,
  },
  {
    broken: (p) => p === "index.json",
    message: () =>
      `path "index.json" at the skill root collides with the static-host layout's per-skill manifest (/skills/<name>/index.json); move it into references/ or assets/, or rename it`,
  },
  { broken: (_, s) => s.includes(".."), message: (p) => `path ${shown(p)} contains "..": rename it` },
  {
    broken: (p, s) => p.length > 0 && !s.includes("..") && s.some((x) => x === "" || x === "."),
    message: (p) => `path ${shown(p)} has an empty or "." segment`,
  },
  {
    broken: (p) => !fitsUstar(p),
    message: (p) => `path "${p}" is too long for a tar archive (at most 100 bytes per file name and 255 in all); shorten it`,
  },
];

/** A name as JSON with every non-ASCII character escaped, so NFC and NFD spellings look different. */
function escaped(path: string): string {
  return JSON.stringify(path).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Files and folders whose names collide where names are folded: by case (Windows, macOS) or by
 * Unicode normalization (macOS keeps NFC and NFD spellings of `café` as one name). Each group of
 * two or more spellings is one problem.
 */
function twinProblems(paths: readonly string[]): string[] {
  const byFolded = new Map<string, Set<string>>();
  for (const p of paths) {
    const segments = p.split("/");
    let prefix = "";
    for (const segment of segments) {
      prefix = prefix ? `${prefix}/${segment}` : segment;
      const folded = prefix.normalize("NFC").toLowerCase();
      const set = byFolded.get(folded) ?? new Set<string>();
      set.add(prefix);
      byFolded.set(folded, set);
    }
  }
  const problems: string[] = [];
  for (const variants of byFolded.values()) {
    if (variants.size < 2) continue;
    const sorted = [...variants].sort();
    const byCase = new Set(sorted.map((v) => v.toLowerCase())).size === 1;
    const byForm = new Set(sorted.map((v) => v.normalize("NFC"))).size === 1;
    if (byCase) {
      problems.push(`paths ${sorted.map(shown).join(" and ")} differ only by case; they collide on case-insensitive file systems. Rename one`);
    } else {
      problems.push(
        `paths ${sorted.map(escaped).join(" and ")} differ only ${byForm ? "in Unicode normalization (NFC and NFD spell the same name)" : "by case and Unicode normalization"}; they collide on file systems that fold names (macOS, Windows). Rename one, or save every name in NFC`,
      );
    }
  }
  return problems;
}

/**
 * Every reason a skill's file tree cannot be built: the per-path rules above (absolute, `..`,
 * empty or `.` segments, backslashes, control characters, lone surrogates, root names that
 * collide with the archives or the static layout, paths a tar header cannot hold), the same path
 * twice, a path that is a file and a folder, case and normalization twins, and the file-count and
 * byte limits. An empty list means the tree is fine.
 * @example treeProblems([{ path: "SKILL.md", size: 90 }, { path: "skill.md", size: 90 }]) // one twin problem
 */
export function treeProblems(files: readonly TreeFile[]): string[] {
  const problems: string[] = [];
  const paths = files.map((f) => f.path);
  for (const p of paths) {
    const segments = p.split("/");
    for (const rule of PATH_RULES) if (rule.broken(p, segments)) problems.push(rule.message(p));
  }
  const counts = new Map<string, number>();
  for (const p of paths) counts.set(p, (counts.get(p) ?? 0) + 1);
  for (const [p, n] of counts) if (n > 1) problems.push(`path ${shown(p)} is listed ${n} times; a skill holds each file once`);
  for (const p of counts.keys()) {
    const segments = p.split("/");
    for (let i = 1; i < segments.length; i++) {
      const folder = segments.slice(0, i).join("/");
      if (counts.has(folder)) problems.push(`path ${shown(folder)} is a file and also the folder of ${shown(p)}; rename one`);
    }
  }
  problems.push(...twinProblems([...counts.keys()]));
  if (files.length > MAX_FILES_PER_SKILL) {
    problems.push(`${files.length} files; a skill may hold at most ${MAX_FILES_PER_SKILL} (the MCP skills extension's limit). Split it or remove files`);
  }
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  if (totalBytes > MAX_BYTES_PER_SKILL) {
    problems.push(
      `${totalBytes} bytes; a skill may hold at most ${MAX_BYTES_PER_SKILL} bytes (16 MiB, the MCP skills extension's limit). Remove or shrink files`,
    );
  }
  return problems;
}

/** Why `name` is not a skill name (the spec's rule every layer applies), or undefined. */
export function skillNameProblem(name: string): string | undefined {
  if (SKILL_NAME_RE.test(name) && name.length <= MAX_NAME_CHARS) return undefined;
  return `skill name ${shown(name)} is not a skill name: lowercase letters, digits and single hyphens, at most ${MAX_NAME_CHARS} characters`;
}

/** A skill as a stored record describes it: its name, its files and what it says about them. */
export interface DescribedSkill {
  name: string;
  files: readonly { path: string; size: number; media_type: string }[];
  total_bytes: number;
  has_scripts: boolean;
}

/**
 * Every reason the build would never have written this description of a skill: a name that is
 * not a skill name, any tree rule above, no SKILL.md at the root, files not in bytewise path
 * order, and totals, media types or a has_scripts flag other than those derived from the files.
 * The Worker applies it to every record it is asked to store.
 * @example describedSkillProblems({ name: "../../evil", … }) // ["skill name \"../../evil\" is not a skill name: …"]
 */
export function describedSkillProblems(skill: DescribedSkill): string[] {
  const problems: string[] = [];
  const nameProblem = skillNameProblem(skill.name);
  if (nameProblem) problems.push(nameProblem);
  problems.push(...treeProblems(skill.files));
  const paths = skill.files.map((f) => f.path);
  if (!paths.includes("SKILL.md")) problems.push(`the file list has no "SKILL.md" at the skill root`);
  const sorted = sortPathsBytewise(paths, (p) => p);
  if (sorted.some((p, i) => p !== paths[i])) problems.push("the file list is not sorted bytewise by path");
  const totalBytes = skill.files.reduce((sum, f) => sum + f.size, 0);
  if (totalBytes !== skill.total_bytes) problems.push(`total_bytes is ${skill.total_bytes}, but the files add up to ${totalBytes}`);
  for (const f of skill.files) {
    const expected = mediaTypeFor(f.path);
    if (f.media_type !== expected) problems.push(`file ${shown(f.path)} has media_type ${shown(f.media_type)}; its extension gives ${shown(expected)}`);
  }
  if (hasScripts(paths) !== skill.has_scripts) problems.push(`has_scripts is ${skill.has_scripts}, but the file list says ${!skill.has_scripts}`);
  return problems;
}

/**
 * Every reason a list of skill names (a shard's) could not come from one build: a name that is
 * not a skill name, a name listed twice, or names out of order.
 */
export function skillListProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const nameProblem = skillNameProblem(name);
    if (nameProblem) problems.push(nameProblem);
    if (seen.has(name)) problems.push(`skill ${shown(name)} is listed twice; a shelf holds each skill once`);
    seen.add(name);
  }
  if (names.some((name, i) => i > 0 && names[i - 1]! > name)) problems.push("the skills are not sorted by name");
  return problems;
}
