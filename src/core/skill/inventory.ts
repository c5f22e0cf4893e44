// The inventory of a skill folder: every file with its size, digest and media type, plus the
// hashes that identify the skill. Media types come from a fixed table (never a platform lookup)
// so the Worker and the CLI agree byte for byte.
import { sha256Hex, sortPathsBytewise, treeHash } from "./hash.ts";
import type { SkillFile } from "./skill.ts";

export interface InventoryFile {
  path: string;
  size: number;
  sha256: string;
  media_type: string;
}

export interface Inventory {
  /** Every file, sorted bytewise by path (the tree hash's order). */
  files: InventoryFile[];
  total_bytes: number;
  has_scripts: boolean;
  /** AbstractSkill-compatible tree hash over every file. */
  tree_hash: string;
  /** SHA-256 of the SKILL.md bytes. */
  content_hash: string;
}

/** The fixed extension → media type table. Text types carry their charset. */
export const MEDIA_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  text: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  tsv: "text/tab-separated-values; charset=utf-8",
  json: "application/json",
  jsonl: "application/jsonl",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/vnd.microsoft.icon",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  cjs: "text/javascript; charset=utf-8",
  ts: "text/x-typescript; charset=utf-8",
  py: "text/x-python; charset=utf-8",
  sh: "text/x-shellscript; charset=utf-8",
  bash: "text/x-shellscript; charset=utf-8",
  zsh: "text/x-shellscript; charset=utf-8",
  rb: "text/x-ruby; charset=utf-8",
  pl: "text/x-perl; charset=utf-8",
  go: "text/x-go; charset=utf-8",
  rs: "text/x-rust; charset=utf-8",
  sql: "application/sql",
};

/** Anything not in the table: opaque bytes. */
export const DEFAULT_MEDIA_TYPE = "application/octet-stream";

/** The media type of a path by its last extension, case-insensitive. */
export function mediaTypeFor(path: string): string {
  const ext = extensionOf(path);
  return (ext && MEDIA_TYPES[ext]) || DEFAULT_MEDIA_TYPE;
}

/** Extensions that make a skill "ship code" (AbstractSkill's CODE_FILE_EXTENSIONS). */
export const CODE_FILE_EXTENSIONS: ReadonlySet<string> = new Set(
  "py sh bash zsh fish js mjs cjs ts rb pl php ps1 psm1 bat cmd exe dll so dylib jar class wasm lua r swift go rs c cc cpp java kt scala applescript".split(
    " ",
  ),
);

/** The lower-cased last dotted part of the base name; a dotfile like `.py` has none. */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

/**
 * A structural fact, never read from frontmatter: a top-level scripts/ folder, or any file with
 * a code extension anywhere. Bundled scripts force a trust review.
 */
export function hasScripts(paths: readonly string[]): boolean {
  return paths.some((p) => p.startsWith("scripts/") || CODE_FILE_EXTENSIONS.has(extensionOf(p)));
}

/** A SHA-256 as lowercase hex: WebCrypto's by default; a runtime may pass a faster one (the CLI passes Node's). */
export type Sha256 = (bytes: Uint8Array) => Promise<string> | string;

/**
 * Hashes every file once and derives the inventory. The caller has already excluded OS junk
 * and refused symlinks (see src/cli/lib/skill-dir.ts), so files here are exactly what is hashed.
 * @example (await buildInventory(files)).tree_hash // 64 hex
 */
export async function buildInventory(files: readonly SkillFile[], sha256: Sha256 = sha256Hex): Promise<Inventory> {
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new Error("a skill folder must contain SKILL.md at its root");
  const entries = await Promise.all(
    files.map(async (f) => ({ path: f.path, size: f.bytes.length, sha256: await sha256(f.bytes), media_type: mediaTypeFor(f.path) })),
  );
  const sorted = sortPathsBytewise(entries, (e) => e.path);
  return {
    files: sorted,
    total_bytes: sorted.reduce((sum, f) => sum + f.size, 0),
    has_scripts: hasScripts(sorted.map((f) => f.path)),
    tree_hash: await treeHash(sorted),
    // contentHash is the SHA-256 of the SKILL.md bytes, which the entry above already holds.
    content_hash: entries.find((e) => e.path === "SKILL.md")!.sha256,
  };
}
