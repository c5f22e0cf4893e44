// The skill trees a published shelf serves, as snapshots for core's tree diff (`audit --since
// <shelf URL | generation>`): the listing (/v1/skills, paged) gives each skill's tree hash; only
// the skills whose tree differs from the local one are read in full (/v1/skills/{name} for the
// file list, then every file at its URL pinned to the generation, each checked against its
// SHA-256) and audited here, so an unchanged shelf costs one listing.
import type { TreeSnapshot } from "../../core/generation/diff.ts";
import { auditSkill } from "../../core/audit/scan.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { SKILL_NAME_RE } from "../../core/skill/skill.ts";
import { CliError, printable, UsageError } from "./cli.ts";
import { shelfGet } from "./shelf-status.ts";

/** Largest page /v1/skills gives (core/api/contract.ts API_LIMITS.maxPageSize). */
const PAGE = 200;
const GENERATION_RE = /^[0-9a-f]{64}$/;

/** Where a published generation is read: the shelf's address (with /c/<token> if given) and the generation to pin, if named. */
export interface PublishedSource {
  /** The shelf's root, with a capability prefix when given one; no trailing slash. */
  base: string;
  /** The generation asked for, or null for whatever the shelf serves now. */
  generation: string | null;
}

/**
 * What `--since` names when it is not a folder: a shelf URL (its root, a /c/<token> capability
 * URL, either with /g/<generation>), or a generation id read from the shelf at `--url`.
 * Null when `since` is neither (a build folder).
 * @throws UsageError for a URL that is not a shelf's root or an id without --url
 */
export function publishedSource(since: string, url: string | undefined, usage: string): PublishedSource | null {
  if (GENERATION_RE.test(since)) {
    if (url === undefined) throw new UsageError(`--since ${since.slice(0, 12)}…: a generation id is read from a shelf; add --url <shelf-url>\nusage: ${usage}`);
    return { base: shelfRoot(url, usage, "--url"), generation: since };
  }
  if (/^[0-9a-f]{8,63}$/.test(since))
    throw new UsageError(`--since ${since}: give the full 64-digit generation id (skillshelf history lists them)\nusage: ${usage}`);
  if (!/^https?:\/\//i.test(since)) return null;
  const pinned = /\/g\/([0-9a-f]{64})\/?$/.exec(new URL(since).pathname);
  const root = pinned ? since.replace(/\/g\/[0-9a-f]{64}\/?$/, "") : since;
  return { base: shelfRoot(root, usage, "--since"), generation: pinned?.[1] ?? null };
}

function shelfRoot(value: string, usage: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new UsageError(`${option} ${value} is not a URL\nusage: ${usage}`);
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.search || parsed.hash || !/^(\/c\/[^/]+)?\/?$/.test(parsed.pathname)) {
    throw new UsageError(
      printable(
        `${option} ${value}: give the shelf's root (https://shelf.example), its capability URL (…/c/<token>), or either with /g/<generation>\nusage: ${usage}`,
      ),
    );
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}

async function getJson(url: string, token: string | undefined): Promise<{ status: number; body: unknown }> {
  const res = await shelfGet(url, token);
  if (res.status === 401) throw new CliError(`${new URL(url).origin} refused the read (401): pass a read token with --token-env NAME`);
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function fileBytes(url: string, token: string | undefined, sha256: string, what: string): Promise<Uint8Array> {
  const res = await shelfGet(url, token, { json: false });
  if (!res.ok) throw new CliError(`${what}: the shelf answered ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if ((await sha256Hex(bytes)) !== sha256) throw new CliError(`${what}: the served bytes do not match the record's SHA-256`);
  return bytes;
}

/**
 * The published generation's skills: every skill whose tree hash differs from `local`'s (or that
 * `local` lacks) with its files' bytes and findings; the others with their tree hash only (the
 * diff calls them unchanged without reading a byte).
 * @example const { generation, trees } = await readPublishedTrees({ base: url, generation: null }, token, localTrees)
 */
export async function readPublishedTrees(
  source: PublishedSource,
  token: string | undefined,
  local: ReadonlyMap<string, string>,
): Promise<{ generation: string; trees: TreeSnapshot[] }> {
  const prefix = source.generation ? `${source.base}/g/${source.generation}` : source.base;
  const listed: { name: string; tree_hash: string }[] = [];
  let generation: string | null = null;
  let cursor: string | null = null;
  do {
    const page = await getJson(`${prefix}/v1/skills?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, token);
    const body = page.body as { generation?: unknown; skills?: unknown; next_cursor?: unknown } | null;
    if (page.status === 404 && source.generation)
      throw new CliError(`${new URL(prefix).origin} does not serve generation ${source.generation} (never published, or collected by gc)`);
    if (page.status !== 200 || !body || typeof body.generation !== "string" || !Array.isArray(body.skills))
      throw new CliError(`${new URL(prefix).origin} answered ${page.status} for /v1/skills: is --since the shelf's address?`);
    generation = body.generation;
    for (const s of body.skills as Array<{ name?: unknown; tree_hash?: unknown }>) {
      if (typeof s.name === "string" && SKILL_NAME_RE.test(s.name) && typeof s.tree_hash === "string") listed.push({ name: s.name, tree_hash: s.tree_hash });
    }
    cursor = typeof body.next_cursor === "string" ? body.next_cursor : null;
  } while (cursor !== null);
  if (generation === null || !GENERATION_RE.test(generation)) throw new CliError(`${new URL(prefix).origin} named no generation in /v1/skills`);

  const trees: TreeSnapshot[] = [];
  for (const skill of listed) {
    if (local.get(skill.name) === skill.tree_hash) {
      trees.push({ name: skill.name, tree_hash: skill.tree_hash, files: [] });
      continue;
    }
    const detail = await getJson(`${source.base}/g/${generation}/v1/skills/${skill.name}`, token);
    const record = detail.body as { tree_hash?: unknown; files?: unknown } | null;
    if (detail.status !== 200 || !record || !Array.isArray(record.files))
      throw new CliError(`${new URL(prefix).origin} answered ${detail.status} for /v1/skills/${skill.name} at generation ${generation.slice(0, 12)}`);
    const files = await Promise.all(
      (record.files as Array<{ path: string; sha256: string }>).map(async (f) => ({
        path: f.path,
        sha256: f.sha256,
        bytes: await fileBytes(
          `${source.base}/g/${generation}/skills/${skill.name}/${f.path.split("/").map(encodeURIComponent).join("/")}`,
          token,
          f.sha256,
          printable(`${skill.name}/${f.path}`),
        ),
      })),
    );
    trees.push({ name: skill.name, tree_hash: skill.tree_hash, files, findings: auditSkill(files).findings });
  }
  return { generation, trees };
}
