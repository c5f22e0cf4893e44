// Repr-Digest (RFC 9530): lets any plain HTTP client verify the bytes it received against the
// SHA-256 the build computed, without trusting an index. The digest is of the whole
// representation, so a 206 carries the same value as the 200.
import { isSha256Hex } from "../../core/skill/hash.ts";

/** Header values already computed, by digest: the hot files of a shelf are few, and each costs a base64 encoding. */
const computed = new Map<string, string>();
/** At most this many are remembered (then the map starts over). */
const COMPUTED_MAX = 4_096;

/**
 * The `Repr-Digest` header value for a lowercase hex SHA-256.
 * @example reprDigest("e3b0c442…b855") // => "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
 */
export function reprDigest(sha256Hex: string): string {
  const known = computed.get(sha256Hex);
  if (known !== undefined) return known;
  if (!isSha256Hex(sha256Hex)) {
    throw new Error(`reprDigest: ${JSON.stringify(sha256Hex)} is not a lowercase hex SHA-256`);
  }
  let binary = "";
  for (let i = 0; i < 64; i += 2) binary += String.fromCharCode(parseInt(sha256Hex.slice(i, i + 2), 16));
  const value = `sha-256=:${btoa(binary)}:`;
  if (computed.size >= COMPUTED_MAX) computed.clear();
  computed.set(sha256Hex, value);
  return value;
}
