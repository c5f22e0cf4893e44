// Every header the read group's policies put on a successful answer, as one list: CORS on a public
// shelf, the strict security headers, Cache-Control by what the answer serves, and the generation
// it was served from. The hot views (getCached) build their answers with the list from the start,
// in one `new Response(…, { headers })` (http/headers.ts markDressed says why), and the policies
// around them skip what is already there; any other answer gets the same headers from the
// policies as middleware. Both ways give the same headers, which the route sweep records.
import type { ShelfVisibility } from "../auth/read-access.ts";
import { cacheControlFor, GENERATION_HEADER, NO_STORE, type HeaderList, type HeaderPairs, type HeaderPolicy } from "../http/headers.ts";

/**
 * What a successful answer is, for caching: the stored bytes of a file or archive (immutable
 * under /g/<generation>/, where they can never change), a body generated from the generation
 * and the advisories in force (always short-lived and revalidated: advisories change it), or an
 * answer to a POST that no cache may keep.
 */
export type CachedAs = "stored" | "generated" | "never";

/**
 * The Cache-Control of a successful answer, by what it serves, whether the URL pins the
 * generation, and the shelf's visibility.
 * @example cacheControlOf("stored", true, "public") // => "public, max-age=31536000, immutable, no-transform"
 */
export function cacheControlOf(cachedAs: CachedAs, pinned: boolean, visibility: ShelfVisibility): string {
  return cachedAs === "never" ? NO_STORE : cacheControlFor(cachedAs === "stored" && pinned ? "immutable" : "path", visibility);
}

/** The read group's header policies, built once with the group, and the answer lists made from them. */
export class ReadHeaderPolicies {
  readonly security: HeaderPolicy;
  readonly cors: HeaderPolicy;
  /** The fixed part of each list, by visibility and Cache-Control (a handful of combinations). */
  readonly #lists = new Map<string, HeaderPairs>();

  constructor(security: HeaderPolicy, cors: HeaderPolicy) {
    this.security = security;
    this.cors = cors;
  }

  /**
   * Every policy header of a successful answer served from `generation`: what the CORS, security,
   * cache and generation policies would set on it, in that order of precedence (none overlaps).
   * @example policies.answerHeaders("stored", false, "public", generationId)
   */
  answerHeaders(cachedAs: CachedAs, pinned: boolean, visibility: ShelfVisibility, generation: string): HeaderList {
    const cacheControl = cacheControlOf(cachedAs, pinned, visibility);
    const key = `${visibility} ${cacheControl}`;
    let fixed = this.#lists.get(key);
    if (fixed === undefined) {
      fixed = [...(visibility === "public" ? this.cors.entries : []), ...this.security.entries, ["Cache-Control", cacheControl]];
      this.#lists.set(key, fixed);
    }
    return [...fixed, [GENERATION_HEADER, generation]];
  }
}
