// Reading the artifact a well-known index or a registry serves for a skill: a lone SKILL.md, a
// .tar.gz or a .zip, into the skill's files. Hostile archives are expected: links, devices,
// absolute or `..` paths and oversized trees are refused, never written anywhere.
import { gunzipSync, unzipSync } from "fflate";
import { MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL } from "../skill/tree-rules.ts";
import type { SkillFile } from "../skill/skill.ts";
import { isOsJunkFile } from "../skill/hash.ts";

/** An archive we will not unpack: the message says why. */
export class UnpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnpackError";
  }
}

const decoder = new TextDecoder();

/** A member path made relative, or an error for one that could escape the skill folder. */
function safePath(raw: string): string | null {
  let p = raw.replace(/^\.\//, "");
  if (p.endsWith("/")) return null; // a directory entry
  if (p === "" || p.startsWith("/") || p.includes("\\") || p.split("/").some((s) => s === ".." || s === "." || s === "") || /^[A-Za-z]:/.test(p))
    throw new UnpackError(`archive member "${raw}" is not a plain relative path; refused`);
  p = p.normalize("NFC");
  return isOsJunkFile(p) ? null : p;
}

function octal(bytes: Uint8Array, offset: number, length: number): number {
  const text = decoder
    .decode(bytes.subarray(offset, offset + length))
    .replace(/\0.*$/s, "")
    .trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function cString(bytes: Uint8Array, offset: number, length: number): string {
  const slice = bytes.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

/** Keeps the running totals inside the per-skill limits. */
function checkLimits(files: SkillFile[]): void {
  if (files.length > MAX_FILES_PER_SKILL) throw new UnpackError(`archive holds more than ${MAX_FILES_PER_SKILL} files; refused`);
  if (files.reduce((n, f) => n + f.bytes.length, 0) > MAX_BYTES_PER_SKILL)
    throw new UnpackError(`archive unpacks to more than ${MAX_BYTES_PER_SKILL} bytes; refused`);
}

/** The members of an uncompressed ustar/pax archive: regular files only (a link or device refuses it). */
export function readTar(tar: Uint8Array): SkillFile[] {
  const files: SkillFile[] = [];
  let offset = 0;
  let paxPath: string | null = null;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    if (body.length !== size) throw new UnpackError("archive is truncated");
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(decoder.decode(body));
      paxPath = m ? m[1]! : null;
      continue;
    }
    if (type === "g") continue;
    const prefix = cString(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${cString(header, 0, 100)}` : cString(header, 0, 100));
    paxPath = null;
    if (type === "5") continue;
    if (type !== "0" && type !== "\0") throw new UnpackError(`archive member "${name}" is not a regular file (tar type ${JSON.stringify(type)}); refused`);
    const p = safePath(name);
    if (p === null) continue;
    if (files.some((f) => f.path === p)) throw new UnpackError(`archive holds "${p}" twice; refused`);
    files.push({ path: p, bytes: body.slice() });
    checkLimits(files);
  }
  return files;
}

/**
 * A skill's files from the bytes an index served. `kind` is the index's type or the URL's ending.
 * @example unpackSkill(bytes, "tar.gz").map((f) => f.path) // ["SKILL.md", "scripts/run.sh"]
 */
export function unpackSkill(bytes: Uint8Array, kind: "skill-md" | "tar.gz" | "zip"): SkillFile[] {
  if (kind === "skill-md") return [{ path: "SKILL.md", bytes }];
  let files: SkillFile[];
  if (kind === "tar.gz") {
    let tar: Uint8Array;
    try {
      // The download is already bounded; the tar is checked against the skill limits below.
      tar = gunzipSync(bytes);
    } catch (error) {
      throw new UnpackError(`not a gzip archive: ${(error as Error).message}`);
    }
    if (tar.length > MAX_BYTES_PER_SKILL * 2) throw new UnpackError("archive unpacks to too many bytes; refused");
    files = readTar(tar);
  } else {
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(bytes, {
        filter: (f) => {
          if (f.originalSize > MAX_BYTES_PER_SKILL) throw new UnpackError(`zip member "${f.name}" is larger than ${MAX_BYTES_PER_SKILL} bytes; refused`);
          return true;
        },
      });
    } catch (error) {
      if (error instanceof UnpackError) throw error;
      throw new UnpackError(`not a zip archive: ${(error as Error).message}`);
    }
    files = [];
    for (const [name, data] of Object.entries(entries)) {
      const p = safePath(name);
      if (p !== null) files.push({ path: p, bytes: data });
    }
    checkLimits(files);
  }
  if (!files.some((f) => f.path === "SKILL.md")) throw new UnpackError("archive has no SKILL.md at its root");
  return files;
}
