// Ed25519 through WebCrypto alone (Node 20+, Node 24, workerd): key generation, PKCS#8 PEM for
// private keys (WebCrypto imports Ed25519 private keys only as pkcs8 or jwk), raw 32-byte public
// keys and raw 64-byte signatures, published as standard base64 as agentskills-core expects.
import { SigningError } from "./payloads.ts";

const ED25519 = { name: "Ed25519" } as const;
/** The DER prefix of an Ed25519 PKCS#8 private key (RFC 8410) before its 32-byte seed. */
const PKCS8_ED25519_PREFIX = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const PEM_LABEL = "PRIVATE KEY";

/** Standard base64 (with padding) of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * Strict standard base64 (padding required, no whitespace or URL-safe letters), like Python's
 * b64decode(..., validate=True); null when `text` is not that.
 */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    // Non-canonical trailing bits would decode two spellings to one key; refuse them.
    return toBase64(out) === text ? out : null;
  } catch {
    return null;
  }
}

const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

/** A WebCrypto key, spelled so both the Workers and the Node type libraries accept it. */
export type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** A private key ready to sign, with its public half as raw bytes. */
export interface SigningKey {
  privateKey: WebCryptoKey;
  /** The raw 32-byte public key. */
  publicKey: Uint8Array;
}

/** A fresh Ed25519 key pair (extractable, so keygen can write it). */
export async function generateSigningKey(): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as { privateKey: WebCryptoKey; publicKey: WebCryptoKey };
  return { privateKey: pair.privateKey, publicKey: new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer) };
}

async function publicHalf(privateKey: WebCryptoKey): Promise<Uint8Array> {
  const jwk = (await crypto.subtle.exportKey("jwk", privateKey)) as { x?: string };
  if (typeof jwk.x !== "string") throw new SigningError("the private key does not carry its public half");
  const base64 = jwk.x.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = fromBase64(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  if (bytes?.length !== 32) throw new SigningError("the private key's public half is not 32 bytes");
  return bytes;
}

/**
 * Imports an Ed25519 private key from its PKCS#8 DER bytes.
 * Throws SigningError when they are not an Ed25519 PKCS#8 key.
 */
export async function importPkcs8(der: Uint8Array): Promise<SigningKey> {
  let privateKey: WebCryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", buffer(der), ED25519, true, ["sign"]);
  } catch {
    throw new SigningError("not an Ed25519 private key in PKCS#8 form (write one with `skillshelf keygen`)");
  }
  return { privateKey, publicKey: await publicHalf(privateKey) };
}

/** The key whose 32-byte seed is `seed` (RFC 8032's private key): for test vectors. */
export function importSeed(seed: Uint8Array): Promise<SigningKey> {
  if (seed.length !== 32) throw new SigningError(`an Ed25519 seed is 32 bytes, not ${seed.length}`);
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + 32);
  der.set(PKCS8_ED25519_PREFIX);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  return importPkcs8(der);
}

/** The PKCS#8 PEM text of a private key (what keygen writes). */
export async function exportPkcs8Pem(privateKey: WebCryptoKey): Promise<string> {
  const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", privateKey)) as ArrayBuffer);
  const lines = toBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${PEM_LABEL}-----\n${lines.join("\n")}\n-----END ${PEM_LABEL}-----\n`;
}

/**
 * Imports a PKCS#8 PEM private key (as keygen or `openssl genpkey -algorithm ed25519` writes it).
 * Throws SigningError for anything else (an encrypted key, an RSA key, a public key).
 */
export async function importPkcs8Pem(pem: string): Promise<SigningKey> {
  const match = /-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END PRIVATE KEY-----/.exec(pem);
  if (!match) throw new SigningError("not a PKCS#8 PEM private key (expected -----BEGIN PRIVATE KEY-----; write one with `skillshelf keygen`)");
  const der = fromBase64(match[1]!.replace(/\s+/g, ""));
  if (!der) throw new SigningError("the PEM body is not base64");
  return importPkcs8(der);
}

/** Imports a raw 32-byte Ed25519 public key for verifying. */
export async function importPublicKey(raw: Uint8Array): Promise<WebCryptoKey> {
  if (raw.length !== 32) throw new SigningError(`an Ed25519 public key is 32 bytes, not ${raw.length}`);
  try {
    return await crypto.subtle.importKey("raw", buffer(raw), ED25519, true, ["verify"]);
  } catch {
    throw new SigningError("not an Ed25519 public key");
  }
}

/** The raw 64-byte Ed25519 signature of `message`. */
export async function sign(key: SigningKey, message: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign(ED25519, key.privateKey, buffer(message)));
}

/** True when `signature` is a valid Ed25519 signature of `message` under `publicKey`; a malformed signature is false. */
export async function verify(publicKey: WebCryptoKey, signature: Uint8Array, message: Uint8Array): Promise<boolean> {
  if (signature.length !== 64) return false;
  try {
    return await crypto.subtle.verify(ED25519, publicKey, buffer(signature), buffer(message));
  } catch {
    return false;
  }
}
