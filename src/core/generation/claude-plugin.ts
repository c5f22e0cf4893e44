// A skill as a Claude Code plugin (Claude Code 2.1.332, docs/clients.md): the plugin zip holds
// `.claude-plugin/plugin.json` and the skill's files under `skills/<name>/`. Built by the build next
// to the skill's .tar.gz and .zip (assemble.ts skillArchives), from its .zip without recompressing
// it, so the same skill always gives the same plugin bytes; the Worker derives the same zip for
// generations built before the record carried it (src/worker/views/claude).
import semver from "semver";
import { zipArchive } from "./archive.ts";

const encoder = new TextEncoder();

/** What the plugin of one skill is made from: the shelf's entry for it. */
export interface PluginSource {
  name: string;
  description: string;
  /** The version SKILL.md declares, if any. */
  version: string | null;
  tree_hash: string;
}

/**
 * The plugin's version. Claude Code updates a plugin when its version string changes (a digest
 * change alone does not trigger an update while a version is declared), so the version carries the
 * tree hash as semver build metadata: it follows the skill's declared version and changes whenever
 * the skill's bytes do. A skill that declares no semver version is 0.0.0+<tree>.
 * @example pluginVersion({ version: "1.2.0", tree_hash: "ab12cd34ef56…" }) // => "1.2.0+ab12cd34ef56"
 */
export function pluginVersion(skill: Pick<PluginSource, "version" | "tree_hash">): string {
  const tree = skill.tree_hash.slice(0, 12);
  const declared = skill.version === null ? null : semver.valid(skill.version);
  if (declared === null) return `0.0.0+${tree}`;
  // A declared version may carry build metadata already; ours is appended to it.
  return skill.version!.includes("+") ? `${declared}+${skill.version!.split("+")[1]}.${tree}` : `${declared}+${tree}`;
}

/** plugin.json of a skill's plugin. */
export interface PluginManifest {
  name: string;
  version: string;
  description: string;
}

/**
 * plugin.json of a skill's plugin: its name, version and the skill's own description. Only what
 * the skill's files decide (its tree hash covers them): the shelf's review holds and lifecycle go
 * in the marketplace entry instead, so they never change the plugin's bytes without its version.
 */
export function pluginManifest(skill: PluginSource): PluginManifest {
  return { name: skill.name, version: pluginVersion(skill), description: skill.description };
}

/** A skill zip that is not the kind the build writes (no central directory, zip64, data descriptors). */
export class PluginArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginArchiveError";
  }
}

interface ZipEntry {
  name: Uint8Array;
  /** Local header bytes 4..26: version needed, flags, method, time, date, crc, sizes. */
  local: Uint8Array;
  localExtra: Uint8Array;
  data: Uint8Array;
  /** Central header bytes 4..28: made by, needed, flags, method, time, date, crc, sizes. */
  central: Uint8Array;
  centralExtra: Uint8Array;
  comment: Uint8Array;
  /** Central header bytes 34..42: disk, internal and external attributes. */
  attrs: Uint8Array;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The entries of a zip as fflate (archive.ts) writes it: one disk, no zip64, sizes in the headers. */
function readZip(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  if (end < 0 || view.getUint32(end, true) !== EOCD)
    throw new PluginArchiveError("the skill's zip has no end record where the build writes one (a comment or zip64?)");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== CENTRAL) throw new PluginArchiveError(`the skill's zip has no central header at ${at}`);
    const flags = view.getUint16(at + 8, true);
    if (flags & 0x8) throw new PluginArchiveError("the skill's zip uses data descriptors, which the build never writes");
    const csize = view.getUint32(at + 20, true);
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const offset = view.getUint32(at + 42, true);
    if (csize === 0xffffffff || offset === 0xffffffff) throw new PluginArchiveError("the skill's zip is zip64, which the build never writes");
    if (view.getUint32(offset, true) !== LOCAL) throw new PluginArchiveError(`the skill's zip has no local header at ${offset}`);
    const localName = view.getUint16(offset + 26, true);
    const localExtra = view.getUint16(offset + 28, true);
    const dataAt = offset + 30 + localName + localExtra;
    entries.push({
      name: zip.subarray(at + 46, at + 46 + nameLen),
      local: zip.subarray(offset + 4, offset + 26),
      localExtra: zip.subarray(offset + 30 + localName, dataAt),
      data: zip.subarray(dataAt, dataAt + csize),
      central: zip.subarray(at + 4, at + 28),
      centralExtra: zip.subarray(at + 46 + nameLen, at + 46 + nameLen + extraLen),
      comment: zip.subarray(at + 46 + nameLen + extraLen, at + 46 + nameLen + extraLen + commentLen),
      attrs: zip.subarray(at + 34, at + 42),
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Writes entries (in the order given) as one zip; names are the entries' own. */
function writeZip(entries: readonly ZipEntry[]): Uint8Array {
  if (entries.length > 0xffff) throw new PluginArchiveError(`a plugin zip holds at most 65535 files (this one: ${entries.length})`);
  let localSize = 0;
  let centralSize = 0;
  for (const e of entries) {
    localSize += 30 + e.name.length + e.localExtra.length + e.data.length;
    centralSize += 46 + e.name.length + e.centralExtra.length + e.comment.length;
  }
  const out = new Uint8Array(localSize + centralSize + 22);
  const view = new DataView(out.buffer);
  const offsets: number[] = [];
  let at = 0;
  for (const e of entries) {
    offsets.push(at);
    view.setUint32(at, LOCAL, true);
    out.set(e.local, at + 4);
    view.setUint16(at + 26, e.name.length, true);
    view.setUint16(at + 28, e.localExtra.length, true);
    out.set(e.name, at + 30);
    out.set(e.localExtra, at + 30 + e.name.length);
    out.set(e.data, at + 30 + e.name.length + e.localExtra.length);
    at += 30 + e.name.length + e.localExtra.length + e.data.length;
  }
  const centralAt = at;
  entries.forEach((e, i) => {
    view.setUint32(at, CENTRAL, true);
    out.set(e.central, at + 4);
    view.setUint16(at + 28, e.name.length, true);
    view.setUint16(at + 30, e.centralExtra.length, true);
    view.setUint16(at + 32, e.comment.length, true);
    out.set(e.attrs, at + 34);
    view.setUint32(at + 42, offsets[i]!, true);
    out.set(e.name, at + 46);
    out.set(e.centralExtra, at + 46 + e.name.length);
    out.set(e.comment, at + 46 + e.name.length + e.centralExtra.length);
    at += 46 + e.name.length + e.centralExtra.length + e.comment.length;
  });
  view.setUint32(at, EOCD, true);
  view.setUint16(at + 8, entries.length, true);
  view.setUint16(at + 10, entries.length, true);
  view.setUint32(at + 12, centralSize, true);
  view.setUint32(at + 16, centralAt, true);
  return out;
}

/** Prefixes every entry's name (both headers carry it; nothing else in an entry depends on it). */
function prefixed(entries: readonly ZipEntry[], prefix: string): ZipEntry[] {
  const bytes = encoder.encode(prefix);
  return entries.map((e) => {
    const name = new Uint8Array(bytes.length + e.name.length);
    name.set(bytes);
    name.set(e.name, bytes.length);
    return { ...e, name };
  });
}

/**
 * The plugin zip of a skill: `.claude-plugin/plugin.json`, then the skill's zip entries under
 * `skills/<name>/`, each copied as compressed (same CRC, sizes, times and modes). Deterministic:
 * the same skill zip and manifest give the same bytes on any machine.
 * @example const zip = pluginZip(await skillZipBytes, pluginManifest(entry))
 */
export function pluginZip(skillZip: Uint8Array, manifest: PluginManifest): Uint8Array {
  const json = encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const head = readZip(zipArchive([{ path: ".claude-plugin/plugin.json", bytes: json }]));
  // ".claude-plugin/" sorts before "skills/" bytewise, so the whole zip stays in bytewise order.
  return writeZip([...head, ...prefixed(readZip(skillZip), `skills/${manifest.name}/`)]);
}
