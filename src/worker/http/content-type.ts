// Which Content-Type a skill file is served with. Skill files are untrusted: anything a browser
// could execute or render as active content (scripts, HTML, SVG, XML, JavaScript) is served as
// inert text, and anything else we do not recognise as passive is an attachment. The manifest's
// media type is advisory; this policy has the last word.
import { extensionOf } from "../../core/skill/inventory.ts";

/** How one file is presented: its Content-Type and, for unknown binaries, a Content-Disposition. */
export interface ServedType {
  contentType: string;
  disposition?: string;
}

/** The JSON type every index and manifest route uses. */
const JSON_TYPE = "application/json";
/** SKILL.md and other Markdown, as the discovery RFC asks. */
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
/** Inert text: what scripts and active content are downgraded to. */
const TEXT_TYPE = "text/plain; charset=utf-8";
/** Archive types required by the discovery RFC. */
export const GZIP_TYPE = "application/gzip";
export const ZIP_TYPE = "application/zip";

// Extensions that are code or active content whatever media type the build recorded.
const ACTIVE_EXTENSIONS = new Set([
  "html",
  "htm",
  "xhtml",
  "shtml",
  "svg",
  "svgz",
  "xml",
  "xsl",
  "xslt",
  "js",
  "mjs",
  "cjs",
  "jsx",
  "ts",
  "tsx",
  "wasm",
  "sh",
  "bash",
  "zsh",
  "fish",
  "ps1",
  "psm1",
  "bat",
  "cmd",
  "py",
  "rb",
  "pl",
  "php",
  "lua",
  "swf",
  "hta",
  "vbs",
  "jar",
]);

// Passive types a browser renders without running anything; served with their own type.
const PASSIVE_TYPES = new Map<string, string>([
  ["md", MARKDOWN_TYPE],
  ["markdown", MARKDOWN_TYPE],
  ["json", JSON_TYPE],
  ["txt", TEXT_TYPE],
  ["csv", "text/csv; charset=utf-8"],
  ["tsv", "text/tab-separated-values; charset=utf-8"],
  ["yaml", "application/yaml"],
  ["yml", "application/yaml"],
  ["toml", TEXT_TYPE],
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["webp", "image/webp"],
  ["pdf", "application/pdf"],
  ["gz", GZIP_TYPE],
  ["tgz", GZIP_TYPE],
  ["zip", ZIP_TYPE],
]);

function isTextual(mediaType: string | undefined): boolean {
  if (!mediaType) return false;
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/yaml" ||
    type === "application/x-sh" ||
    type.endsWith("+xml") ||
    type === "application/xml" ||
    type === "application/javascript"
  );
}

/**
 * Decides the Content-Type (and Content-Disposition) for a skill file at `path` whose build
 * recorded `mediaType`. Files under `scripts/` are always inert text or an attachment.
 * @example servedTypeFor("scripts/run.sh", "text/x-shellscript") // => {contentType:"text/plain; charset=utf-8"}
 * @example servedTypeFor("assets/logo.png", "image/png")          // => {contentType:"image/png"}
 */
export function servedTypeFor(path: string, mediaType?: string): ServedType {
  const ext = extensionOf(path);
  const base = path.slice(path.lastIndexOf("/") + 1);
  const isScript = path.startsWith("scripts/") || ACTIVE_EXTENSIONS.has(ext);
  if (isScript) {
    return isTextual(mediaType) || mediaType === undefined || ACTIVE_EXTENSIONS.has(ext) ? { contentType: TEXT_TYPE } : attachment(base);
  }
  if (path.endsWith(".tar.gz")) return { contentType: GZIP_TYPE };
  const passive = PASSIVE_TYPES.get(ext);
  if (passive) return { contentType: passive };
  if (isTextual(mediaType)) return { contentType: TEXT_TYPE };
  return attachment(base);
}

function attachment(fileName: string): ServedType {
  // The file name is ASCII-safe by the build's path rules; quote it anyway and escape quotes.
  const safe = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return { contentType: "application/octet-stream", disposition: `attachment; filename="${safe}"` };
}
