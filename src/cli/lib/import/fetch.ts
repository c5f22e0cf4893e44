// Fetching skills from an import source into memory: a git repository (cloned into a temporary
// folder, the ref resolved to a commit), a local folder, or a well-known index (each artifact's
// digest checked before it is unpacked). Nothing here writes into the shelf.
import { execFile } from "node:child_process";
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { GITHUB_SHORTHAND, sourceIdentity, SourceError, type SourceKind } from "../../../core/import/sources.ts";
import { unpackSkill, UnpackError } from "../../../core/import/unpack.ts";
import { CLAWHUB_API_BASE, clawhubFingerprint } from "../../../core/api/clawhub.ts";
import { sha256Hex } from "../../../core/skill/hash.ts";
import { parseSkillMd, decodeSkillMd } from "../../../core/skill/skill-md.ts";
import type { SkillFile } from "../../../core/skill/skill.ts";
import { MAX_BYTES_PER_SKILL } from "../../../core/skill/tree-rules.ts";
import { CliError, printable, UsageError } from "../cli.ts";
import { readSkillDir } from "../skill-dir.ts";
import { isLocalPath } from "./shelf-files.ts";

const run = promisify(execFile);

/** A source, resolved: what to fetch and the identity the allow-list and provenance name. */
export interface ResolvedSource {
  kind: SourceKind;
  identity: string;
  /** What git clones, the index's base URL, or the folder's absolute path. */
  url: string;
  /** git: the ref asked for (null: the default branch); clawhub: the version asked for (null: latest). */
  ref: string | null;
  /** clawhub: the skill's slug on the registry. */
  slug?: string;
}

/** The registry a `clawhub:` source reads when --registry names none (ClawHub's own). */
export const DEFAULT_CLAWHUB_REGISTRY = "https://clawhub.ai";
const CLAWHUB_SLUG = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/** One skill as fetched: its files and what pins them. */
export interface FetchedSkill {
  name: string;
  /** Its folder inside the source (git, folder), or null. */
  path: string | null;
  files: SkillFile[];
  commit: string | null;
  digest: string | null;
  version: string | null;
}

const GIT_HOSTS = new Set(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"]);

async function isDir(p: string): Promise<boolean> {
  return lstat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/**
 * What a source spec names. A local path is a folder, or git when it holds a repository;
 * `file://`, `git@…`, `ssh://`, `git://`, `git+…` and `.git` URLs are git, as are https URLs on
 * the usual git hosts; any other https URL is a well-known index; `owner/repo` is GitHub.
 * @example await resolveSource("acme/skills", null, process.cwd()) // { kind: "git", url: "https://github.com/acme/skills.git", … }
 */
export async function resolveSource(spec: string, ref: string | null, cwd: string, registry: string | null = null): Promise<ResolvedSource> {
  if (spec.startsWith("-")) throw new UsageError(`"${spec}" is not a source`);
  if (ref !== null && (ref.startsWith("-") || /[\s\0]/.test(ref))) throw new UsageError(`--ref "${printable(ref)}" is not a ref`);
  try {
    if (spec.startsWith("clawhub:")) {
      const m = /^clawhub:([^@]+)(?:@(.+))?$/.exec(spec);
      if (!m || !CLAWHUB_SLUG.test(m[1]!)) throw new UsageError(`"${printable(spec)}" is not clawhub:<slug>[@version]`);
      if (ref !== null && m[2] !== undefined) throw new UsageError("pass the version once: clawhub:<slug>@<version> or --ref <version>");
      const base = (registry ?? DEFAULT_CLAWHUB_REGISTRY).replace(/\/+$/, "");
      if (!/^https?:\/\//.test(base)) throw new UsageError(`--registry must be an http(s) URL; got "${printable(base)}"`);
      return { kind: "clawhub", identity: `clawhub:${sourceIdentity(base)}/${m[1]}`, url: base, ref: m[2] ?? ref, slug: m[1]! };
    }
    if (registry !== null) throw new UsageError("--registry goes with a clawhub:<slug> source");
    const abs = path.resolve(cwd, spec);
    if (isLocalPath(spec) || (!/^[a-z+]+:/i.test(spec) && !/^[^/]+@[^/]+:/.test(spec) && (await isDir(abs)))) {
      if (!(await isDir(abs))) throw new UsageError(`source folder not found: ${spec}`);
      const git = await isDir(path.join(abs, ".git"));
      const url = pathToFileURL(abs).href;
      if (!git && ref !== null) throw new UsageError(`--ref needs a git repository; ${spec} is a plain folder`);
      return { kind: git ? "git" : "folder", identity: sourceIdentity(url), url: git ? url : abs, ref };
    }
    if (GITHUB_SHORTHAND.test(spec)) return { kind: "git", identity: sourceIdentity(spec), url: `https://github.com/${spec.replace(/\.git$/, "")}.git`, ref };
    const lower = spec.toLowerCase();
    const gitLike =
      lower.startsWith("file://") ||
      lower.startsWith("git+") ||
      lower.startsWith("ssh://") ||
      lower.startsWith("git://") ||
      /^[^/]+@[^/]+:/.test(spec) ||
      /\.git\/?$/.test(lower);
    if (gitLike) return { kind: "git", identity: sourceIdentity(spec), url: spec.replace(/^git\+/, ""), ref };
    const url = new URL(spec);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new UsageError(`"${spec}": ${url.protocol} sources are not read`);
    if (GIT_HOSTS.has(url.hostname.toLowerCase())) return { kind: "git", identity: sourceIdentity(spec), url: spec, ref };
    if (ref !== null) throw new UsageError("--ref pins a git repository; a well-known index is pinned by its digests");
    const base = spec.replace(/\/+$/, "");
    return { kind: "well-known", identity: sourceIdentity(base), url: base, ref: null };
  } catch (error) {
    if (error instanceof SourceError || error instanceof TypeError)
      throw new UsageError(`${(error as Error).message}: expected a git URL, a path, owner/repo or https://host`);
    throw error;
  }
}

/** The frontmatter version of a SKILL.md, or null. */
function versionOf(files: readonly SkillFile[]): string | null {
  const md = files.find((f) => f.path === "SKILL.md");
  if (!md) return null;
  try {
    const v = parseSkillMd(decodeSkillMd(md.bytes)).frontmatter.version;
    return typeof v === "string" || typeof v === "number" ? String(v) : null;
  } catch {
    return null;
  }
}

/** The frontmatter name of a SKILL.md, or null. */
function nameOf(files: readonly SkillFile[]): string | null {
  const md = files.find((f) => f.path === "SKILL.md");
  if (!md) return null;
  try {
    const n = parseSkillMd(decodeSkillMd(md.bytes)).frontmatter.name;
    return typeof n === "string" ? n : null;
  } catch {
    return null;
  }
}

const SKIP_DIRS = new Set(["node_modules", ".git"]);

/** Every skill folder under `root` (a folder with SKILL.md; never looked inside), relative paths, at most `depth` levels down. */
async function findSkillDirs(root: string, depth = 4): Promise<string[]> {
  const found: string[] = [];
  async function walk(rel: string, level: number): Promise<void> {
    const abs = path.join(root, rel);
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    if (rel !== "" && entries.some((e) => e.isFile() && e.name === "SKILL.md")) {
      found.push(rel);
      return;
    }
    if (level >= depth) return;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith(".") && !SKIP_DIRS.has(e.name)) await walk(rel ? `${rel}/${e.name}` : e.name, level + 1);
  }
  await walk("", 0);
  return found.sort();
}

/** The skills of a folder tree: the folder itself when it holds SKILL.md, else every skill folder in it. */
async function skillsInTree(root: string, asSkillName: string, pin: { commit: string | null }): Promise<FetchedSkill[]> {
  const fromDir = async (rel: string | null, fallbackName: string): Promise<FetchedSkill> => {
    const files = await readSkillDir(rel ? path.join(root, rel) : root);
    return {
      name: rel ? path.posix.basename(rel) : (nameOf(files) ?? fallbackName),
      path: rel,
      files,
      commit: pin.commit,
      digest: null,
      version: versionOf(files),
    };
  };
  if (
    await lstat(path.join(root, "SKILL.md")).then(
      (s) => s.isFile(),
      () => false,
    )
  )
    return [await fromDir(null, asSkillName)];
  const dirs = await findSkillDirs(root);
  const skills: FetchedSkill[] = [];
  for (const rel of dirs) skills.push(await fromDir(rel, path.posix.basename(rel)));
  const seen = new Map<string, string>();
  for (const s of skills) {
    if (seen.has(s.name))
      throw new CliError(`the source has two skills named ${s.name} (${seen.get(s.name)} and ${s.path}); pass the one you mean as a folder or path`);
    seen.set(s.name, s.path ?? ".");
  }
  return skills;
}

async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run("git", args, {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", LC_ALL: "C" },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT") throw new CliError("git is not installed (import reads git repositories with it); install git or import a folder");
    throw new CliError(`git ${args[0]} failed: ${(e.stderr ?? e.message).trim().split("\n").slice(-2).join(" ")}`);
  }
}

/** Clones the repository, checks out the ref (or the default branch), and reads its skills. */
async function fetchGit(source: ResolvedSource): Promise<FetchedSkill[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillshelf-import-"));
  try {
    // No submodules, no hooks (a clone runs none), no prompts.
    await git(["-c", "protocol.ext.allow=never", "clone", "--quiet", "--no-checkout", "--", source.url, dir]);
    let commit: string | null = null;
    for (const candidate of source.ref === null ? ["HEAD"] : [source.ref, `origin/${source.ref}`]) {
      commit = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${candidate}^{commit}`], dir).catch(() => null);
      if (commit) break;
    }
    if (!commit) throw new CliError(`${source.url} has no ref "${printable(source.ref ?? "HEAD")}" (a branch, tag or commit)`);
    await git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit], dir);
    const name = path.basename(source.url.startsWith("file:") ? fileURLToPath(source.url) : source.url).replace(/\.git$/, "");
    return await skillsInTree(dir, name, { commit });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function getBounded(url: string, what: string, limit: number, token: string | undefined): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, redirect: "follow" });
  } catch (error) {
    throw new CliError(`cannot reach ${url} for ${what}: ${(error as Error).message}`);
  }
  if (!res.ok) throw new CliError(`${url} answered ${res.status} for ${what}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > limit) throw new CliError(`${what} at ${url} is ${declared} bytes, over the ${limit}-byte limit; refused`);
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new CliError(`${what} at ${url} is over the ${limit}-byte limit; refused`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

interface IndexEntry {
  name: string;
  type: string;
  url: string;
  digest: string;
  version?: unknown;
}

/** Reads the well-known v0.2 index, then each wanted skill's artifact, refusing any whose bytes miss the index's digest. */
async function fetchWellKnown(source: ResolvedSource, wanted: readonly string[] | null, token: string | undefined): Promise<FetchedSkill[]> {
  const indexUrl = `${source.url}/.well-known/agent-skills/index.json`;
  const bytes = await getBounded(indexUrl, "the skills index", 8 * 1024 * 1024, token);
  let index: unknown;
  try {
    index = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new CliError(`${indexUrl} is not JSON; is ${source.url} a skills host?`);
  }
  const entries = (index as { skills?: unknown }).skills;
  if (!Array.isArray(entries)) throw new CliError(`${indexUrl} has no skills list`);
  const skills: FetchedSkill[] = [];
  for (const raw of entries as IndexEntry[]) {
    if (typeof raw?.name !== "string" || typeof raw.url !== "string" || typeof raw.digest !== "string")
      throw new CliError(`${indexUrl}: an entry lacks name, url or digest`);
    if (wanted && !wanted.includes(raw.name)) continue;
    if (!/^sha256:[0-9a-f]{64}$/.test(raw.digest))
      throw new CliError(`${indexUrl}: ${printable(raw.name)} has digest "${printable(raw.digest)}", not sha256:<64 hex>`);
    const artifactUrl = new URL(raw.url, indexUrl).href;
    const artifact = await getBounded(artifactUrl, `skill ${printable(raw.name)}`, MAX_BYTES_PER_SKILL, token);
    const actual = `sha256:${await sha256Hex(artifact)}`;
    if (actual !== raw.digest)
      throw new CliError(
        `${printable(raw.name)}: the bytes served at ${artifactUrl} are ${actual}, but the index says ${raw.digest}; refused (nothing written)`,
      );
    const kind = raw.type === "skill-md" ? "skill-md" : /\.zip(\?|$)/.test(artifactUrl) ? "zip" : "tar.gz";
    let files: SkillFile[];
    try {
      files = unpackSkill(artifact, kind);
    } catch (error) {
      if (error instanceof UnpackError) throw new CliError(`${printable(raw.name)} from ${artifactUrl}: ${error.message}`);
      throw error;
    }
    const version = typeof raw.version === "string" ? raw.version : versionOf(files);
    skills.push({ name: raw.name, path: null, files, commit: null, digest: raw.digest, version });
  }
  return skills;
}

async function getJson(url: string, what: string, token: string | undefined): Promise<unknown> {
  const bytes = await getBounded(url, what, 4 * 1024 * 1024, token);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new CliError(`${url} did not answer JSON for ${what}`);
  }
}

/** The registry's API root: /api/v1 under its /.well-known/clawhub.json apiBase, else under the registry URL. */
async function clawhubApiBase(registry: string, token: string | undefined): Promise<string> {
  const res = await fetch(`${registry}/.well-known/clawhub.json`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).catch(() => null);
  if (res?.ok) {
    const doc = (await res.json().catch(() => null)) as { apiBase?: unknown } | null;
    // apiBase is the origin the CLI puts /api/v1 under, as the clawhub CLI reads it.
    if (typeof doc?.apiBase === "string") return `${new URL(doc.apiBase, `${registry}/`).href.replace(/\/+$/, "")}${CLAWHUB_API_BASE}`;
  }
  return `${registry}${CLAWHUB_API_BASE}`;
}

/**
 * A version of a skill from a ClawHub registry: its file list (the registry's word), the zip it
 * serves, each file's digest checked against that list, and the folder fingerprint the CLI sends
 * to /resolve confirmed to name this same version.
 */
async function fetchClawhub(source: ResolvedSource, token: string | undefined): Promise<FetchedSkill> {
  const slug = source.slug!;
  const api = await clawhubApiBase(source.url, token);
  const q = encodeURIComponent(slug);
  let version = source.ref;
  if (version === null) {
    const skill = (await getJson(`${api}/skills/${q}`, `skill ${slug}`, token)) as { latestVersion?: { version?: unknown } };
    if (typeof skill?.latestVersion?.version !== "string") throw new CliError(`${source.url} names no latest version of ${slug}`);
    version = skill.latestVersion.version;
  }
  const detail = (await getJson(`${api}/skills/${q}/versions/${encodeURIComponent(version)}`, `${slug}@${version}`, token)) as {
    version?: { files?: { path?: unknown; sha256?: unknown }[] };
  };
  const listed = detail?.version?.files;
  if (!Array.isArray(listed) || listed.some((f) => typeof f?.path !== "string" || typeof f.sha256 !== "string"))
    throw new CliError(`${source.url}: ${slug}@${printable(version)} has no file list`);
  const zip = await getBounded(`${api}/download?slug=${q}&version=${encodeURIComponent(version)}`, `${slug}@${version}`, MAX_BYTES_PER_SKILL, token);
  let files: SkillFile[];
  try {
    files = unpackSkill(zip, "zip");
  } catch (error) {
    if (error instanceof UnpackError) throw new CliError(`${slug}@${printable(version)} from ${source.url}: ${error.message}`);
    throw error;
  }
  const digests = await Promise.all(files.map(async (f) => ({ path: f.path, sha256: await sha256Hex(f.bytes) })));
  const want = new Map(listed.map((f) => [f.path as string, f.sha256 as string]));
  const got = new Map(digests.map((f) => [f.path, f.sha256]));
  const differing = [...new Set([...want.keys(), ...got.keys()])].filter((p) => want.get(p) !== got.get(p)).sort();
  if (differing.length)
    throw new CliError(
      `${slug}@${printable(version)}: the download differs from the registry's file list at ${differing.slice(0, 5).map(printable).join(", ")}; refused (nothing written)`,
    );
  const fingerprint = await clawhubFingerprint(digests);
  const resolved = (await getJson(`${api}/resolve?slug=${q}&hash=${fingerprint}`, `the fingerprint of ${slug}`, token)) as {
    match?: { version?: unknown } | null;
  };
  if (resolved?.match?.version !== version)
    throw new CliError(
      `${slug}@${printable(version)}: the registry does not resolve the download's fingerprint ${fingerprint} to this version; refused (nothing written)`,
    );
  return { name: slug, path: slug, files, commit: null, digest: `fingerprint:${fingerprint}`, version };
}

/**
 * Every skill the source holds (or, for an index, the wanted ones), read into memory.
 * @example (await fetchSkills(await resolveSource("../vendor", null, cwd), null)).map((s) => s.name)
 */
export async function fetchSkills(source: ResolvedSource, wanted: readonly string[] | null, token?: string): Promise<FetchedSkill[]> {
  if (source.kind === "git") return fetchGit(source);
  if (source.kind === "folder") return skillsInTree(source.url, path.basename(source.url), { commit: null });
  if (source.kind === "well-known") return fetchWellKnown(source, wanted, token);
  return [await fetchClawhub(source, token)];
}
