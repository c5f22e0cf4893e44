// A Cloudflare Agents `SkillSource` (agents 0.32, `agents/skills`) that reads a skillshelf shelf over a
// service binding or fetch. One listing reads one generation: the v0.2 index names it (Skillshelf-Generation)
// and every later request goes to its pinned /g/<generation>/ URLs, so a publish mid-load never mixes two.
// Every byte is checked before the SDK sees it, against a SHA-256 from another answer (the index's digest of a
// lone SKILL.md; /v1/skills/<name>'s per-file digests otherwise) and against its own Repr-Digest when it has
// one; a mismatch is an error result.
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
import { isSha256Hex, sha256Hex, toHex } from "../core/skill/hash.ts";

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

/** A file's size and SHA-256 as the build recorded them. */
interface FileDigest {
  size?: number;
  sha256: string;
}

/** A skill as read from one generation: what the SDK lists, and the files readResource may ask for. */
interface ReadSkill {
  parsed: { ok: true; listed: ListedSkill } | { ok: false; invalid: InvalidSkill };
  files: ReadonlyMap<string, FileDigest>;
}

interface Snapshot {
  at: number;
  generation: string;
  listing: SkillListing;
  /** Listed skills by name: the files readResource may fetch, with their digests. */
  files: Map<string, ReadonlyMap<string, FileDigest>>;
}

const DEFAULT_BASE = "https://skillshelf";
const INDEX_PATH = "/.well-known/agent-skills/index.json";
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
  let inflight: Promise<Snapshot> | null = null;
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

  /**
   * The bytes at a pinned path, checked against the SHA-256 another answer gave for them (`expected.from` says
   * which) and against this answer's own Repr-Digest when it carries one.
   */
  async function getChecked(path: string, generation: string, expected: { sha256: string; from: string }): Promise<Uint8Array> {
    const response = await get(path);
    const served = response.headers.get(GENERATION_HEADER);
    if (served !== null && served !== generation) throw new ShelfReadError(`${path} came from generation ${served}, not ${generation}`);
    const reprDigest = reprDigestSha256(response.headers.get("Repr-Digest"));
    const bytes = new Uint8Array(await response.arrayBuffer());
    const actual = await sha256Hex(bytes);
    if (reprDigest !== null && actual !== reprDigest) {
      throw new ShelfReadError(`${path}: the bytes received do not match the answer's Repr-Digest (sha-256 ${actual}, expected ${reprDigest})`);
    }
    if (actual !== expected.sha256) {
      throw new ShelfReadError(`${path}: the bytes received do not match the ${expected.from} (sha-256 ${actual}, expected ${expected.sha256})`);
    }
    return bytes;
  }

  async function readSkill(entry: IndexEntry, generation: string): Promise<ReadSkill | null> {
    try {
      // A lone SKILL.md's digest is in the index; a skill with more files names them, with sizes and
      // digests, in its /v1 record (pinned to the same generation).
      const lone = entry.type === "skill-md";
      const files = lone
        ? new Map([["SKILL.md", { sha256: entry.digest }]])
        : recordFiles(await (await get(`/g/${generation}/v1/skills/${entry.name}`)).json(), entry.name, generation);
      const skillMd = files.get("SKILL.md");
      if (!skillMd) throw new ShelfReadError(`/v1/skills/${entry.name} lists no SKILL.md`);
      const from = lone ? "index digest" : recordDigest(entry.name);
      const markdown = new TextDecoder().decode(
        await getChecked(`/g/${generation}/skills/${entry.name}/SKILL.md`, generation, { sha256: skillMd.sha256, from }),
      );
      return describeSkill(entry.name, markdown, files);
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
    const read = await mapLimit(missing, concurrency, async (e) => [keyOf(e), await readSkill(e, generation)] as const);
    const fresh = new Map(read.flatMap(([key, skill]) => (skill ? [[key, skill] as const] : [])));
    const next = new Map<string, ReadSkill>();
    const skills: ListedSkill[] = [];
    const invalid: InvalidSkill[] = [];
    const files = new Map<string, ReadonlyMap<string, FileDigest>>();
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
      files.set(listed.skill.name, skill.files);
    }
    known = next;
    return { at: Date.now(), generation, listing: { skills, invalid }, files };
  }

  async function list(): Promise<SkillResult<SkillListing, SkillSourceError>> {
    if (snapshot && Date.now() - snapshot.at < refreshIntervalMs) return { ok: true, value: snapshot.listing };
    // Catalogs loaded at the same time (several requests in one isolate) share one read of the shelf.
    inflight ??= readListing().finally(() => {
      inflight = null;
    });
    try {
      snapshot = await inflight;
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
      const expected = path === "SKILL.md" ? undefined : current.files.get(skill)?.get(path);
      if (!expected) return { ok: false, error: new SkillResourceNotFoundError(skill, path) };
      try {
        const segments = path.split("/").map(encodeURIComponent).join("/");
        const bytes = await getChecked(`/g/${current.generation}/skills/${skill}/${segments}`, current.generation, {
          sha256: expected.sha256,
          from: recordDigest(skill),
        });
        const info = describeResource(path, bytes.byteLength);
        return { ok: true, value: { ...info, content: encodeContent(bytes, info.encoding) } };
      } catch (cause) {
        return { ok: false, error: new SkillSourceError(id, "read-resource", cause) };
      }
    },
  };
}

/** A skill's parse (the SDK's own parser, checked against its directory name) and its resources. */
function describeSkill(name: string, markdown: string, files: ReadonlyMap<string, FileDigest>): ReadSkill {
  const parsed = parseSkill(markdown, { directory: name });
  if (!parsed.ok) return { parsed: { ok: false, invalid: { location: `${name}/SKILL.md`, error: parsed.error } }, files: new Map() };
  const resources: SkillResourceInfo[] = [];
  const readable = new Map<string, FileDigest>();
  for (const [file, digest] of files) {
    if (file === "SKILL.md" || file.split("/").some((part) => IGNORED_SEGMENTS.has(part))) continue;
    const path = parseSkillResourcePath(file);
    if (!path.ok) continue;
    resources.push(describeResource(path.value, digest.size));
    readable.set(path.value, digest);
  }
  resources.sort((a, b) => a.path.localeCompare(b.path));
  const listed: ListedSkill = { skill: parsed.value, resources, ...(parsed.warnings.length ? { warnings: parsed.warnings } : {}) };
  return { parsed: { ok: true, listed }, files: readable };
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

/** Where a multi-file skill's digests come from, for messages. */
function recordDigest(name: string): string {
  return `SHA-256 /v1/skills/${name} records`;
}

/** The files of a /v1/skills/<name> record, checked to be that skill's in that generation. */
function recordFiles(body: unknown, name: string, generation: string): Map<string, FileDigest> {
  const record = body as { name?: unknown; generation?: unknown; files?: unknown } | null;
  if (record?.name !== name || record.generation !== generation || !Array.isArray(record.files)) {
    throw new ShelfReadError(`/v1/skills/${name} did not describe ${name} in generation ${generation}`);
  }
  const files = new Map<string, FileDigest>();
  for (const file of record.files as Array<{ path?: unknown; size?: unknown; sha256?: unknown }>) {
    if (typeof file?.path !== "string" || typeof file.size !== "number" || typeof file.sha256 !== "string" || !isSha256Hex(file.sha256)) {
      throw new ShelfReadError(`/v1/skills/${name} lists a file without a path, size and SHA-256`);
    }
    files.set(file.path, { size: file.size, sha256: file.sha256 });
  }
  return files;
}

/** The SHA-256 (hex) an RFC 9530 `Repr-Digest` names, or null without a sha-256 member. */
function reprDigestSha256(header: string | null): string | null {
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]+={0,2}):/.exec(header ?? "");
  if (!match) return null;
  return toHex(Uint8Array.from(atob(match[1]!), (c) => c.charCodeAt(0)));
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
