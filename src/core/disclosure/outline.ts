// Outlines and sections of a skill body, byte-identical to agentskills-core: an agent reads the
// outline (keys, titles, token estimates) and fetches one section instead of the whole body.
// The outline is plain data so a build can store it and a request can render it or cut a section
// out of the body without re-parsing.
import { casefold, codePointLength, isPyBlank, isPySpace, lineSpans } from "../python-compat/py-text.ts";

/** Below this many estimated tokens the whole body is cheaper than outline + section fetch. */
export const WHOLE_BODY_CHEAPER_TOKENS = 1000;

/** Title of the text before a body's first heading. */
export const PREAMBLE_TITLE = "(before the first heading)";

/** Key of that text (its title would slugify to nothing). */
export const PREAMBLE_KEY = "preamble";

/** Key of a heading whose title has no letters or digits left after slugifying. */
const FALLBACK_KEY = "section";

/**
 * Estimated tokens of `text`: code points / 4, rounded up (an emoji is one code point).
 * @example estimateTokens("🚨🚨🚨🚨🚨") // 2
 */
export function estimateTokens(text: string): number {
  return Math.ceil(codePointLength(text) / 4);
}

/** One section of an outline: what it is, what it costs, and where its lines are in the body. */
export interface OutlineSection {
  /** Addressable key (slug of the title, `-2`, `-3` for repeats). Not always unique: see `sectionOf`. */
  key: string;
  /** Heading text, or PREAMBLE_TITLE. */
  title: string;
  /** Number of leading `#`, or 0 for the preamble. */
  level: number;
  /** Estimated tokens of the section text. */
  tokens: number;
  /** UTF-16 offset in the body of the section's first line. */
  start: number;
  /** UTF-16 offset in the body just past the line break ending the section's last line. */
  end: number;
}

/** A body's sections and total cost: plain JSON-safe data, storable in a manifest. */
export interface SkillOutline {
  skill_id: string;
  /** Estimated tokens of the whole body (can be less than the sum over sections). */
  total_tokens: number;
  sections: OutlineSection[];
}

/** A section with its text, as `get_skill_section` returns it. */
export interface Section {
  key: string;
  title: string;
  level: number;
  text: string;
}

/** An unknown section key; the message lists the keys that exist, in body order. */
export class SectionNotFoundError extends Error {
  readonly skillId: string;
  readonly key: string;
  readonly keys: string[];
  constructor(skillId: string, key: string, keys: string[]) {
    super(`Skill '${skillId}' has no section '${key}'; available keys: ${keys.length ? keys.join(", ") : "none"}`);
    this.name = "SectionNotFoundError";
    this.skillId = skillId;
    this.key = key;
    this.keys = keys;
  }
}

const HASH = 0x23;
const SPACE = 0x20;
const TAB = 0x09;

function isSpaceOrTab(c: number): boolean {
  return c === SPACE || c === TAB;
}

/**
 * The fence character opening (or closing) a code fence on this line, or 0: up to three spaces
 * or tabs, then three or more backticks or tildes. Any same-character fence line closes a fence.
 */
function fenceChar(body: string, start: number, end: number): number {
  let i = start;
  while (i < end && i - start < 3 && isSpaceOrTab(body.charCodeAt(i))) i++;
  if (i + 3 > end) return 0;
  const c = body.charCodeAt(i);
  if (c !== 0x60 && c !== 0x7e) return 0;
  return body.charCodeAt(i + 1) === c && body.charCodeAt(i + 2) === c ? c : 0;
}

/**
 * An ATX heading: 1–6 `#` at the start of the line, one or more spaces or tabs, then a title
 * starting with a non-whitespace character; trailing spaces, tabs and closing `#`s are not part
 * of the title (so `## C#` is titled `C`). Scans from both ends instead of using a lazy regex,
 * which would be quadratic on a long line of `#` or spaces.
 */
function headingAt(body: string, start: number, end: number): { level: number; title: string } | undefined {
  let n = start;
  while (n < end && body.charCodeAt(n) === HASH) n++;
  const level = n - start;
  if (level < 1 || level > 6) return undefined;
  let i = n;
  while (i < end && isSpaceOrTab(body.charCodeAt(i))) i++;
  if (i === n || i === end) return undefined;
  const first = body.codePointAt(i)!;
  if (isPySpace(first)) return undefined;
  let e = end;
  while (e > i && isSpaceOrTab(body.charCodeAt(e - 1))) e--;
  while (e > i && body.charCodeAt(e - 1) === HASH) e--;
  while (e > i && isSpaceOrTab(body.charCodeAt(e - 1))) e--;
  const titleEnd = Math.max(e, i + (first > 0xffff ? 2 : 1));
  return { level, title: body.slice(i, titleEnd) };
}

/** Reduces a title to a key an agent can type back: casefold, non-[a-z0-9] runs to `-`. */
function slug(title: string): string {
  const s = casefold(title)
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s || FALLBACK_KEY;
}

/**
 * The outline of a body: flat, non-overlapping sections (a heading owns its line and everything
 * up to the next heading of any level), `#` inside fenced code ignored, a `preamble` section for
 * non-blank text before the first heading.
 * @example outlineOf("demo", "# Setup\nInstall.").sections[0] // {key: "setup", level: 1, tokens: 4, …}
 */
export function outlineOf(skillId: string, body: string): SkillOutline {
  const spans = lineSpans(body);
  const found: Omit<OutlineSection, "key">[] = [];
  let title = PREAMBLE_TITLE;
  let level = 0;
  let firstLine = 0;
  let lineCount = 0;
  let codePoints = 0;
  let nonBlank = false;
  let fence = 0;

  const flush = (endLine: number) => {
    if (level !== 0 || nonBlank) {
      const start = lineCount > 0 ? spans[firstLine]!.start : 0;
      const end = lineCount > 0 ? spans[endLine - 1]!.next : 0;
      // Lines are re-joined with "\n", so each line break counts as one code point.
      const length = codePoints + Math.max(lineCount - 1, 0);
      found.push({ title, level, tokens: Math.ceil(length / 4), start, end });
    }
  };

  for (let index = 0; index < spans.length; index++) {
    const span = spans[index]!;
    const opener = fenceChar(body, span.start, span.end);
    let heading: { level: number; title: string } | undefined;
    if (fence !== 0) {
      if (opener === fence) fence = 0;
    } else if (opener !== 0) {
      fence = opener;
    } else {
      heading = headingAt(body, span.start, span.end);
    }
    if (heading) {
      flush(index);
      title = heading.title;
      level = heading.level;
      firstLine = index;
      lineCount = 0;
      codePoints = 0;
    }
    lineCount++;
    codePoints += codePointLength(body, span.start, span.end);
    // Only the preamble can be dropped for being blank, so only it needs the check.
    if (level === 0 && !nonBlank && !isPyBlank(body.slice(span.start, span.end))) nonBlank = true;
  }
  flush(spans.length);

  const seen = new Map<string, number>();
  const sections = found.map((section): OutlineSection => {
    const base = slug(section.level === 0 ? PREAMBLE_KEY : section.title);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return { key: count === 1 ? base : `${base}-${count}`, ...section };
  });
  return { skill_id: skillId, total_tokens: estimateTokens(body), sections };
}

/** Whether an agent should skip sectioning and fetch the whole body. */
export function wholeBodyIsCheaper(outline: SkillOutline): boolean {
  return outline.total_tokens < WHOLE_BODY_CHEAPER_TOKENS;
}

/**
 * The outline as text for an agent, exactly as agentskills-core renders it (no trailing newline).
 * @example renderOutline(outlineOf("x", "")) // "'x' has an empty body; there is nothing to fetch."
 */
export function renderOutline(outline: SkillOutline): string {
  const id = outline.skill_id;
  if (outline.sections.length === 0) return `'${id}' has an empty body; there is nothing to fetch.`;
  const lines = [`'${id}': ~${outline.total_tokens} tokens in ${outline.sections.length} sections.`, ""];
  for (const s of outline.sections) {
    lines.push(`${"  ".repeat(Math.max(s.level - 1, 0))}- ${s.key} (~${s.tokens}) — ${s.title}`);
  }
  lines.push("");
  if (wholeBodyIsCheaper(outline)) {
    lines.push(`Call get_skill_body instead: the whole body is only ~${outline.total_tokens} tokens, less than this outline plus a section fetch.`);
  } else {
    lines.push(
      "Fetch one with get_skill_section using the key. Sections do not nest — a section covers " +
        "only its own text, up to the next heading of any level, so fetching a parent does not " +
        "include what is indented under it. Past about three sections, call get_skill_body " +
        `instead (~${outline.total_tokens} tokens).`,
    );
  }
  return lines.join("\n");
}

/** The text of one outline section: its lines from `body`, re-joined with "\n". */
function sectionTextAt(body: string, section: Pick<OutlineSection, "start" | "end">): string {
  const slice = body.slice(section.start, section.end);
  return lineSpans(slice)
    .map((span) => slice.slice(span.start, span.end))
    .join("\n");
}

/**
 * The text of the section with `key` (the first one when a key repeats, as with a literal
 * `Setup 2` heading after two `Setup` headings). `outline` must be the outline of this `body`.
 * @throws SectionNotFoundError listing the keys that exist.
 */
export function sectionOf(body: string, outline: SkillOutline, key: string): string {
  const section = outline.sections.find((s) => s.key === key);
  if (!section)
    throw new SectionNotFoundError(
      outline.skill_id,
      key,
      outline.sections.map((s) => s.key),
    );
  return sectionTextAt(body, section);
}

/** Every section of a body with its text, in body order. */
export function splitSections(body: string): Section[] {
  return outlineOf("", body).sections.map((s) => ({
    key: s.key,
    title: s.title,
    level: s.level,
    text: sectionTextAt(body, s),
  }));
}
