// A skill's SKILL.md body as HTML: markdown-it with raw HTML off (so HTML in a skill shows as text;
// DOM sanitizers do nothing in workerd, which has no DOM), links it judges unsafe (javascript:,
// vbscript:, file:, most data:) dropped by its own validateLink, headings given the ids the table
// of contents links to, and relative links to the skill's own files sent to the pages' file view.
// Bounded: only a prefix of the body is parsed and only so many headings are anchored, so one
// render costs at most a fixed amount of work whatever the body (docs/pages.md, "Speed and caching").
import MarkdownIt from "markdown-it";
import type { OutlineSection } from "../../../core/disclosure/outline.ts";
import { PAGE_BODY_MAX_CHARS } from "../../../core/skill/validate.ts";

type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** The most UTF-16 units of a body that are rendered (cut at a line break); the rest is a link to SKILL.md. `validate` warns past it. */
export const BODY_RENDER_MAX_CHARS = PAGE_BODY_MAX_CHARS;

/** The most outline sections anchored in the body (and listed in the table of contents). */
export const PAGE_MAX_SECTIONS = 256;

/**
 * The most rendered body HTML, estimated from the parsed tokens before rendering: references can
 * make a small body expand (a 1 KB link target used a thousand times), so past this the prefix is
 * shown as preformatted text instead (at most six times its length, escaped).
 */
export const BODY_HTML_MAX_CHARS = 512 * 1024;

/** The anchor id of an outline section in the rendered body. */
export function sectionAnchor(key: string): string {
  return `section-${key}`;
}

/** What rendering needs to know about the skill: its outline, its files, and where its files are viewed. */
export interface BodyContext {
  sections: readonly Pick<OutlineSection, "key" | "level" | "start">[];
  files: ReadonlySet<string>;
  /** The pages' URL of one of the skill's files. */
  fileUrl(path: string): string;
}

/** The rendered body, and the outline keys whose heading got an anchor (the TOC links only to those). */
export interface RenderedBody {
  html: string;
  anchored: Set<string>;
  /** UTF-16 units of the body given to the Markdown parser (at most BODY_RENDER_MAX_CHARS). */
  renderedChars: number;
  /** True when part of the body is not shown (past the prefix, or shown as text). */
  truncated: boolean;
}

/**
 * The line (0-based, any line break) each offset of `body` falls on, in one pass over the body up
 * to the largest offset (a scan per offset made 40,000 headings cost 40,000 scans of the body).
 */
export function linesAt(body: string, offsets: readonly number[]): number[] {
  const order = offsets.map((offset, i) => ({ offset, i })).sort((a, b) => a.offset - b.offset);
  const lines = new Array<number>(offsets.length).fill(0);
  let line = 0;
  let at = 0;
  for (const { offset, i } of order) {
    const end = Math.min(offset, body.length);
    for (; at < end; at++) {
      const code = body.charCodeAt(at);
      // "\r\n" counts once, at its "\r".
      if (code === 13 || (code === 10 && (at === 0 || body.charCodeAt(at - 1) !== 13))) line++;
    }
    lines[i] = line;
  }
  return lines;
}

/** The body's first BODY_RENDER_MAX_CHARS units, cut after the last line break in them when there is one. */
function renderedPrefix(body: string): string {
  if (body.length <= BODY_RENDER_MAX_CHARS) return body;
  const cut = body.slice(0, BODY_RENDER_MAX_CHARS);
  const lastBreak = Math.max(cut.lastIndexOf("\n"), cut.lastIndexOf("\r"));
  return lastBreak > 0 ? cut.slice(0, lastBreak + 1) : cut;
}

/**
 * About how much HTML `tokens` render to: a tag's worth per token, its attributes, and the text of
 * its leaves (an inline token's children hold its text again). Escaping can make the real HTML
 * longer; the page's byte cap (PAGE_MAX_BYTES) bounds that.
 */
function estimatedHtml(tokens: Token[]): number {
  let chars = 0;
  for (const token of tokens) {
    chars += 8;
    for (const [name, value] of token.attrs ?? []) chars += String(name).length + String(value).length + 4;
    if (token.children) chars += estimatedHtml(token.children);
    else chars += token.content.length;
  }
  return chars;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Text made safe for an HTML text node or a quoted attribute, as the pages' JSX escapes it.
 * @example escapeHtml(`a"b'c`) // => "a&quot;b&#39;c"
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/** A relative link into the skill folder, as a skill-relative path; undefined for anything else. */
function skillPath(href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^[/#?]|^\/\//i.test(href)) return undefined;
  let path = href.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return undefined;
    parts.push(part);
  }
  return parts.length ? parts.join("/") : undefined;
}

function rewriteLinks(tokens: Token[], context: BodyContext): void {
  for (const token of tokens) {
    if (token.children) rewriteLinks(token.children, context);
    const attr = token.type === "link_open" ? "href" : token.type === "image" ? "src" : undefined;
    if (!attr) continue;
    const target = token.attrGet(attr);
    if (typeof target !== "string") continue;
    const path = skillPath(target);
    if (path !== undefined && context.files.has(path)) token.attrSet(attr, context.fileUrl(path));
    else if (attr === "href" && /^https?:/i.test(target)) token.attrSet("rel", "nofollow noopener noreferrer");
  }
}

/**
 * Renders a SKILL.md body. HTML in it is escaped, never interpreted.
 * @example renderSkillBody("# Use\n<script>x</script>", ctx).html // => '<h1 id="section-use">Use</h1>\n<p>&lt;script&gt;x&lt;/script&gt;</p>\n'
 */
export function renderSkillBody(body: string, context: BodyContext): RenderedBody {
  const shown = renderedPrefix(body);
  const cut = shown.length < body.length;
  const env = {};
  const tokens = markdown.parse(shown, env);
  if (estimatedHtml(tokens) > BODY_HTML_MAX_CHARS) {
    // Rendering would expand past the bound: the prefix as text, which is at most six times its size.
    return { html: `<pre>${escapeHtml(shown)}</pre>\n`, anchored: new Set(), renderedChars: shown.length, truncated: true };
  }
  const headings = context.sections.filter((s) => s.level > 0 && s.start < shown.length).slice(0, PAGE_MAX_SECTIONS);
  const lines = linesAt(
    shown,
    headings.map((s) => s.start),
  );
  const byLine = new Map<number, string>();
  for (const [i, section] of headings.entries()) byLine.set(lines[i]!, section.key);
  const anchored = new Set<string>();
  for (const token of tokens) {
    if (token.type !== "heading_open" || token.level !== 0 || !token.map) continue;
    const key = byLine.get(token.map[0]);
    if (key === undefined || anchored.has(key)) continue;
    token.attrSet("id", sectionAnchor(key));
    anchored.add(key);
  }
  rewriteLinks(tokens, context);
  return { html: markdown.renderer.render(tokens, markdown.options, env), anchored, renderedChars: shown.length, truncated: cut };
}
