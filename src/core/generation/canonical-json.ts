// RFC 8785 (JSON Canonicalization Scheme) bytes and their SHA-256: the identity of every JSON
// document the shelf stores (skill records, shards, manifests), so equal content means equal key.
import canonicalize from "canonicalize";
import { sha256Hex } from "../skill/hash.ts";

/**
 * The RFC 8785 canonical form of a JSON value, as UTF-8 bytes.
 * Throws on values JSON cannot represent (undefined at the top level, NaN, Infinity, cycles).
 * Example: canonicalJson({b: 1, a: "x"}) encodes '{"a":"x","b":1}'.
 */
export function canonicalJson(value: unknown): Uint8Array {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("canonicalJson: the value has no JSON form (undefined or a function)");
  return new TextEncoder().encode(text);
}

/** A JSON document in canonical form with its content address. */
export interface CanonicalDocument {
  bytes: Uint8Array;
  sha256: string;
  size: number;
}

/**
 * Canonicalizes a value and hashes the bytes: the document's storage key and identity.
 * Example: (await canonicalDocument(manifest)).sha256 is the generation id.
 */
export async function canonicalDocument(value: unknown): Promise<CanonicalDocument> {
  const bytes = canonicalJson(value);
  return { bytes, sha256: await sha256Hex(bytes), size: bytes.length };
}

/** True when `bytes` are exactly the canonical form of the JSON they parse to. */
export function isCanonicalJson(bytes: Uint8Array): boolean {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    return false;
  }
  const canonical = canonicalJson(value);
  if (canonical.length !== bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (canonical[i] !== bytes[i]) return false;
  return true;
}
