// The one parser of `Authorization: Bearer <token>`, shared by read access and the admin API, so
// both accept exactly the same spelling (scheme case-insensitive, one token, no inner spaces).

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * The token of an `Authorization: Bearer <token>` header; null when the header is absent or
 * not that form.
 * @example bearerToken("Bearer abc") // => "abc"
 * @example bearerToken("Basic abc")  // => null
 */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  return BEARER.exec(header)?.[1] ?? null;
}
