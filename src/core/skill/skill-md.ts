// Reading SKILL.md: strict UTF-8 decoding, the line-based frontmatter split, and YAML 1.1
// parsing. Lenient about encoding noise (a BOM, CRLF) so problems can be reported rather than
// crash; validate.ts then reports that noise as portability errors.
import { pyRstrip, pyStrip } from "../python-compat/py-text.ts";
import { parseYaml11, YamlError, type ParsedYaml } from "../python-compat/yaml11.ts";

/** Frontmatter larger than this (UTF-8 bytes) is refused before any YAML parsing (seed 000). */
export const MAX_FRONTMATTER_BYTES = 256 * 1024;

/** A SKILL.md that cannot be read as a skill at all; the message says what to fix. */
export class SkillMdError extends Error {
  /** 1-based line in SKILL.md, when the problem has one. */
  readonly line: number | undefined;
  constructor(message: string, line?: number) {
    super(message);
    this.name = "SkillMdError";
    this.line = line;
  }
}

export interface ParsedSkillMd {
  /** The top-level frontmatter mapping with PyYAML 1.1 types (Dates for timestamps). */
  frontmatter: Record<string, unknown>;
  /** The YAML text between the delimiter lines, LF-normalised. */
  frontmatterText: string;
  /**
   * The instructions, as agentskills-core defines them: everything after the closing `---`,
   * stripped of surrounding whitespace. For a SKILL.md that passes validate this is also what
   * every other client sees; outlines, sections and token counts are computed on it.
   */
  body: string;
  /** 1-based SKILL.md line of the closing delimiter. */
  closingLine: number;
  /** The parsed YAML, kept for type-aware validation messages. */
  yaml: ParsedYaml;
  /** The text through the closing delimiter line, when exact (see {@link frontmatterHead}). */
  head: string | undefined;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes SKILL.md bytes strictly; a byte sequence that is not UTF-8 is an error, not U+FFFD. */
export function decodeSkillMd(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new SkillMdError("SKILL.md is not valid UTF-8; save it as UTF-8 (without a BOM)");
  }
}

/** Removes leading U+FEFF characters (all of them, as AbstractSkill does). */
function stripBom(text: string): string {
  let i = 0;
  while (text.charCodeAt(i) === 0xfeff) i++;
  return text.slice(i);
}

/** CRLF and lone CR become LF; nothing else is treated as a line break. */
function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** UTF-8 byte length without allocating an encoded copy. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

interface FrontmatterSplit {
  frontmatterText: string;
  /** Everything after the closing delimiter line, LF-normalised, not stripped. */
  rest: string;
  /** 1-based line of the closing delimiter. */
  closingLine: number;
}

/**
 * The line-based split: the first line must be `---` (trailing whitespace allowed), and the
 * frontmatter ends at the next line that is `---`. A `---` inside a value does not end it.
 */
function splitFrontmatter(text: string): FrontmatterSplit {
  const normalized = normalizeNewlines(stripBom(text));
  const firstBreak = normalized.indexOf("\n");
  const firstLine = firstBreak === -1 ? normalized : normalized.slice(0, firstBreak);
  if (pyRstrip(firstLine) !== "---") {
    throw new SkillMdError("SKILL.md must start with a line '---' that opens the YAML frontmatter", 1);
  }
  let pos = firstBreak + 1;
  let line = 2;
  while (firstBreak !== -1 && pos <= normalized.length) {
    const next = normalized.indexOf("\n", pos);
    const end = next === -1 ? normalized.length : next;
    if (pyRstrip(normalized.slice(pos, end)) === "---") {
      const frontmatterText = normalized.slice(firstBreak + 1, Math.max(firstBreak + 1, pos - 1));
      return { frontmatterText, rest: next === -1 ? "" : normalized.slice(next + 1), closingLine: line };
    }
    // Refuse early: scanning on through megabytes of unterminated frontmatter helps nobody.
    if (pos - firstBreak > MAX_FRONTMATTER_BYTES * 4) break;
    if (next === -1) break;
    pos = next + 1;
    line++;
  }
  if (utf8Length(normalized) - firstBreak > MAX_FRONTMATTER_BYTES) {
    throw new SkillMdError(
      `SKILL.md frontmatter runs past the ${MAX_FRONTMATTER_BYTES}-byte limit without a closing '---' line; keep frontmatter under 256 KiB and end it with a line '---'`,
    );
  }
  throw new SkillMdError("SKILL.md frontmatter has no closing '---' line; end the YAML block with a line '---'");
}

/** A top-level `key: value` line whose unquoted value holds ": " (the commonest YAML mistake in a description). */
const UNQUOTED_COLON = /^([A-Za-z0-9_-]+):[ \t]+([^'"\s[{|>#&*!%@`][^\n]*?: [^\n]*?)[ \t]*$/;

/**
 * When a YAML error falls on a `key: value` line whose plain value contains ": ", the fix is to
 * quote the value; says so with the quoted form (single quotes need only '' for ').
 */
function quotingHint(frontmatterText: string, errorLine: number | undefined): string {
  if (errorLine === undefined) return "";
  const match = UNQUOTED_COLON.exec(frontmatterText.split("\n")[errorLine - 1] ?? "");
  if (!match) return "";
  const [, key, value] = match;
  return `; the value of ${key} contains ": ", which YAML reads as the start of another key: quote the value, e.g.\n  ${key}: '${value!.replaceAll("'", "''")}'`;
}

/**
 * Parses SKILL.md text into frontmatter and body.
 * @throws SkillMdError when there is no frontmatter block, it is over 256 KiB, its YAML is
 *   invalid (duplicate keys and alias bombs included), or it is not a mapping.
 */
export function parseSkillMd(text: string): ParsedSkillMd {
  const split = splitFrontmatter(text);
  const size = utf8Length(split.frontmatterText);
  if (size > MAX_FRONTMATTER_BYTES) {
    throw new SkillMdError(
      `SKILL.md frontmatter is ${size} bytes, over the ${MAX_FRONTMATTER_BYTES}-byte limit; move long content into the body or references/`,
    );
  }
  let yaml: ParsedYaml;
  try {
    yaml = parseYaml11(split.frontmatterText);
  } catch (error) {
    if (error instanceof YamlError) {
      const line = error.line === undefined ? undefined : error.line + 1;
      const message = `invalid YAML frontmatter: ${error.message.replace(/\(line \d+\)$/, line ? `(SKILL.md line ${line})` : "")}`;
      throw new SkillMdError(`${message}${quotingHint(split.frontmatterText, error.line)}`, line);
    }
    throw error;
  }
  const value = yaml.value ?? {};
  if (typeof value !== "object" || Array.isArray(value) || value instanceof Date) {
    throw new SkillMdError("SKILL.md frontmatter must be a YAML mapping of fields (name: …, description: …)", 2);
  }
  return {
    frontmatter: value as Record<string, unknown>,
    frontmatterText: split.frontmatterText,
    body: pyStrip(split.rest),
    closingLine: split.closingLine,
    yaml,
    head: frontmatterHead(text),
  };
}

/**
 * SKILL.md's text from its start through the first line after the first that is `---` with
 * trailing whitespace removed, when that line is exactly `---` (LF or CRLF ended) and no lone CR
 * comes before it; undefined otherwise. Any reader that ends the frontmatter at a `---` line
 * (trailing spaces or tabs allowed), as this module and the MCP SDK both do, finds the same end in
 * the head as in the whole file, so the head stands in for the file when only the frontmatter is
 * read (MCP listings).
 * @example frontmatterHead("---\nname: a\n---\nbody") // => "---\nname: a\n---\n"
 */
export function frontmatterHead(text: string): string | undefined {
  let start = text.indexOf("\n") + 1;
  if (start === 0 || /\r(?!\n)/.test(text.slice(0, start))) return undefined;
  while (start < text.length) {
    const next = text.indexOf("\n", start);
    const end = next === -1 ? text.length : next + 1;
    const line = text.slice(start, end).replace(/\r?\n$/, "");
    if (line.includes("\r")) return undefined;
    if (pyRstrip(line) === "---") return line === "---" ? text.slice(0, end) : undefined;
    start = end;
  }
  return undefined;
}
