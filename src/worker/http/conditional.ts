// Validators and conditional requests: strong ETags minted from content digests, compared
// weakly against If-None-Match because Cloudflare weakens ETags when it compresses a response
// and clients echo back whatever they saw.

/**
 * The strong ETag for a content digest or any other opaque, quote-free identifier.
 * @example etagFor("9f86d0…") // => "\"9f86d0…\""
 */
export function etagFor(opaque: string): string {
  if (!/^[\x21\x23-\x7e]+$/.test(opaque)) {
    throw new Error(`etagFor: ${JSON.stringify(opaque)} is not a valid entity-tag value`);
  }
  return `"${opaque}"`;
}

/** Strips the weakness prefix so two tags can be compared weakly (RFC 9110 §8.8.3.2). */
function opaqueTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed;
}

/**
 * True when an If-None-Match header value matches `etag` under the weak comparison:
 * `*`, a single tag, or a comma list, each possibly `W/`-prefixed. A missing or empty header
 * never matches, so a 304 is only ever sent to a client that asked for one.
 * @example ifNoneMatchMatches('W/"abc", "def"', '"abc"') // => true
 */
export function ifNoneMatchMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const value = header.trim();
  if (value === "") return false;
  if (value === "*") return true;
  const want = opaqueTag(etag);
  // Entity tags cannot contain commas or quotes inside the quotes, so a plain split is exact.
  return value.split(",").some((candidate) => opaqueTag(candidate) === want);
}
