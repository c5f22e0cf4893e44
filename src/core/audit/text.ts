// A skill file as the audit reads it: decoded text, its kind (markdown, script, data), where
// each line starts, and the regions of a Markdown file (prose, code fence, hidden comment,
// frontmatter) that decide whether a match is an instruction or an explanation.

/** How the audit treats a file: Markdown is read for instructions, scripts for what they do. */
export type FileKind = "markdown" | "script" | "data" | "binary";

/** Where a match sits in a Markdown file. Scripts and data are one region of their own kind. */
export type RegionKind = "frontmatter" | "prose" | "fence" | "comment" | "script" | "data";

export interface Region {
  kind: RegionKind;
  start: number;
  end: number;
  /** A fence's info string (lowercase, first word), "" when it has none. */
  lang?: string;
}

export interface AuditFile {
  path: string;
  kind: FileKind;
  bytes: Uint8Array;
  /** The decoded text; "" for binary files. */
  text: string;
  /** Offsets where each line starts (line n starts at lineStarts[n - 1]). */
  lineStarts: number[];
  /** Regions in order, covering the whole text. */
  regions: Region[];
}

const SCRIPT_EXTENSIONS = new Set([
  "py",
  "sh",
  "bash",
  "zsh",
  "ksh",
  "fish",
  "js",
  "mjs",
  "cjs",
  "ts",
  "mts",
  "cts",
  "rb",
  "pl",
  "ps1",
  "psm1",
  "bat",
  "cmd",
  "php",
  "lua",
]);
const MARKDOWN_EXTENSIONS = new Set(["md", "markdown", "mdx", "txt", "rst", "text"]);
const DATA_EXTENSIONS = new Set([
  "json",
  "jsonl",
  "yaml",
  "yml",
  "toml",
  "ini",
  "cfg",
  "conf",
  "xml",
  "html",
  "htm",
  "csv",
  "tsv",
  "svg",
  "css",
  "sql",
  "pth",
  "envrc",
  "env",
]);

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base.startsWith(".") && base.indexOf(".", 1) === -1) return base.slice(1).toLowerCase();
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/** True when the bytes hold a NUL in their first 8 KiB: text files never do. */
function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/** The kind of one file by its extension, its shebang and its bytes. */
export function fileKind(path: string, bytes: Uint8Array, text: string | null): FileKind {
  if (looksBinary(bytes)) return "binary";
  const ext = extensionOf(path);
  if (SCRIPT_EXTENSIONS.has(ext)) return "script";
  if (text?.startsWith("#!")) return "script";
  if (MARKDOWN_EXTENSIONS.has(ext)) return "markdown";
  if (DATA_EXTENSIONS.has(ext)) return "data";
  // Unknown text (a Makefile, a Dockerfile, an extension-less script): read it as code, the strict side.
  return text === null ? "binary" : "script";
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

/**
 * The regions of a Markdown text. A line-based pass: frontmatter between the first two `---`
 * lines, fenced code, HTML comments (which may span lines) and `[//]: # (…)` reference comments;
 * everything else is prose.
 */
function markdownRegions(text: string, lineStarts: number[]): Region[] {
  const regions: Region[] = [];
  const push = (kind: RegionKind, start: number, end: number, lang?: string) => {
    if (end <= start) return;
    const last = regions[regions.length - 1];
    if (last && last.kind === kind && kind === "prose" && last.end === start) last.end = end;
    else regions.push(lang === undefined ? { kind, start, end } : { kind, start, end, lang });
  };
  const lineEnd = (i: number) => (i + 1 < lineStarts.length ? lineStarts[i + 1]! : text.length);
  let i = 0;
  if (text.startsWith("---")) {
    for (let j = 1; j < lineStarts.length; j++) {
      const line = text.slice(lineStarts[j]!, lineEnd(j)).trimEnd();
      if (line === "---" || line === "...") {
        push("frontmatter", 0, lineEnd(j));
        i = j + 1;
        break;
      }
    }
  }
  while (i < lineStarts.length) {
    const start = lineStarts[i]!;
    const end = lineEnd(i);
    const line = text.slice(start, end);
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const marker = fence[1]!;
      let j = i + 1;
      while (j < lineStarts.length) {
        const inner = text.slice(lineStarts[j]!, lineEnd(j)).trim();
        if (inner.startsWith(marker[0]!.repeat(marker.length)) && inner.replaceAll(marker[0]!, "") === "") break;
        j++;
      }
      const close = j < lineStarts.length ? lineEnd(j) : text.length;
      push("fence", start, close, (fence[2] ?? "").toLowerCase());
      i = j + 1;
      continue;
    }
    if (/^\s*\[[^\]]*\]:\s*(?:#|<>)\s*[("']/.test(line)) {
      push("comment", start, end);
      i++;
      continue;
    }
    // HTML comments may open mid-line and span lines: cut the prose around them.
    let cursor = start;
    let lineIndex = i;
    let open = text.indexOf("<!--", cursor);
    while (open !== -1 && open < lineEnd(lineIndex)) {
      push("prose", cursor, open);
      const close = text.indexOf("-->", open + 4);
      const stop = close === -1 ? text.length : close + 3;
      push("comment", open, stop);
      cursor = stop;
      while (lineIndex + 1 < lineStarts.length && lineStarts[lineIndex + 1]! <= cursor) lineIndex++;
      open = text.indexOf("<!--", cursor);
    }
    push("prose", cursor, lineEnd(lineIndex));
    i = lineIndex + 1;
  }
  return regions;
}

/** Decodes and classifies one file. */
export function readAuditFile(path: string, bytes: Uint8Array): AuditFile {
  const binary = looksBinary(bytes);
  const text = binary ? "" : decoder.decode(bytes);
  const kind = binary ? "binary" : fileKind(path, bytes, text);
  const lineStarts = lineStartsOf(text);
  let regions: Region[];
  if (kind === "markdown") regions = markdownRegions(text, lineStarts);
  else regions = [{ kind: kind === "script" ? "script" : "data", start: 0, end: text.length }];
  return { path, kind, bytes, text, lineStarts, regions };
}

/** The 1-based line and column (UTF-16 code units, SARIF's default) of an offset. */
export function positionOf(file: AuditFile, offset: number): { line: number; column: number } {
  const starts = file.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

/** The region an offset falls in. */
export function regionAt(file: AuditFile, offset: number): Region {
  const regions = file.regions;
  let lo = 0;
  let hi = regions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (regions[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return regions[lo] ?? { kind: "data", start: 0, end: file.text.length };
}

/** The text of the line holding an offset, without its line break. */
export function lineTextAt(file: AuditFile, offset: number): string {
  const { line } = positionOf(file, offset);
  const start = file.lineStarts[line - 1]!;
  const end = line < file.lineStarts.length ? file.lineStarts[line]! - 1 : file.text.length;
  return file.text.slice(start, end).replace(/\r$/, "");
}

const MAX_EXCERPT = 120;
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

/**
 * A short, printable excerpt around a match: the line, cut to 120 characters around the match,
 * with invisible characters shown as `\u{…}` so a reviewer sees what the agent would read.
 */
export function excerptAt(file: AuditFile, offset: number, length: number): string {
  const { line, column } = positionOf(file, offset);
  const lineText = lineTextAt(file, file.lineStarts[line - 1]!);
  let from = 0;
  let to = lineText.length;
  if (to > MAX_EXCERPT) {
    from = Math.max(0, Math.min(column - 1 - 30, lineText.length - MAX_EXCERPT));
    to = Math.min(lineText.length, from + Math.max(MAX_EXCERPT, Math.min(length, 200)));
  }
  const cut = lineText.slice(from, to);
  const shown = cut.replace(INVISIBLE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
  return `${from > 0 ? "…" : ""}${shown.trim()}${to < lineText.length ? "…" : ""}`;
}

/** The paragraph of prose before an offset (up to `lines` non-empty lines), for reading intent. */
export function textBefore(file: AuditFile, offset: number, lines: number): string {
  const { line } = positionOf(file, offset);
  const parts: string[] = [];
  for (let l = line - 1; l >= 1 && parts.length < lines; l--) {
    // The first 400 characters of a line are enough to read intent, and keep the look bounded.
    const t = lineTextAt(file, file.lineStarts[l - 1]!)
      .slice(0, 400)
      .trim();
    if (t === "") {
      if (parts.length > 0) break;
      continue;
    }
    parts.unshift(t);
  }
  return parts.join(" ");
}
