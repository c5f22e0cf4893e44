// lock and install (issue 17): resolve name@range pairs against a shelf's POST /v1/resolve into a
// lockfile, and install exactly the locked bytes into an agent's skills folder. Every file is
// fetched from its URL pinned to the locked generation and checked (size, SHA-256), and the
// skill's tree hash is recomputed with the core's hashing before anything is written; each skill
// is written to a temporary sibling and renamed into place, so a skill is never half-installed,
// and a folder changed since skillshelf installed it is left alone unless --force.
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex, treeHash } from "../../core/skill/hash.ts";
import { LOCK_SCHEMA, LockFileSchema, lockedFileUrl, type LockedSkill, type LockFile } from "../../core/versions/lock.ts";
import { CliError, UsageError } from "./cli.ts";
import { readSkillDir } from "./skill-dir.ts";

/** The environment variable `lock` and `install` read a private shelf's read token from, unless --token-env names another. */
export const DEFAULT_READ_TOKEN_ENV = "SKILLSHELF_READ_TOKEN";
/** Beside the installed skills: which tree hash skillshelf installed for each, so local edits are recognized. */
export const INSTALLED_FILE = ".skillshelf-installed.json";
const INSTALLED_SCHEMA = "skillshelf.installed/1";

/** How to reach a shelf: its address (with a /c/<token> prefix if given so) and an optional read token. */
export interface ShelfAccess {
  url: string;
  token?: string | undefined;
  fetch?: typeof fetch;
}

function headers(access: ShelfAccess, extra: Record<string, string> = {}): Headers {
  const h = new Headers(extra);
  if (access.token) h.set("Authorization", `Bearer ${access.token}`);
  return h;
}

/** The address a lockfile records: a capability path (/c/<token>) is a secret and stays out of files. */
export function shelfAddressForLock(url: string): { address: string; hadCapability: boolean } {
  const parsed = new URL(url);
  const stripped = parsed.pathname.replace(/\/c\/[^/]+(?=\/|$)/, "");
  parsed.pathname = stripped;
  return { address: parsed.toString().replace(/\/+$/, ""), hadCapability: stripped !== new URL(url).pathname };
}

async function call(access: ShelfAccess, url: string, init: RequestInit): Promise<Response> {
  try {
    return await (access.fetch ?? fetch)(url, init);
  } catch (error) {
    throw new CliError(`cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
  }
}

/** A problem document's one line, with what did not resolve. */
async function refusal(res: Response, what: string): Promise<CliError> {
  const text = await res.text();
  let detail = text.slice(0, 300);
  try {
    const problem = JSON.parse(text) as {
      detail?: string;
      message?: string;
      unresolved?: Array<{ name: string; range: string; reason: string; versions?: string[] }>;
    };
    detail = problem.detail ?? problem.message ?? detail;
    for (const u of problem.unresolved ?? []) {
      detail += `\n  ${u.name}@${u.range}: ${u.reason.replaceAll("_", " ")}${u.versions?.length ? ` (versions: ${u.versions.join(", ")})` : ""}`;
    }
  } catch {
    // Not JSON: the text itself says it.
  }
  return new CliError(`${what} failed with ${res.status}: ${detail}`);
}

/**
 * Resolves `skills` (name → range) on the shelf and returns the lockfile.
 * @example await resolveLock({ url: "https://shelf.example" }, { "code-review": "^1.2" })
 */
export async function resolveLock(access: ShelfAccess, skills: Record<string, string>): Promise<LockFile> {
  const res = await call(access, `${access.url}/v1/resolve`, {
    method: "POST",
    headers: headers(access, { "Content-Type": "application/json", Accept: "application/json" }),
    body: JSON.stringify({ skills }),
  });
  if (!res.ok) throw await refusal(res, "resolving");
  const answer = (await res.json()) as { skills?: Record<string, LockedSkill & { files: Array<{ path: string; size: number; sha256: string }> }> };
  const locked: LockFile["skills"] = {};
  for (const [name, s] of Object.entries(answer.skills ?? {})) {
    locked[name] = {
      range: s.range,
      version: s.version,
      tree_hash: s.tree_hash,
      generation: s.generation,
      files: s.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    };
  }
  const parsed = LockFileSchema.safeParse({ schema: LOCK_SCHEMA, shelf: shelfAddressForLock(access.url).address, skills: locked });
  if (!parsed.success) throw new CliError(`the shelf's answer is not a lock this CLI can write: ${parsed.error.issues[0]?.message}`);
  for (const name of Object.keys(skills)) if (!parsed.data.skills[name]) throw new CliError(`the shelf did not resolve ${name}`);
  return parsed.data;
}

/** Reads and checks a lockfile. */
export async function readLockFile(file: string): Promise<LockFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(
      `cannot read the lockfile ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (write one with skillshelf lock)`,
      2,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
  const parsed = LockFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`${file} is not a ${LOCK_SCHEMA} lockfile: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Writes a file atomically: a temporary sibling renamed over it. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** The tree hash of a folder on disk (core hashing over every regular file, OS junk skipped). */
async function folderTreeHash(dir: string): Promise<string> {
  const files = await readSkillDir(dir);
  return treeHash(await Promise.all(files.map(async (f) => ({ path: f.path, sha256: await sha256Hex(f.bytes) }))));
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

type Installed = Record<string, { tree_hash: string; version: string | null; generation: string }>;

async function readInstalled(dir: string): Promise<Installed> {
  try {
    const json = JSON.parse(await readFile(path.join(dir, INSTALLED_FILE), "utf8")) as { schema?: string; skills?: Installed };
    return json.schema === INSTALLED_SCHEMA && json.skills ? json.skills : {};
  } catch {
    return {};
  }
}

/** What installing one skill did. */
export type InstallOutcome = "installed" | "replaced" | "unchanged";

/** Fetches every locked file of a skill and checks sizes, digests and the tree hash; nothing is written. */
async function fetchLocked(access: ShelfAccess, name: string, skill: LockedSkill): Promise<Map<string, Uint8Array>> {
  const bytes = new Map<string, Uint8Array>();
  for (const file of skill.files) {
    const url = lockedFileUrl(access.url, name, skill, file.path);
    const res = await call(access, url, { headers: headers(access) });
    if (res.status === 404)
      throw new CliError(`${name}: ${file.path} is no longer served at generation ${skill.generation} (gc collected it?): re-lock with skillshelf lock`);
    if (res.status === 410)
      throw new CliError(
        `${name}@${skill.version ?? skill.tree_hash}: an advisory in force now blocks it; it is not installed (${(await res.text()).slice(0, 200)})`,
      );
    if (!res.ok) throw await refusal(res, `fetching ${name}/${file.path}`);
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.byteLength !== file.size || (await sha256Hex(body)) !== file.sha256) {
      throw new CliError(
        `${name}: ${file.path} does not match the lockfile (size ${body.byteLength}, expected ${file.size}; or another SHA-256); nothing was written`,
      );
    }
    bytes.set(file.path, body);
  }
  const tree = await treeHash(skill.files.map((f) => ({ path: f.path, sha256: f.sha256 })));
  if (tree !== skill.tree_hash)
    throw new CliError(`${name}: the locked files hash to tree ${tree}, not the locked ${skill.tree_hash}; the lockfile is inconsistent`);
  return bytes;
}

/**
 * Installs one locked skill into `dir/<name>`: unchanged when the folder already holds exactly
 * those bytes; refused when the folder differs from what skillshelf last installed there (local
 * edits) unless `force`; otherwise written to a temporary sibling and renamed into place.
 */
export async function installSkill(access: ShelfAccess, dir: string, name: string, skill: LockedSkill, force: boolean): Promise<InstallOutcome> {
  const target = path.join(dir, name);
  const present = await exists(target);
  const installed = await readInstalled(dir);
  if (present) {
    const tree = await folderTreeHash(target);
    if (tree === skill.tree_hash) {
      await recordInstalled(dir, name, skill);
      return "unchanged";
    }
    if (!force && installed[name]?.tree_hash !== tree) {
      throw new CliError(
        `${target} has local changes (or was not installed by skillshelf): its tree hash is ${tree}. Move it away, or pass --force to replace it`,
      );
    }
  }
  const bytes = await fetchLocked(access, name, skill);
  await mkdir(dir, { recursive: true });
  const staging = path.join(dir, `.skillshelf-tmp-${name}-${process.pid}-${Date.now()}`);
  try {
    for (const [rel, data] of bytes) {
      const file = path.join(staging, ...rel.split("/"));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, data);
    }
    if ((await folderTreeHash(staging)) !== skill.tree_hash)
      throw new CliError(`${name}: the written files do not hash to the locked tree; nothing was installed`);
    if (present) {
      const old = `${staging}-old`;
      await rename(target, old);
      try {
        await rename(staging, target);
      } catch (error) {
        await rename(old, target);
        throw error;
      }
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(staging, target);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  await recordInstalled(dir, name, skill);
  return present ? "replaced" : "installed";
}

async function recordInstalled(dir: string, name: string, skill: LockedSkill): Promise<void> {
  const installed = await readInstalled(dir);
  installed[name] = { tree_hash: skill.tree_hash, version: skill.version, generation: skill.generation };
  const sorted = Object.fromEntries(
    Object.keys(installed)
      .sort()
      .map((k) => [k, installed[k]!]),
  );
  await writeFileAtomic(path.join(dir, INSTALLED_FILE), `${JSON.stringify({ schema: INSTALLED_SCHEMA, skills: sorted }, null, 2)}\n`);
}

/**
 * The read token to send: from `--token-env NAME` (which must then be set: naming a variable
 * that is empty is a mistake, not a public shelf), else from DEFAULT_READ_TOKEN_ENV if set.
 * @throws UsageError when --token-env names an unset variable
 */
export function readTokenFrom(env: Readonly<Record<string, string | undefined>>, tokenEnv: string | undefined, usage: string): string | undefined {
  const token = env[tokenEnv ?? DEFAULT_READ_TOKEN_ENV]?.trim() || undefined;
  if (tokenEnv !== undefined && token === undefined) throw new UsageError(`--token-env ${tokenEnv}: the variable is not set\nusage: ${usage}`);
  return token;
}
