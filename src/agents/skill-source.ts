// A Cloudflare Agents `SkillSource` (agents 0.32, `agents/skills`) that reads a skillshelf shelf over a
// service binding or fetch. One listing reads one generation: the v0.2 index names it (Skillshelf-Generation)
// and every later request goes to its pinned /g/<generation>/ URLs, so a publish mid-load never mixes two.
// Every byte is checked before the SDK sees it: against the index digest where the index carries one
// (a lone SKILL.md), and always against the answer's Repr-Digest; a mismatch is an error result.
import {
  type InvalidSkill,
  type ListedSkill,
  parseSkill,
  parseSkillResourcePath,
  type SkillListing,
  type SkillName,
  type SkillResource,
  type SkillResourceInfo,
  type SkillResourceKind,
  SkillResourceNotFoundError,
  type SkillResourcePath,
  type SkillResult,
  type SkillSource,
  SkillSourceError,
} from "agents/skills";
import { mapLimit } from "../core/publish/map-limit.ts";
import { isSha256Hex, sha256Hex } from "../core/skill/hash.ts";

/** What the source sends requests through: a service binding (`env.SHELF`), or anything with the same `fetch`. */
export interface ShelfFetcher {
  fetch(request: Request): Promise<Response>;
}

/** Options for {@link skillshelf}. */
export interface SkillshelfSourceOptions {
  /**
   * The shelf's base URL: `https://shelf.example.com`, or a capability URL `https://shelf.example.com/c/<token>`.
   * Optional with a `binding` (the host then only names the request; the default is `https://skillshelf`).
   */
  readonly url?: string;
  /** A service binding to the shelf Worker. Without one, requests go through the global `fetch`. */
  readonly binding?: ShelfFetcher;
  /** A read token for a private shelf, sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Source id for diagnostics. Defaults to `skillshelf:<url>` (a capability token in the URL is elided). */
  readonly id?: string;
  /** Only list these skill names. Lists every servable skill when omitted. */
  readonly skills?: readonly string[];
  /**
   * Skills the shelf marks as requiring review (the build's verdict or an advisory in force): `"mark"` (default)
   * lists them with `extraFields["dev.skillshelf/trust"].requires_review === true`; `"omit"` leaves them out.
   */
  readonly requiresReview?: "mark" | "omit";
  /** How long a listing is reused before the shelf is asked again. Defaults to 60 s (the indexes' max-age); 0 lists every call. */
  readonly refreshIntervalMs?: number;
  /** Requests in flight while listing. Defaults to 6, the Workers limit on simultaneous open connections. */
  readonly concurrency?: number;
}

/** The key under `Skill.extraFields` where the source says what the shelf knows about a skill. */
export const SKILLSHELF_TRUST_FIELD = "dev.skillshelf/trust";

/** What {@link SKILLSHELF_TRUST_FIELD} holds on every skill this source lists. */
export interface SkillshelfTrust {
  /** The generation the skill was read from (the `/g/<generation>/` its files are read from). */
  readonly generation: string;
  /** True when the shelf says a person should review the skill before it is used. */
  readonly requires_review: boolean;
}

/** A v0.2 index entry, as far as this source reads it. */
interface IndexEntry {
  name: string;
  type: "skill-md" | "archive";
  digest: string;
  requiresReview: boolean;
}

/** A skill as read from one generation: what the SDK lists, and the files readResource may ask for. */
interface ReadSkill {
  parsed: { ok: true; listed: ListedSkill } | { ok: false; invalid: InvalidSkill };
  paths: ReadonlySet<string>;
}

interface Snapshot {
  at: number;
  generation: string;
  listing: SkillListing;
  /** Listed skills by name: the files readResource may fetch. */
  files: Map<string, ReadonlySet<string>>;
}

const DEFAULT_BASE = "https://skillshelf";
const INDEX_PATH = "/.well-known/agent-skills/index.json";
const LEGACY_INDEX_PATH = "/.well-known/skills/index.json";
const GENERATION_HEADER = "Skillshelf-Generation";
/** Path segments the SDK's own sources never treat as resources (agents 0.32 `isIgnoredSkillPath`). */
const IGNORED_SEGMENTS = new Set([".git", "node_modules", ".DS_Store"]);
// Encoding and media types by extension, as agents 0.32's r2 and workspace sources decide them
// (`describeSkillResource`, internal to the SDK); test/agents checks both agree on the same files.
const TEXT_EXTENSIONS = new Set([
  "",
  ".bash",
  ".css",
  ".csv",
  ".html",
  ".js",
  ".json",
  ".jsx",
  ".md",
  ".mdx",
  ".mjs",
  ".py",
  ".sh",
  ".svg",
  ".toml",
  ".ts",
  ".tsx",
  ".txt",
  ".xml",
  ".yaml",
  ".yml",
]);
const MIME_TYPES: ReadonlyMap<string, string> = new Map([
  [".css", "text/css"],
  [".csv", "text/csv"],
  [".gif", "image/gif"],
  [".html", "text/html"],
  [".jpeg", "image/jpeg"],
  [".jpg", "image/jpeg"],
  [".js", "text/javascript"],
  [".json", "application/json"],
  [".md", "text/markdown"],
  [".mjs", "text/javascript"],
  [".pdf", "application/pdf"],
  [".png", "image/png"],
  [".py", "text/x-python"],
  [".sh", "text/x-shellscript"],
  [".svg", "image/svg+xml"],
  [".txt", "text/plain"],
  [".webp", "image/webp"],
  [".xml", "application/xml"],
  [".yaml", "application/yaml"],
  [".yml", "application/yaml"],
]);

/** A refusal from the shelf or a failed check; becomes the `cause` of a SkillSourceError. */
class ShelfReadError extends Error {
  /** The HTTP status of the refusal, when the shelf answered one. */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "ShelfReadError";
    this.status = status;
  }
}

/**
 * Create a read-only skill source backed by a skillshelf shelf.
 *
 * `list()` reads the shelf's v0.2 index and every listed skill's `SKILL.md` (the SDK renders a skill's
 * instructions without asking its source again); bundled files are read only when `readResource` asks.
 * Failures are results, as the SDK expects: a shelf that refuses or cannot be reached, or bytes that do not
 * match their digest, are a `SkillSourceError`; a file the skill does not have is a `SkillResourceNotFoundError`.
 *
 * @param options - The shelf (URL and/or service binding), a read token, and listing options.
 * @returns A source for `loadSkillCatalog`.
 * @throws TypeError when neither `url` nor `binding` is given, or `url` is not an http(s) URL without query or fragment.
 * @example
 * const shelf = skillshelf({ binding: env.SHELF, token: env.SHELF_READ_TOKEN });
 * const catalog = await loadSkillCatalog([shelf]);
 */
export function skillshelf(options: SkillshelfSourceOptions): SkillSource {
  const base = parseBase(options.url ?? (options.binding ? DEFAULT_BASE : undefined));
  const id = options.id ?? `skillshelf:${redact(base)}`;
  const allowed = options.skills?.length ? new Set(options.skills) : null;
  const refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
  const concurrency = options.concurrency ?? 6;
  const omitReview = options.requiresReview === "omit";
  const binding = options.binding;
  const send = binding ? (request: Request) => binding.fetch(request) : (request: Request) => fetch(request);

  let snapshot: Snapshot | null = null;
  // Parsed skills by name and index digest: the same digest is the same files, so a later listing
  // (even of a newer generation) reuses them without a request. Holds what the latest listing used.
  let known = new Map<string, ReadSkill>();

  async function get(path: string): Promise<Response> {
    const headers = new Headers();
    if (options.token !== undefined) headers.set("Authorization", `Bearer ${options.token}`);
    const response = await send(new Request(`${base}${path}`, { headers, redirect: "manual" }));
    if (response.ok) return response;
    throw new ShelfReadError(await refusal(response, path, options.token !== undefined), response.status);
  }

  /** The bytes at a pinned path, checked against the answer's Repr-Digest and, when known, the expected SHA-256. */
  async function getChecked(path: string, generation: string, expectedSha256?: string): Promise<Uint8Array> {
    const response = await get(path);
    const served = response.headers.get(GENERATION_HEADER);
    if (served !== null && served !== generation) throw new ShelfReadError(`${path} came from generation ${served}, not ${generation}`);
    const reprDigest = reprDigestSha256(response.headers.get("Repr-Digest"));
    const bytes = new Uint8Array(await response.arrayBuffer());
    const actual = await sha256Hex(bytes);
    if (reprDigest === null) throw new ShelfReadError(`${path} came without a Repr-Digest (sha-256), so its bytes cannot be checked`);
    if (actual !== reprDigest)
      throw new ShelfReadError(`${path}: the bytes received do not match the answer's Repr-Digest (sha-256 ${actual}, expected ${reprDigest})`);
    if (expectedSha256 !== undefined && actual !== expectedSha256) {
      throw new ShelfReadError(`${path}: the bytes received do not match the index digest (sha-256 ${actual}, expected ${expectedSha256})`);
    }
    return bytes;
  }

  async function readSkill(entry: IndexEntry, generation: string, fileLists: Map<string, string[]> | null): Promise<ReadSkill | null> {
    const pinned = `/g/${generation}/skills/${entry.name}`;
    try {
      const paths = entry.type === "skill-md" ? ["SKILL.md"] : (fileLists?.get(entry.name) ?? filesOf(await (await get(`${pinned}/index.json`)).json()));
      const expected = entry.type === "skill-md" ? entry.digest : undefined;
      const markdown = new TextDecoder().decode(await getChecked(`${pinned}/SKILL.md`, generation, expected));
      return describeSkill(entry.name, markdown, paths);
    } catch (error) {
      // Blocked since the index was read: absent, as on every index.
      if (error instanceof ShelfReadError && error.status === 410) return null;
      throw error;
    }
  }

  async function readListing(): Promise<Snapshot> {
    const response = await get(INDEX_PATH);
    const entries = indexEntries(await response.json()).filter((e) => !allowed || allowed.has(e.name));
    const generation = response.headers.get(GENERATION_HEADER) ?? "";
    if (entries.length && !isSha256Hex(generation))
      throw new ShelfReadError(`${INDEX_PATH} came without a ${GENERATION_HEADER} header; is this a skillshelf shelf?`);
    const keyOf = (e: IndexEntry) => `${e.name}\n${e.digest}`;
    const missing = entries.filter((e) => !known.has(keyOf(e)));
    // One pinned legacy index lists every skill's files; cheaper than one per-skill index each when several are needed.
    const needLists = missing.filter((e) => e.type === "archive").length > 1;
    const fileLists = needLists ? await legacyFileLists(generation) : null;
    const read = await mapLimit(missing, concurrency, async (e) => [keyOf(e), await readSkill(e, generation, fileLists)] as const);
    const fresh = new Map(read.flatMap(([key, skill]) => (skill ? [[key, skill] as const] : [])));
    const next = new Map<string, ReadSkill>();
    const skills: ListedSkill[] = [];
    const invalid: InvalidSkill[] = [];
    const files = new Map<string, ReadonlySet<string>>();
    for (const entry of entries) {
      const skill = known.get(keyOf(entry)) ?? fresh.get(keyOf(entry));
      if (!skill) continue;
      next.set(keyOf(entry), skill);
      if (!skill.parsed.ok) {
        invalid.push(skill.parsed.invalid);
        continue;
      }
      if (entry.requiresReview && omitReview) continue;
      const listed = skill.parsed.listed;
      const trust: SkillshelfTrust = { generation, requires_review: entry.requiresReview };
      skills.push({ ...listed, skill: { ...listed.skill, extraFields: { ...listed.skill.extraFields, [SKILLSHELF_TRUST_FIELD]: trust } } });
      files.set(listed.skill.name, skill.paths);
    }
    known = next;
    return { at: Date.now(), generation, listing: { skills, invalid }, files };
  }

  async function legacyFileLists(generation: string): Promise<Map<string, string[]> | null> {
    try {
      const body = (await (await get(`/g/${generation}${LEGACY_INDEX_PATH}`)).json()) as { skills?: unknown };
      const lists = new Map<string, string[]>();
      for (const skill of Array.isArray(body.skills) ? body.skills : []) {
        if (typeof skill?.name === "string") lists.set(skill.name, filesOf(skill));
      }
      return lists;
    } catch (error) {
      // The legacy family can be switched off (SHELF_DISCOVERY); the per-skill indexes then answer.
      if (error instanceof ShelfReadError && error.status === 404) return null;
      throw error;
    }
  }

  async function list(): Promise<SkillResult<SkillListing, SkillSourceError>> {
    if (snapshot && Date.now() - snapshot.at < refreshIntervalMs) return { ok: true, value: snapshot.listing };
    try {
      snapshot = await readListing();
      return { ok: true, value: snapshot.listing };
    } catch (cause) {
      return { ok: false, error: new SkillSourceError(id, "list", cause) };
    }
  }

  return {
    id,
    list,
    async readResource(skill: SkillName, path: SkillResourcePath): Promise<SkillResult<SkillResource, SkillResourceNotFoundError | SkillSourceError>> {
      if (!snapshot) {
        const listed = await list();
        if (!listed.ok) return { ok: false, error: new SkillSourceError(id, "read-resource", listed.error.cause) };
      }
      const current = snapshot!;
      if (path === "SKILL.md" || !current.files.get(skill)?.has(path)) return { ok: false, error: new SkillResourceNotFoundError(skill, path) };
      try {
        const segments = path.split("/").map(encodeURIComponent).join("/");
        const bytes = await getChecked(`/g/${current.generation}/skills/${skill}/${segments}`, current.generation);
        const info = describeResource(path, bytes.byteLength);
        return { ok: true, value: { ...info, content: encodeContent(bytes, info.encoding) } };
      } catch (cause) {
        return { ok: false, error: new SkillSourceError(id, "read-resource", cause) };
      }
    },
  };
}

/** A skill's parse (the SDK's own parser, checked against its directory name) and its resources. */
function describeSkill(name: string, markdown: string, paths: readonly string[]): ReadSkill {
  const parsed = parseSkill(markdown, { directory: name });
  if (!parsed.ok) return { parsed: { ok: false, invalid: { location: `${name}/SKILL.md`, error: parsed.error } }, paths: new Set() };
  const resources: SkillResourceInfo[] = [];
  for (const file of paths) {
    if (file === "SKILL.md" || file.split("/").some((part) => IGNORED_SEGMENTS.has(part))) continue;
    const path = parseSkillResourcePath(file);
    if (path.ok) resources.push(describeResource(path.value));
  }
  resources.sort((a, b) => a.path.localeCompare(b.path));
  const listed: ListedSkill = { skill: parsed.value, resources, ...(parsed.warnings.length ? { warnings: parsed.warnings } : {}) };
  return { parsed: { ok: true, listed }, paths: new Set(resources.map((r) => r.path)) };
}

/** Kind, encoding and media type from the path alone, exactly as the SDK's r2 source decides them. */
function describeResource(path: SkillResourcePath, size?: number): SkillResourceInfo {
  const top = path.split("/", 1)[0];
  const kind: SkillResourceKind = top === "scripts" ? "script" : top === "references" ? "reference" : top === "assets" ? "asset" : "file";
  const file = path.slice(path.lastIndexOf("/") + 1);
  const dot = file.lastIndexOf(".");
  const extension = dot <= 0 ? "" : file.slice(dot).toLowerCase();
  const mimeType = MIME_TYPES.get(extension);
  return {
    path,
    kind,
    encoding: TEXT_EXTENSIONS.has(extension) ? "text" : "base64",
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(size === undefined ? {} : { size }),
  };
}

/** UTF-8 text or base64, as `SkillResource.content` expects. */
function encodeContent(bytes: Uint8Array, encoding: "text" | "base64"): string {
  if (encoding === "text") return new TextDecoder().decode(bytes);
  let binary = "";
  for (let offset = 0; offset < bytes.byteLength; offset += 32_768) binary += String.fromCharCode(...bytes.subarray(offset, offset + 32_768));
  return btoa(binary);
}

/** The v0.2 index's entries this source can use (an entry it cannot read is skipped, as clients must). */
function indexEntries(body: unknown): IndexEntry[] {
  const skills = (body as { skills?: unknown } | null)?.skills;
  if (!Array.isArray(skills)) throw new ShelfReadError(`${INDEX_PATH} is not a discovery index (no skills list)`);
  const out: IndexEntry[] = [];
  for (const raw of skills as Array<Record<string, unknown>>) {
    const digest = typeof raw?.digest === "string" && raw.digest.startsWith("sha256:") ? raw.digest.slice(7) : "";
    if (typeof raw?.name !== "string" || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(raw.name) || !isSha256Hex(digest)) continue;
    if (raw.type !== "skill-md" && raw.type !== "archive") continue;
    out.push({ name: raw.name, type: raw.type, digest, requiresReview: raw.requires_review === true });
  }
  return out;
}

/** The `files` list of a per-skill or legacy index entry. */
function filesOf(body: unknown): string[] {
  const files = (body as { files?: unknown } | null)?.files;
  if (!Array.isArray(files) || !files.every((f) => typeof f === "string")) throw new ShelfReadError("a skill index came without its files list");
  return files;
}

/** The SHA-256 (hex) an RFC 9530 `Repr-Digest` names, or null without a sha-256 member. */
function reprDigestSha256(header: string | null): string | null {
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]+={0,2}):/.exec(header ?? "");
  if (!match) return null;
  const binary = atob(match[1]!);
  let hex = "";
  for (let i = 0; i < binary.length; i++) hex += binary.charCodeAt(i).toString(16).padStart(2, "0");
  return hex;
}

/** Why the shelf refused a request, in words an agent's log can use. */
async function refusal(response: Response, path: string, sentToken: boolean): Promise<string> {
  let message = "";
  try {
    const body = (await response.json()) as { message?: unknown; detail?: unknown };
    message = typeof body.message === "string" ? body.message : typeof body.detail === "string" ? body.detail : "";
  } catch {
    // Not JSON: the status says enough.
  }
  const status = `${path} answered ${response.status}`;
  if (response.status === 401) {
    return sentToken
      ? `${status}: the shelf refused the read token`
      : `${status}: the shelf is private; pass a read token (token) or a capability URL (url: <shelf>/c/<token>)`;
  }
  if (response.status === 404 && path === INDEX_PATH) {
    return `${status}: nothing is published yet, the capability URL is wrong or switched off, or the shelf serves no v0.2 index (SHELF_DISCOVERY)`;
  }
  if (response.status === 503) return `${status}: the shelf's storage is unavailable, retry after ${response.headers.get("Retry-After") ?? "a few"} s`;
  return message ? `${status}: ${message}` : status;
}

/** The base URL without a trailing slash; a TypeError for anything but an http(s) URL without query or fragment. */
function parseBase(url: string | undefined): string {
  if (url === undefined) throw new TypeError("skillshelf(): pass the shelf's url, a service binding, or both");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`skillshelf(): not a URL: ${redact(url)}`);
  }
  if ((parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.search || parsed.hash) {
    throw new TypeError(`skillshelf(): the shelf URL must be http(s) without query or fragment: ${redact(url)}`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}

/** A URL with its capability token elided, for ids and messages that end up in logs. */
function redact(url: string): string {
  return url.replace(/\/c\/[^/]+/, "/c/…");
}
