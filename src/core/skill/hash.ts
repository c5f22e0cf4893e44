// Content addressing for skills: SHA-256 of bytes, and the whole-tree hash that binds trust
// records to exactly one set of files (byte-compatible with AbstractSkill's hash_skill_tree).

const encoder = new TextEncoder();

/** Lowercase hex of every byte value: a digest's hex is 32 lookups, not 32 padStart calls (the Worker hashes on every file answer). */
const HEX = Array.from({ length: 256 }, (_v, byte) => byte.toString(16).padStart(2, "0"));

/**
 * Lowercase hex of raw bytes, the one hex encoder.
 * @example toHex(new Uint8Array([0, 255])) // => "00ff"
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += HEX[b];
  return out;
}

/** Raw bytes of a 64-character lowercase or uppercase hex SHA-256 digest. */
export function fromHex(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) throw new Error(`not a hex string: ${hex.slice(0, 20)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A SHA-256 as 64 lowercase hex characters, the only digest spelling we store (for zod's `.regex`). */
export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

/** True for a 64-character lowercase hex string, the only digest spelling we store. */
export function isSha256Hex(value: string): boolean {
  return SHA256_HEX_RE.test(value);
}

/**
 * SHA-256 as 64 lowercase hex characters (no `sha256:` prefix). Strings are hashed as UTF-8.
 * @example await sha256Hex("# Hello\n") // "90f8ec56…ad17be"
 */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)));
}

/** The content hash of a skill: the SHA-256 of its SKILL.md bytes, exactly as stored. */
export function contentHash(skillMdBytes: Uint8Array): Promise<string> {
  return sha256Hex(skillMdBytes);
}

/** Compares two byte strings in memcmp order (equal to code-point order for UTF-8). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Sorts relative paths by their UTF-8 bytes. JS string comparison orders by UTF-16 code units,
 * which disagrees with byte order when astral characters meet U+E000–U+FFFF.
 */
export function sortPathsBytewise<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ item, key: encoder.encode(pathOf(item)) }));
  keyed.sort((x, y) => compareBytes(x.key, y.key));
  return keyed.map((k) => k.item);
}

/** One file as the tree hash sees it: its relative POSIX path and the hex SHA-256 of its bytes. */
export interface TreeHashEntry {
  path: string;
  sha256: string;
}

/**
 * The tree hash of a skill folder: SHA-256 over, for each file in bytewise path order, the
 * 8-byte big-endian length of the UTF-8 path, the path bytes, and the raw 32-byte file digest.
 * The length prefix makes the manifest injective (a crafted file name cannot mimic two files).
 * Callers pass every regular file except OS junk (see isOsJunkFile); no filtering happens here.
 * @example await treeHash([]) // "e3b0c442…b855" (SHA-256 of empty input)
 */
export async function treeHash(files: readonly TreeHashEntry[]): Promise<string> {
  const entries = sortPathsBytewise(files, (f) => f.path).map((f) => {
    if (!isSha256Hex(f.sha256)) throw new Error(`tree hash entry ${JSON.stringify(f.path)} has no valid sha256`);
    return { path: encoder.encode(f.path), digest: fromHex(f.sha256) };
  });
  const total = entries.reduce((sum, e) => sum + 8 + e.path.length + 32, 0);
  const manifest = new Uint8Array(total);
  const view = new DataView(manifest.buffer);
  let offset = 0;
  for (const e of entries) {
    view.setBigUint64(offset, BigInt(e.path.length), false);
    offset += 8;
    manifest.set(e.path, offset);
    offset += e.path.length;
    manifest.set(e.digest, offset);
    offset += 32;
  }
  return sha256Hex(manifest);
}

/** OS junk files that the tree hash (and therefore every build) ignores, at any depth. */
const OS_JUNK_FILES: ReadonlySet<string> = new Set([".DS_Store", "Thumbs.db", "desktop.ini"]);

/** True when the base name of `path` is an OS junk file (case-sensitive, as upstream). */
export function isOsJunkFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return OS_JUNK_FILES.has(base);
}
