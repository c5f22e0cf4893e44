// The platform's cache for generated documents (the Cache API's caches.default): what one isolate
// builds from a generation (the indexes, /v1/shelf, the listings) is the same for every isolate in
// a location, so a cold isolate takes the bytes another one built instead of reading every shard
// and building them again. Public shelves only: the Cache API is shared by every request to the
// zone, and a private shelf's documents must never sit where read access does not guard them.
// Off on workers.dev, where the Cache API stores nothing (every call would be a wasted operation),
// and wherever SHELF_EDGE_CACHE is "off". docs/deploy.md ("Caches") has the whole decision.
import type { ShelfVisibility } from "../auth/read-access.ts";
import { sha256Hex } from "../../core/skill/hash.ts";

/** The vars the edge cache reads. */
export interface EdgeCacheEnv {
  /** "off" keeps generated documents out of the Cache API; anything else (or unset) uses it where it works. */
  SHELF_EDGE_CACHE?: string;
}

/**
 * How long the Cache API keeps a document. Its key names everything the body depends on (the
 * ETag names the generation and the advisories in force), so an entry never goes stale; the
 * bound only frees room an old generation's documents hold.
 */
const EDGE_TTL_SECONDS = 86_400;
/** Where under the shelf's own origin the keys live (never a path the Worker serves). */
const KEY_PATH = "/.skillshelf-edge-cache/generated/";

// Bumped by resetEdgeCacheKeys, so a test can start from an empty edge cache (keys cannot be listed).
let keyEpoch = 0;

/**
 * The Cache API to keep this request's generated documents in, or undefined where it must not
 * or cannot be used: a private shelf, SHELF_EDGE_CACHE="off", a workers.dev host, a runtime without it.
 * @example edgeCacheFor(c.env, c.req.url, "public") // => caches.default on shelf.example.com
 */
export function edgeCacheFor(env: EdgeCacheEnv, url: string, visibility: ShelfVisibility): Cache | undefined {
  if (visibility !== "public" || env.SHELF_EDGE_CACHE === "off" || typeof caches === "undefined") return undefined;
  if (hostOf(url).endsWith(".workers.dev")) return undefined;
  return caches.default;
}

/** The host of a serialized URL, without parsing it again. */
function hostOf(url: string): string {
  const start = url.indexOf("//") + 2;
  const end = url.indexOf("/", start);
  return url
    .slice(start, end < 0 ? url.length : end)
    .replace(/:\d+$/, "")
    .toLowerCase();
}

/** The Cache API key of a document: the shelf's origin, and a digest of the document's key (which may name a capability URL's prefix). */
async function keyOf(url: string, key: string): Promise<string> {
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  const origin = slash < 0 ? url : url.slice(0, slash);
  return `${origin}${KEY_PATH}${await sha256Hex(`${keyEpoch} ${key}`)}`;
}

/** What {@link edgeCachedBytes} needs of the request. */
export interface EdgeRequest {
  cache: Cache;
  /** The request's URL (its origin scopes the key). */
  url: string;
  /** Keeps the put running after the answer is sent (the execution context's waitUntil), when there is one. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * A generated document's bytes from the Cache API, or built by `build` and put there (after the
 * answer, through waitUntil when there is one). The Cache API failing is a miss, never an error: the document is
 * built as if it were not there.
 * @example const body = await edgeCachedBytes({ cache, url }, etag, async () => encode(await build()))
 */
export async function edgeCachedBytes(edge: EdgeRequest, key: string, build: () => Promise<Uint8Array>): Promise<Uint8Array> {
  const at = await keyOf(edge.url, key);
  const hit = await edge.cache.match(at).catch(() => undefined);
  if (hit) {
    const bytes = await hit.arrayBuffer().catch(() => undefined);
    if (bytes !== undefined) return new Uint8Array(bytes);
  }
  const body = await build();
  const stored = new Response(body.slice(), {
    headers: { "Cache-Control": `public, max-age=${EDGE_TTL_SECONDS}`, "Content-Type": "application/octet-stream" },
  });
  const put = edge.cache.put(at, stored).catch(() => {});
  // Without an execution context (a test calling the app directly) the put is awaited, so the next request sees it.
  if (edge.waitUntil) edge.waitUntil(put);
  else await put;
  return body;
}

/** Starts every later key afresh, as if the edge cache were empty (tests; keys cannot be listed or cleared). */
export function resetEdgeCacheKeys(): void {
  keyEpoch++;
}
