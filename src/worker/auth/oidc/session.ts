// The session an OpenID Connect sign-in leaves: `o1.<identity, base64url JSON>.<issued>.<HMAC>`,
// keyed from SHELF_SESSION_KEY (apart from the read-token sessions' key). The pages keep it in
// their cookie and the OAuth consent step carries it in its form, as they do a read-token session;
// it holds only who signed in, and stops working SESSION_MAX_AGE_SECONDS later or when the
// provider's issuer changes.
import { SESSION_MAX_AGE_SECONDS } from "../session.ts";
import { fromBase64Url, toBase64Url } from "./base64url.ts";
import type { OidcIdentity } from "./policy.ts";

const encoder = new TextEncoder();
let cachedKey: { material: string; key: Promise<CryptoKey> } | undefined;

function macKey(material: string): Promise<CryptoKey> {
  if (cachedKey?.material !== material) {
    const key = crypto.subtle
      .digest("SHA-256", encoder.encode(`skillshelf-oidc-session-v1\n${material}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    cachedKey = { material, key };
  }
  return cachedKey.key;
}

/** True for a value shaped as an OpenID Connect session (and so not a read-token one). */
export function isOidcSession(value: string): boolean {
  return value.startsWith("o1.");
}

/** The session value for an admitted identity, issued now. */
export async function oidcSessionValue(identity: OidcIdentity, sessionKey: string, now = Date.now()): Promise<string> {
  const body = toBase64Url(encoder.encode(JSON.stringify({ i: identity.issuer, s: identity.subject, e: identity.email })));
  const signed = `o1.${body}.${Math.floor(now / 1000)}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await macKey(sessionKey), encoder.encode(signed)));
  return `${signed}.${toBase64Url(mac)}`;
}

/**
 * The identity a session value vouches for, or null: not one this Worker made, older than
 * SESSION_MAX_AGE_SECONDS, or from another issuer than `issuer` (the provider changed).
 */
export async function oidcSessionIdentity(value: string, sessionKey: string, issuer: string, now = Date.now()): Promise<OidcIdentity | null> {
  const match = /^(o1\.([A-Za-z0-9_-]{1,2048})\.([0-9]{1,12}))\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return null;
  const mac = fromBase64Url(match[4]!);
  if (!mac || !(await crypto.subtle.verify("HMAC", await macKey(sessionKey), mac, encoder.encode(match[1]!)))) return null;
  const age = Math.floor(now / 1000) - Number(match[3]);
  if (age < -60 || age > SESSION_MAX_AGE_SECONDS) return null;
  const body = JSON.parse(new TextDecoder().decode(fromBase64Url(match[2]!)!)) as { i: string; s: string; e: string | null };
  return body.i === issuer ? { issuer: body.i, subject: body.s, email: body.e } : null;
}
