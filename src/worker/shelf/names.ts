// Request paths are never storage keys: they are looked up in the manifest, exactly. These
// checks only reject obvious garbage early (before any binding call), so traversal attempts,
// encoded separators, NULs and overlong names cost nothing and always read as "not on this shelf".
import { MAX_NAME_CHARS, SKILL_NAME_RE } from "../../core/skill/skill.ts";

/** Longest file path (in UTF-8 bytes) we will look up. */
const MAX_FILE_PATH_BYTES = 1024;

/**
 * True when `name` could be a published skill name (lowercase ASCII, digits, single hyphens).
 * @example isPlausibleSkillName("code-review") // => true
 * @example isPlausibleSkillName("..")          // => false
 */
export function isPlausibleSkillName(name: string): boolean {
  return name.length <= MAX_NAME_CHARS && SKILL_NAME_RE.test(name);
}

/**
 * True when a decoded request path could name a file in a skill: relative, `/`-separated, no
 * empty, `.` or `..` segment, no backslash, no control character, at most 1,024 bytes.
 * @example isPlausibleFilePath("references/guide.md") // => true
 * @example isPlausibleFilePath("../other/SKILL.md")   // => false
 */
export function isPlausibleFilePath(path: string): boolean {
  if (path.length === 0 || new TextEncoder().encode(path).length > MAX_FILE_PATH_BYTES) return false;
  if (/[\x00-\x1f\x7f\\]/.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
