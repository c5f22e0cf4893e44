// Where an imported skill may come from: every source reduced to one canonical identity (a URL
// without credentials, `.git` or trailing slash), and the shelf's allow-list (`sources:` in
// skillshelf.yaml) matched against it at path boundaries, so `https://github.com/acme` allows
// `https://github.com/acme/skills` but never `https://github.com/acme-evil/skills`.
import { parse as parseYaml } from "yaml";

/** The shelf's config file (beside the record files); today it holds only the allow-list. */
export const SHELF_CONFIG_FILE = "skillshelf.yaml";

/** The four kinds of source import reads. */
export const SOURCE_KINDS = ["git", "well-known", "clawhub", "folder"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A source's identity could not be worked out (a malformed URL, a scheme we do not read). */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceError";
  }
}

/** `owner/repo`, as GitHub names a repository (the shorthand `npx skills add` takes too). */
export const GITHUB_SHORTHAND = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;

/**
 * The canonical identity of a source location: scheme and host lower-cased, no credentials,
 * query, fragment, `.git` or trailing slash; scp-style `git@host:o/r` and `ssh://` become
 * `https://host/o/r` (the same repository, whichever way it is cloned); `owner/repo` is GitHub's.
 * A `file://` URL stays a file URL. A `clawhub:` identity is `clawhub:<registry>/<slug>`.
 * @example sourceIdentity("git@github.com:Acme/Skills.git") // => "https://github.com/Acme/Skills"
 */
export function sourceIdentity(location: string): string {
  const raw = location.trim();
  if (raw.startsWith("clawhub:")) {
    const rest = raw.slice("clawhub:".length);
    return `clawhub:${sourceIdentity(rest)}`;
  }
  if (GITHUB_SHORTHAND.test(raw) && !raw.startsWith(".")) return `https://github.com/${stripGit(raw)}`;
  const scp = /^[A-Za-z0-9._-]+@([A-Za-z0-9.-]+):(?!\/\/)(.+)$/.exec(raw);
  if (scp) return `https://${scp[1]!.toLowerCase()}/${stripGit(scp[2]!.replace(/^\/+/, ""))}`.replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(raw.replace(/^git\+/, ""));
  } catch {
    throw new SourceError(`"${location}" is not a URL, a path or owner/repo`);
  }
  if (url.protocol === "file:") return `file://${stripGit(url.pathname).replace(/\/+$/, "") || "/"}`;
  if (!["http:", "https:", "ssh:", "git:"].includes(url.protocol))
    throw new SourceError(`"${location}": ${url.protocol} sources are not read (use https, ssh, git, file or a path)`);
  const scheme = url.protocol === "http:" ? "http" : "https";
  const pathname = stripGit(decodeURIComponent(url.pathname)).replace(/\/+$/, "");
  return `${scheme}://${url.host.toLowerCase()}${pathname}`;
}

function stripGit(p: string): string {
  return p.replace(/\/+$/, "").replace(/\.git$/, "");
}

/**
 * True when an allow-list entry (already an identity) allows a source identity: equal, or a
 * parent at a `/` boundary (`https://host` allows every path on the host).
 * @example entryAllows("https://github.com/acme", "https://github.com/acme/skills") // => true
 */
export function entryAllows(entry: string, identity: string): boolean {
  if (identity === entry) return true;
  const base = entry.endsWith("/") ? entry : `${entry}/`;
  return identity.startsWith(base);
}

/** The allow-list entry that allows `identity`, or null (then import refuses). */
export function allowedBy(allowList: readonly string[], identity: string): string | null {
  return allowList.find((entry) => entryAllows(entry, identity)) ?? null;
}

/** A shelf's config as skillshelf.yaml states it; `sources` is null when the file names none. */
export interface ShelfConfig {
  /** The allow-list as written (a relative path is resolved by the caller against the shelf). */
  sources: string[] | null;
}

/** A malformed skillshelf.yaml: the message names the field. */
export class ShelfConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShelfConfigError";
  }
}

/**
 * Parses skillshelf.yaml. Unknown top-level keys are refused so a typo (`source:`) never
 * silently leaves the allow-list empty.
 * @example parseShelfConfig("sources:\n  - acme/skills\n").sources // => ["acme/skills"]
 */
export function parseShelfConfig(text: string): ShelfConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 0 });
  } catch (error) {
    throw new ShelfConfigError(`not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (doc === null || doc === undefined) return { sources: null };
  if (typeof doc !== "object" || Array.isArray(doc)) throw new ShelfConfigError("expected a mapping with a sources: list");
  for (const key of Object.keys(doc)) if (key !== "sources") throw new ShelfConfigError(`unknown key "${key}" (the file holds sources:)`);
  const sources = (doc as { sources?: unknown }).sources;
  if (sources === undefined || sources === null) return { sources: null };
  if (!Array.isArray(sources) || sources.some((s) => typeof s !== "string" || s.trim() === ""))
    throw new ShelfConfigError("sources: must be a list of strings (repositories, hosts, clawhub:<registry> or folders)");
  return { sources: sources.map((s: string) => s.trim()) };
}
