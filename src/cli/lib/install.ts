// lock and install (issue 17): resolve name@range pairs against a shelf's POST /v1/resolve into a
// lockfile, and install exactly the locked bytes into an agent's skills folder. Every file is
// fetched from its URL pinned to the locked generation and checked (size, SHA-256), and the
// skill's tree hash is recomputed with the core's hashing before anything is written; each skill
// is written to a temporary sibling and renamed into place, so a skill is never half-installed,
// and a folder changed since skillshelf installed it is left alone unless --force.
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { sha256Hex, treeHash } from "../../core/skill/hash.ts";
import { LOCK_SCHEMA, LockFileSchema, lockedFileUrl, type LockedSkill, type LockFile } from "../../core/versions/lock.ts";
import { notHttpsMessage } from "../../core/publish/client.ts";
import { CliError, printable, UsageError } from "./cli.ts";
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
    throw new CliError(notHttpsMessage(error, url) ?? `cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
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
  return new CliError(printable(`${what} failed with ${res.status}: ${detail}`));
}

/** The fields of POST /v1/resolve's answer that a lock takes (each checked again by LockFileSchema). */
const ResolveAnswerSchema = z.object({
  skills: z.record(
    z.string(),
    z.object({
      range: z.string(),
      version: z.string().nullable(),
      tree_hash: z.string(),
      generation: z.string(),
      files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string() })),
    }),
  ),
});

/**
 * Refuses a JSON object whose `field` holds a `__proto__` key: JSON.parse keeps it as an own key,
 * but copying it into a record sets the record's prototype instead, so it would vanish silently.
 */
function refuseProtoKey(json: unknown, field: string, where: string): void {
  const inner = json !== null && typeof json === "object" ? (json as Record<string, unknown>)[field] : undefined;
  if (inner !== null && typeof inner === "object" && Object.hasOwn(inner, "__proto__")) {
    throw new CliError(`${where}: ${field} names a skill "__proto__", which is not a skill name (lowercase letters, digits and hyphens)`);
  }
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
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new CliError(`${access.url}/v1/resolve did not answer JSON`);
  }
  const checked = ResolveAnswerSchema.safeParse(json);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new CliError(printable(`${access.url}/v1/resolve did not answer a resolution: ${issue.path.join(".") || "(the answer)"}: ${issue.message}`));
  }
  refuseProtoKey(json, "skills", `${access.url}/v1/resolve`);
  const answer = checked.data;
  const locked: LockFile["skills"] = {};
  for (const [name, s] of Object.entries(answer.skills)) {
    locked[name] = {
      range: s.range,
      version: s.version,
      tree_hash: s.tree_hash,
      generation: s.generation,
      files: s.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    };
  }
  const parsed = LockFileSchema.safeParse({ schema: LOCK_SCHEMA, shelf: shelfAddressForLock(access.url).address, skills: locked });
  if (!parsed.success) throw new CliError(printable(`the shelf's answer is not a lock this CLI can write: ${parsed.error.issues[0]?.message}`));
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
  refuseProtoKey(json, "skills", file);
  const parsed = LockFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(printable(`${file} is not a ${LOCK_SCHEMA} lockfile: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`));
  }
  for (const [name, skill] of Object.entries(parsed.data.skills)) {
    const problem = lockedTreeProblem(skill);
    if (problem) throw new CliError(printable(`${file}: ${name}: ${problem}; re-lock with skillshelf lock`));
  }
  return parsed.data;
}

/** The longest file or folder name most file systems take, in UTF-8 bytes. */
const MAX_NAME_BYTES = 255;

/** Why a locked file list cannot be written as a folder (a file that is also a folder, a name too long), or undefined. */
function lockedTreeProblem(skill: LockedSkill): string | undefined {
  const files = new Set(skill.files.map((f) => f.path));
  if (files.size !== skill.files.length) return "a file is listed twice";
  for (const file of files) {
    const segments = file.split("/");
    for (let i = 1; i < segments.length; i++) {
      const folder = segments.slice(0, i).join("/");
      if (files.has(folder)) return `"${folder}" is both a file and the folder of "${file}"`;
    }
    const long = segments.find((s) => Buffer.byteLength(s) > MAX_NAME_BYTES);
    if (long !== undefined) return `the name "${long.slice(0, 40)}…" is ${Buffer.byteLength(long)} bytes, more than the ${MAX_NAME_BYTES} a file system takes`;
  }
  return undefined;
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

const InstalledSchema = z.object({
  schema: z.literal(INSTALLED_SCHEMA),
  skills: z.record(z.string(), z.object({ tree_hash: z.string(), version: z.string().nullable(), generation: z.string() })),
});
type Installed = z.infer<typeof InstalledSchema>["skills"];

/** What skillshelf installed into `dir` (none when the state file is absent); a state file of another shape is refused. */
async function readInstalled(dir: string): Promise<Installed> {
  const file = path.join(dir, INSTALLED_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // zod's record drops a "__proto__" key silently, so the raw JSON is asked first.
  refuseProtoKey(json, "skills", file);
  const parsed = InstalledSchema.safeParse(json);
  if (parsed.success) return Object.assign(Object.create(null) as Installed, parsed.data.skills);
  throw new CliError(`${file} is not a ${INSTALLED_SCHEMA} state file (skillshelf writes it beside what it installs); move it away and install again`);
}

/** What installing one skill did. */
export type InstallOutcome = "installed" | "replaced" | "unchanged";

/**
 * A response body read as it arrives, refused (and the download cancelled) as soon as it passes
 * the locked size: a shelf answering 400 MiB for a 2-byte file costs a few chunks, not 400 MiB.
 */
async function bodyUpTo(res: Response, size: number, what: string): Promise<Uint8Array> {
  const tooLarge = () => new CliError(`${what}: the shelf sent more than the locked ${size} bytes; nothing was written`);
  const declared = res.headers.get("Content-Length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > size) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const out = new Uint8Array(size);
  let at = 0;
  if (!res.body) return out.subarray(0, 0);
  const reader = res.body.getReader();
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new CliError(`${what}: the download failed: ${(error as Error).message}`);
    }
    if (chunk.done) return out.subarray(0, at);
    if (at + chunk.value.byteLength > size) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    out.set(chunk.value, at);
    at += chunk.value.byteLength;
  }
}

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
    const body = await bodyUpTo(res, file.size, `${name}: ${file.path}`);
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
  const problem = lockedTreeProblem(skill);
  if (problem) throw new CliError(printable(`${name}: ${problem}; nothing was written`));
  const bytes = await fetchLocked(access, name, skill);
  await mkdir(dir, { recursive: true });
  const staging = path.join(dir, `.skillshelf-tmp-${name}-${process.pid}-${Date.now()}`);
  try {
    for (const [rel, data] of bytes) {
      const file = path.join(staging, ...rel.split("/"));
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, data);
      } catch (error) {
        // What the file system refuses (a name or path too long for it, no space, no permission) is not our bug.
        const code = (error as NodeJS.ErrnoException).code;
        if (typeof code !== "string") throw error;
        throw new CliError(printable(`${name}: cannot write ${rel} under ${dir} (${code}); nothing was installed`));
      }
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
