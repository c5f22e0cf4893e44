// The pages' sign-in session: what their cookie holds instead of the read token. The value is
// `s1.<sha256 of the token>.<issued, unix seconds>.<HMAC-SHA256 of the rest, base64url>`, so a
// stolen cookie is not a token (no Authorization header or capability URL takes it), cannot be
// forged without the key and stops working SESSION_MAX_AGE_SECONDS after sign-in whatever the
// browser keeps; the Worker checks the MAC and the age, then the token hash against the live read
// tokens, so revoking a token ends its sessions too.
import { isSha256Hex, sha256Hex } from "../../core/skill/hash.ts";

/** The secret sessions are keyed with (docs/pages.md, "Sign-in"). */
export interface SessionEnv {
  /**
   * A random secret for sessions alone (`openssl rand -hex 32 | wrangler secret put SHELF_SESSION_KEY`).
   * Never derived from the token hashes: those are not secret (a session value carries one), so a
   * key made from them would let anyone who knows a hash forge a session.
   */
  SHELF_SESSION_KEY?: string;
}

/** How long a session works after sign-in: a working day (the cookie's Max-Age says the same). */
export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

const encoder = new TextEncoder();
let cachedKey: { material: string; key: Promise<CryptoKey> } | undefined;

/** The HMAC key, derived from SHELF_SESSION_KEY; null when it is not set (no session can be made). */
function sessionKey(env: SessionEnv): Promise<CryptoKey> | null {
  const material = env.SHELF_SESSION_KEY?.trim();
  if (!material) return null;
  if (cachedKey?.material !== material) {
    const key = crypto.subtle
      .digest("SHA-256", encoder.encode(`skillshelf-session-key-v1\n${material}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    cachedKey = { material, key };
  }
  return cachedKey.key;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * The session value for a verified read token, issued now; null when the Worker has no
 * SHELF_SESSION_KEY to key it with.
 * @example await sessionValue("sk_…", env) // => "s1.<64 hex>.<seconds>.<43 base64url>"
 */
export async function sessionValue(token: string, env: SessionEnv, now = Date.now()): Promise<string | null> {
  const key = sessionKey(env);
  if (!key) return null;
  const signed = `s1.${await sha256Hex(token)}.${Math.floor(now / 1000)}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key, encoder.encode(signed)));
  return `${signed}.${base64Url(mac)}`;
}

/**
 * The token hash a session value vouches for, or null when it is not one this Worker made (a
 * raw token, a tampered value, another key) or it is older than SESSION_MAX_AGE_SECONDS. The MAC
 * is checked in constant time by WebCrypto.
 */
export async function sessionTokenHash(value: string, env: SessionEnv, now = Date.now()): Promise<string | null> {
  const match = /^(s1\.([0-9a-f]{64})\.([0-9]{1,12}))\.([A-Za-z0-9_-]{43})$/.exec(value);
  const key = sessionKey(env);
  if (!match || !key || !isSha256Hex(match[2]!)) return null;
  const mac = fromBase64Url(match[4]!);
  if (!mac) return null;
  const ok = await crypto.subtle.verify("HMAC", await key, mac, encoder.encode(match[1]!));
  if (!ok) return null;
  // A minute of clock skew between isolates is tolerated; a session from the future is not.
  const age = Math.floor(now / 1000) - Number(match[3]);
  return age >= -60 && age <= SESSION_MAX_AGE_SECONDS ? match[2]! : null;
}
