// Deterministic archives of a skill folder: the same files give byte-identical .tar.gz and .zip on
// any machine. Files sit at the archive root in bytewise path order, with fixed modes and times,
// no directory entries, no owner names and no gzip timestamp. Compression is fflate, pinned to an
// exact version in package.json, because zlib builds differ in their output.
import { gzipSync, zipSync, type Zippable } from "fflate";
import { sortPathsBytewise } from "../skill/hash.ts";
import type { SkillFile } from "../skill/skill.ts";

/** The fixed modification time of every archive member: 1980-01-01T00:00:00Z (zip's epoch). */
export const ARCHIVE_MTIME_SECONDS = 315_532_800;
/** Every member is a regular file, mode 0644: modes are not part of a skill's identity. */
export const ARCHIVE_FILE_MODE = 0o644;
/** Compression level for both formats; changing it changes every archive digest. */
export const ARCHIVE_COMPRESSION_LEVEL = 9;

const encoder = new TextEncoder();
const BLOCK = 512;
/** tar's default record: the archive is padded to a multiple of 20 blocks, as GNU tar and Python do. */
const RECORD = 20 * BLOCK;

/** A path that cannot be stored in a ustar header (more than 255 bytes, or no split point). */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

function writeString(header: Uint8Array, offset: number, length: number, bytes: Uint8Array): void {
  header.set(bytes.subarray(0, length), offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  // length-1 octal digits, zero-padded, then NUL.
  const digits = value.toString(8).padStart(length - 1, "0");
  if (digits.length > length - 1) throw new ArchiveError(`value ${value} does not fit a ${length}-byte tar field`);
  writeString(header, offset, length - 1, encoder.encode(digits));
  header[offset + length - 1] = 0;
}

/** Splits a path into ustar's prefix (≤155 bytes) and name (≤100 bytes) at a slash. */
function splitUstarPath(path: string): { prefix: Uint8Array; name: Uint8Array } {
  const bytes = encoder.encode(path);
  if (bytes.length <= 100) return { prefix: new Uint8Array(0), name: bytes };
  // The shortest prefix that fits, as Python's tarfile and GNU tar choose.
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] !== 0x2f) continue;
    const prefix = bytes.subarray(0, i);
    const name = bytes.subarray(i + 1);
    if (prefix.length <= 155 && name.length <= 100 && name.length > 0) return { prefix, name };
  }
  throw new ArchiveError(`path "${path}" is too long for a tar archive (at most 100 bytes per file name and 255 in all); shorten it`);
}

function ustarHeader(path: string, size: number): Uint8Array {
  const header = new Uint8Array(BLOCK);
  const { prefix, name } = splitUstarPath(path);
  writeString(header, 0, 100, name);
  writeOctal(header, 100, 8, ARCHIVE_FILE_MODE);
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, ARCHIVE_MTIME_SECONDS);
  header.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  header[156] = 0x30; // typeflag '0': regular file
  writeString(header, 257, 6, encoder.encode("ustar\0"));
  writeString(header, 263, 2, encoder.encode("00"));
  // devmajor/devminor stay NUL for regular files, as Python's tarfile writes them.
  writeString(header, 345, 155, prefix);
  let sum = 0;
  for (const byte of header) sum += byte;
  // Checksum: six octal digits, NUL, space (the historical layout every reader accepts).
  writeString(header, 148, 6, encoder.encode(sum.toString(8).padStart(6, "0")));
  header[154] = 0;
  header[155] = 0x20;
  return header;
}

/**
 * The uncompressed ustar archive: one header and padded body per file, two zero blocks, then
 * zero padding to a 10240-byte record.
 */
export function tarArchive(files: readonly SkillFile[]): Uint8Array {
  const sorted = sortPathsBytewise(files, (f) => f.path);
  let total = 2 * BLOCK;
  for (const f of sorted) total += BLOCK + Math.ceil(f.bytes.length / BLOCK) * BLOCK;
  total = Math.ceil(total / RECORD) * RECORD;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const f of sorted) {
    out.set(ustarHeader(f.path, f.bytes.length), offset);
    offset += BLOCK;
    out.set(f.bytes, offset);
    offset += Math.ceil(f.bytes.length / BLOCK) * BLOCK;
  }
  return out;
}

/**
 * The skill folder as a deterministic .tar.gz (gzip header without name or timestamp).
 * @example const bytes = tarGzArchive(files) // same files => same bytes, any machine
 */
export function tarGzArchive(files: readonly SkillFile[]): Uint8Array {
  return gzipSync(tarArchive(files), { level: ARCHIVE_COMPRESSION_LEVEL, mtime: 0 });
}

/**
 * The skill folder as a deterministic .zip: bytewise path order, DOS time 1980-01-01 00:00,
 * Unix mode 0644, deflate at a fixed level, no directory entries, no comments.
 */
export function zipArchive(files: readonly SkillFile[]): Uint8Array {
  const sorted = sortPathsBytewise(files, (f) => f.path);
  // fflate reads the time back with local-time getters, so build it from local fields: the
  // stored DOS time is then 1980-01-01 00:00:00 whatever the machine's time zone.
  const mtime = new Date(1980, 0, 1, 0, 0, 0);
  // No prototype, so names like "constructor" are plain keys of ours.
  const entries: Zippable = Object.create(null) as Zippable;
  const order: string[] = [];
  for (const f of sorted) {
    if (/^(0|[1-9][0-9]*)$/.test(f.path)) {
      // JS objects enumerate integer-like keys first; refuse rather than silently reorder.
      throw new ArchiveError(`file name "${f.path}" is a bare number at the skill root; rename it (for example ${f.path}.txt)`);
    }
    if (f.path === "__proto__") {
      // fflate copies the entries into a plain object, where "__proto__" sets the prototype
      // instead of adding a file: the zip would silently lose the file or gain bogus ones.
      throw new ArchiveError(`file name "__proto__" at the skill root cannot be zipped; rename it`);
    }
    order.push(f.path);
    entries[f.path] = [f.bytes, { level: ARCHIVE_COMPRESSION_LEVEL, mtime, os: 3, attrs: (0o100000 | ARCHIVE_FILE_MODE) * 65536 }];
  }
  return zipSync(entries);
}
