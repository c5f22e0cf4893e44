// A skill's SKILL.md body as HTML: markdown-it with raw HTML off (so HTML in a skill shows as text;
// DOM sanitizers do nothing in workerd, which has no DOM), links it judges unsafe (javascript:,
// vbscript:, file:, most data:) dropped by its own validateLink, headings given the ids the table
// of contents links to, and relative links to the skill's own files sent to the pages' file view.
import MarkdownIt from "markdown-it";
import type { OutlineSection } from "../../../core/disclosure/outline.ts";

type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

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
}

/** The line (0-based, any line break) that a UTF-16 offset of `body` falls on. */
function lineOf(body: string, offset: number): number {
  return body.slice(0, offset).match(/\r\n|\r|\n/g)?.length ?? 0;
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
  const env = {};
  const tokens = markdown.parse(body, env);
  const byLine = new Map<number, string>();
  for (const section of context.sections) if (section.level > 0) byLine.set(lineOf(body, section.start), section.key);
  const anchored = new Set<string>();
  for (const token of tokens) {
    if (token.type !== "heading_open" || token.level !== 0 || !token.map) continue;
    const key = byLine.get(token.map[0]);
    if (key === undefined || anchored.has(key)) continue;
    token.attrSet("id", sectionAnchor(key));
    anchored.add(key);
  }
  rewriteLinks(tokens, context);
  return { html: markdown.renderer.render(tokens, markdown.options, env), anchored };
}
