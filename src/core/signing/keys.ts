// The keys a shelf's signatures verify against: the Worker's configuration (SHELF_SIGNING_KEYS),
// served as /.well-known/skillshelf/keys.json, and what `skillshelf verify` is given. A key is
// active (signs new generations), retired (still verifies what it signed) or revoked (verifies
// nothing, old generations included).
import { z } from "zod";
import { fromBase64, importPublicKey, verify, type WebCryptoKey } from "./ed25519.ts";
import { originProblem, SigningError } from "./payloads.ts";

export const KEY_STATUSES = ["active", "retired", "revoked"] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A key id: short, printable, no spaces (it names a key in configs and answers). */
export const KeyIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "a key id is 1-128 characters of letters, digits, '.', '_', ':' or '-'")
  .meta({ description: "The key's id: 1-128 letters, digits, '.', '_', ':' or '-'" });

/** Standard base64 of `bytes` raw bytes (strict, padded). */
export function base64Of(bytes: number, what: string) {
  return z.string().refine((s) => fromBase64(s)?.length === bytes, `${what} must be standard base64 of ${bytes} raw bytes`);
}

/** One configured public key. */
export const PublicKeyEntrySchema = z
  .strictObject({ key_id: KeyIdSchema, public_key: base64Of(32, "public_key"), status: z.enum(KEY_STATUSES) })
  .meta({ id: "SigningKey" });
export type PublicKeyEntry = z.infer<typeof PublicKeyEntrySchema>;

/** A key list: ids unique. */
export const PublicKeyListSchema = z
  .array(PublicKeyEntrySchema)
  .refine((keys) => new Set(keys.map((k) => k.key_id)).size === keys.length, "each key_id may appear once");

/** `/.well-known/skillshelf/keys.json` (and a `--keys` file for verify). */
export const KeysDocumentSchema = z
  .strictObject({
    origin: z.string().refine((o) => originProblem(o) === undefined, "origin must be a non-empty string of at most 512 characters without control characters"),
    keys: PublicKeyListSchema,
  })
  .meta({ id: "SigningKeys" });
export type KeysDocument = z.infer<typeof KeysDocumentSchema>;

/**
 * Parses a key list from configuration text (SHELF_SIGNING_KEYS): JSON [{key_id, public_key, status}].
 * Throws SigningError naming what is wrong; empty or absent text is no keys.
 * @example parseKeyList('[{"key_id":"k1","public_key":"Yt+/…=","status":"active"}]')
 */
export function parseKeyList(text: string | undefined): PublicKeyEntry[] {
  if (text === undefined || text.trim() === "") return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SigningError("the signing key list is not JSON; expected [{key_id, public_key, status}]");
  }
  const parsed = PublicKeyListSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SigningError(`the signing key list is invalid at ${issue.path.join(".") || "the top"}: ${issue.message}`);
  }
  return parsed.data;
}

/** Why a signature was not accepted. */
export type SignatureRefusal = "unknown_key" | "revoked_key" | "retired_key" | "malformed_signature" | "bad_signature";

/** Sentences for each refusal, naming the key. */
export function refusalMessage(refusal: SignatureRefusal, keyId: string): string {
  switch (refusal) {
    case "unknown_key":
      return `key ${keyId} is not a trusted key`;
    case "revoked_key":
      return `key ${keyId} is revoked and verifies nothing`;
    case "retired_key":
      return `key ${keyId} is retired, not active`;
    case "malformed_signature":
      return "the signature is not standard base64 of 64 bytes";
    case "bad_signature":
      return `the signature does not verify under key ${keyId}`;
  }
}

/** Public keys by id, imported once, for checking many signatures. */
export class Keyring {
  readonly #keys = new Map<string, { status: KeyStatus; key: Promise<WebCryptoKey> }>();

  constructor(entries: readonly PublicKeyEntry[]) {
    for (const entry of entries) {
      const raw = fromBase64(entry.public_key);
      if (raw?.length !== 32) throw new SigningError(`key ${entry.key_id}: public_key must be standard base64 of 32 raw bytes`);
      const key = importPublicKey(raw);
      key.catch(() => {}); // surfaced by check(); never an unhandled rejection
      this.#keys.set(entry.key_id, { status: entry.status, key });
    }
  }

  /** The status of a key id, or undefined when the ring does not know it. */
  status(keyId: string): KeyStatus | undefined {
    return this.#keys.get(keyId)?.status;
  }

  /** How many keys the ring holds. */
  get size(): number {
    return this.#keys.size;
  }

  /**
   * Checks a detached signature; undefined when it holds. A revoked key verifies nothing; a
   * retired one verifies unless `activeOnly` (the policy for new pointer moves).
   * @example await ring.check("k1", sigBase64, payload) // undefined, or "bad_signature"
   */
  async check(keyId: string, signature: string, payload: Uint8Array, options: { activeOnly?: boolean } = {}): Promise<SignatureRefusal | undefined> {
    const known = this.#keys.get(keyId);
    if (!known) return "unknown_key";
    if (known.status === "revoked") return "revoked_key";
    if (options.activeOnly && known.status !== "active") return "retired_key";
    const raw = fromBase64(signature);
    if (raw?.length !== 64) return "malformed_signature";
    return (await verify(await known.key, raw, payload)) ? undefined : "bad_signature";
  }
}
