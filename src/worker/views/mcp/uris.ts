// skill:// URIs and page cursors of the MCP skills extension. A file of skill <name> at <path>
// is skill://<name>/<path>, each path segment percent-encoded exactly as the SDK's catalog does,
// so the URI is already in WHATWG-canonical form (`new URL(uri).href === uri`) and clients that
// compare URIs as strings agree with ones that parse them.

/** The scheme and authority prefix every URI this server hands out starts with. */
export const SKILL_URI_BASE = "skill://";

// The SDK's ENCODED_IN_SEGMENT (core-internal/src/ext/skills/uri.ts): what WHATWG URL encodes
// in a path segment, plus `%`, so a literal `%` in a file name never reads as an escape.
const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

function encodeSegment(segment: string): string {
  if (segment === "." || segment === "..") return segment.replaceAll(".", "%2E");
  return segment.replaceAll(ENCODED_IN_SEGMENT, (char) => encodeURIComponent(char));
}

/**
 * The URI of a skill file, or of a folder inside the skill (`path` "" is the skill's root folder).
 * @example skillUri("pdf-tools", "references/form guide.md") // => "skill://pdf-tools/references/form%20guide.md"
 */
export function skillUri(name: string, path = ""): string {
  const root = `${SKILL_URI_BASE}${name}`;
  return path === "" ? root : `${root}/${path.split("/").map(encodeSegment).join("/")}`;
}

/** What a skill:// URI names: a skill, and a path inside it ("" for the skill's root folder). */
export interface SkillLocation {
  name: string;
  path: string;
}

/**
 * Reads a skill:// URI back into the skill and the decoded path; undefined for anything that is
 * not one (another scheme, a query or fragment, an undecodable escape, an empty or dot segment).
 * A trailing slash is allowed (folders are often written so). Both spellings of a character
 * (`Q&A.md`, `Q%26A.md`) name the same file.
 * @example parseSkillUri("skill://pdf-tools/references/form%20guide.md") // => {name: "pdf-tools", path: "references/form guide.md"}
 */
export function parseSkillUri(uri: string): SkillLocation | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (`${url.protocol}//` !== SKILL_URI_BASE || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "" || url.port !== "") {
    return undefined;
  }
  const name = url.hostname;
  if (name === "") return undefined;
  const raw = url.pathname.replace(/^\//, "").replace(/\/$/, "");
  if (raw === "") return { name, path: "" };
  const segments: string[] = [];
  for (const segment of raw.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded === "" || decoded === "." || decoded === ".." || decoded.includes("/") || decoded.includes("\0")) return undefined;
    segments.push(decoded);
  }
  return { name, path: segments.join("/") };
}

/** The base64url alphabet without padding, as the SDK's cursors use it. */
function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (cursor.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const CURSOR_PREFIX = "after:";

/**
 * An opaque page cursor: the page continues after `key` (a skill name or a file URI). Keys,
 * not offsets, so a page boundary stays put when a publish adds or removes entries before it.
 * @example decodeCursor(encodeCursor("code-review")) // => "code-review"
 */
export function encodeCursor(key: string): string {
  return toBase64Url(CURSOR_PREFIX + key);
}

/** The key a cursor continues after; undefined when it is not one of ours (answered -32602). */
export function decodeCursor(cursor: string): string | undefined {
  const text = fromBase64Url(cursor);
  return text?.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : undefined;
}

/**
 * One page of `items` (sorted by `key`) after the cursor's key, and the cursor of the next page
 * when there is one.
 * @throws RangeError when the cursor is not one of ours (the caller answers -32602)
 */
export function pageAfter<T>(items: readonly T[], cursor: string | undefined, pageSize: number, key: (item: T) => string): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after === undefined) throw new RangeError("Invalid cursor");
    // The first item whose key sorts after `after` (items are sorted: a binary search, so the
    // last page of 10,000 costs no more than the first).
    let low = 0;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (key(items[mid]!) > after) high = mid;
      else low = mid + 1;
    }
    start = low;
  }
  const page = items.slice(start, start + pageSize);
  const last = page.at(-1);
  return start + pageSize < items.length && last !== undefined ? { items: page, nextCursor: encodeCursor(key(last)) } : { items: page };
}
