// The pages' sign-in session: what their cookie holds instead of the read token. The value is
// `s1.<sha256 of the token>.<HMAC-SHA256 of that, base64url>`, so a stolen cookie is not a token
// (no Authorization header or capability URL takes it) and cannot be forged without the key;
// the Worker checks the MAC, then the token hash against the live read tokens, so revoking a
// token ends its sessions too.
import { isSha256Hex, sha256Hex } from "../../core/skill/hash.ts";

/** The secrets a session key is derived from, first set wins (docs/teams.md, "Sign-in"). */
export interface SessionEnv {
  /** A random secret for sessions alone (`wrangler secret put SHELF_SESSION_KEY`). */
  SHELF_SESSION_KEY?: string;
  PUBLISH_TOKEN_SHA256?: string;
  READ_TOKEN_SHA256?: string;
}

const encoder = new TextEncoder();
let cachedKey: { material: string; key: Promise<CryptoKey> } | undefined;

/** The HMAC key, derived from the first configured secret; null when none is (no session can be made). */
function sessionKey(env: SessionEnv): Promise<CryptoKey> | null {
  const material = [env.SHELF_SESSION_KEY, env.PUBLISH_TOKEN_SHA256, env.READ_TOKEN_SHA256].map((s) => s?.trim()).find((s) => s);
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
 * The session value for a verified read token; null when the Worker has no secret to key it with.
 * @example await sessionValue("sk_…", env) // => "s1.<64 hex>.<43 base64url>"
 */
export async function sessionValue(token: string, env: SessionEnv): Promise<string | null> {
  const key = sessionKey(env);
  if (!key) return null;
  const hash = await sha256Hex(token);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key, encoder.encode(`s1.${hash}`)));
  return `s1.${hash}.${base64Url(mac)}`;
}

/**
 * The token hash a session value vouches for, or null when it is not one this Worker made (a
 * raw token, a tampered value, another key). The MAC is checked in constant time by WebCrypto.
 */
export async function sessionTokenHash(value: string, env: SessionEnv): Promise<string | null> {
  const match = /^s1\.([0-9a-f]{64})\.([A-Za-z0-9_-]{43})$/.exec(value);
  const key = sessionKey(env);
  if (!match || !key || !isSha256Hex(match[1]!)) return null;
  const mac = fromBase64Url(match[2]!);
  if (!mac) return null;
  const ok = await crypto.subtle.verify("HMAC", await key, mac, encoder.encode(`s1.${match[1]}`));
  return ok ? match[1]! : null;
}
