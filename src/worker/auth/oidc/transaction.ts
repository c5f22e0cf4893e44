// The sign-in transaction between leaving for the provider and coming back: state, nonce, PKCE
// verifier and where to return, sealed (AES-GCM, keyed from SHELF_SESSION_KEY) in a __Host- cookie
// of this browser, so a callback is accepted only in the browser that started it (no login CSRF)
// and nothing is stored before a person signs in. Each state is used once (KV `oidc-state:`).
import { sha256Hex } from "../../../core/skill/hash.ts";
import { fromBase64Url, toBase64Url } from "./base64url.ts";

/** The cookie the transaction travels in; __Host-: Secure, Path=/, no Domain. */
export const TRANSACTION_COOKIE = "__Host-skillshelf_oidc";
/** How long a person may take at the provider. */
export const TRANSACTION_MAX_AGE_SECONDS = 10 * 60;
/** KV key prefix (SHELF_KV) of a used state's SHA-256; expires with the transaction. */
export const USED_STATE_KV_PREFIX = "oidc-state:";

/** Where a finished sign-in goes: the OAuth consent step (with its request and handle), or the pages. */
export type SignInReturn = { kind: "oauth"; authorizeUrl: string; handle: string } | { kind: "pages" };

/** What the cookie holds. */
export interface Transaction {
  state: string;
  nonce: string;
  verifier: string;
  return: SignInReturn;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const encoder = new TextEncoder();
let cachedKey: { material: string; key: Promise<CryptoKey> } | undefined;

function sealingKey(material: string): Promise<CryptoKey> {
  if (cachedKey?.material !== material) {
    const key = crypto.subtle
      .digest("SHA-256", encoder.encode(`skillshelf-oidc-transaction-v1\n${material}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    cachedKey = { material, key };
  }
  return cachedKey.key;
}

/** The transaction sealed as a cookie value. */
export async function sealTransaction(txn: Transaction, sessionKey: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(sessionKey), encoder.encode(JSON.stringify(txn))));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64Url(out);
}

/** The transaction a cookie value holds, or null when it is not one this Worker sealed, or it has expired. */
export async function openTransaction(value: string | undefined, sessionKey: string, now = Date.now()): Promise<Transaction | null> {
  const bytes = value && value.length < 8192 ? fromBase64Url(value) : null;
  if (!bytes || bytes.length < 29) return null;
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, await sealingKey(sessionKey), bytes.slice(12));
  } catch {
    return null;
  }
  const txn = JSON.parse(new TextDecoder().decode(plain)) as Transaction;
  return txn.exp > Math.floor(now / 1000) ? txn : null;
}

/** The Set-Cookie value that stores a sealed transaction (or, with null, clears it). */
export function transactionCookie(sealed: string | null): string {
  return `${TRANSACTION_COOKIE}=${sealed ?? ""}; Path=/; Max-Age=${sealed === null ? 0 : TRANSACTION_MAX_AGE_SECONDS}; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * Marks `state` used; false when it already was (a replayed callback). KV is eventually consistent
 * between locations, so this stops a replay in the location that saw the first callback; the
 * provider's one-time code stops the rest.
 */
export async function useState(kv: KVNamespace, state: string): Promise<boolean> {
  const key = USED_STATE_KV_PREFIX + (await sha256Hex(state));
  if ((await kv.get(key)) !== null) return false;
  await kv.put(key, "1", { expirationTtl: Math.max(60, TRANSACTION_MAX_AGE_SECONDS) });
  return true;
}

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export async function pkceChallenge(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(verifier))));
}
