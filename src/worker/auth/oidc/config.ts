// Whether a Worker signs people in with the team's OpenID Connect provider, and with what: the one
// place its settings are read. On only for a private shelf with an issuer, a client, a session key
// and at least one admission rule (e-mail domains or a required claim), so a half-configured
// provider never admits every account it knows.
import { shelfVisibility, type ReadAccessEnv } from "../read-access.ts";

/** The vars and secrets OpenID Connect sign-in reads (docs/oauth.md, "Sign in with your identity provider"). */
export interface OidcEnv extends ReadAccessEnv {
  /** The provider's issuer URL, e.g. "https://accounts.google.com"; its discovery document lives below it. */
  SHELF_OIDC_ISSUER?: string;
  SHELF_OIDC_CLIENT_ID?: string;
  /** A secret (`wrangler secret put SHELF_OIDC_CLIENT_SECRET`). */
  SHELF_OIDC_CLIENT_SECRET?: string;
  /** Comma-separated e-mail domains whose verified addresses may sign in, e.g. "acme.example,acme.dev". */
  SHELF_OIDC_ALLOWED_DOMAINS?: string;
  /** `claim=value` the ID token must carry (a string equal to it, or an array holding it), e.g. "groups=skills-readers". */
  SHELF_OIDC_REQUIRED_CLAIM?: string;
  /** What the sign-in button calls the provider ("Google", "Okta"); the issuer's host name by default. */
  SHELF_OIDC_NAME?: string;
}

/** A Worker's OpenID Connect settings. */
export interface OidcSettings {
  /** The issuer exactly as configured (trailing slash removed): discovery's `issuer` and every ID token's `iss` must equal it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Lowercase e-mail domains admitted (empty: any, when a required claim is set). */
  allowedDomains: readonly string[];
  /** The claim an ID token must carry, or null. */
  requiredClaim: { name: string; value: string } | null;
  /** The provider as the sign-in button names it. */
  name: string;
  /** SHELF_SESSION_KEY: keys the sign-in transaction and the session. */
  sessionKey: string;
  /** SHELF_KV: where spent sign-in states are remembered. */
  kv: KVNamespace;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/**
 * True for a URL OpenID Connect may be spoken to: https, or http on a loopback host (`wrangler dev`
 * against a local provider), without userinfo or fragment.
 * @example providerUrl("https://accounts.google.com") // => true
 */
export function providerUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.hash) return false;
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
}

/**
 * Parses SHELF_OIDC_REQUIRED_CLAIM ("name=value"); null when empty, undefined when malformed.
 * @example parseRequiredClaim("groups=skills-readers") // => { name: "groups", value: "skills-readers" }
 */
export function parseRequiredClaim(value: string | undefined): { name: string; value: string } | null | undefined {
  const text = value?.trim() ?? "";
  if (text === "") return null;
  const at = text.indexOf("=");
  if (at <= 0 || at === text.length - 1) return undefined;
  return { name: text.slice(0, at).trim(), value: text.slice(at + 1).trim() };
}

/**
 * Parses SHELF_OIDC_ALLOWED_DOMAINS; undefined when an entry is not a domain (say "@acme.example"
 * or "*.acme.example": only exact domains are admitted).
 */
export function parseAllowedDomains(value: string | undefined): string[] | undefined {
  const out: string[] = [];
  for (const entry of (value ?? "").split(/[\s,]+/)) {
    if (entry === "") continue;
    const domain = entry.toLowerCase();
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(domain)) return undefined;
    out.push(domain);
  }
  return out;
}

let warned: string | undefined;

function off(reason: string): null {
  if (warned !== reason) console.warn(`OpenID Connect sign-in is off: ${reason} (docs/oauth.md)`);
  warned = reason;
  return null;
}

/**
 * The OpenID Connect settings of a Worker, or null when sign-in with a provider is off: no
 * SHELF_OIDC_ISSUER (silently), or a public shelf, or anything missing or malformed (logged once).
 * @example oidcSettings(env)?.issuer // => "https://accounts.google.com"
 */
export function oidcSettings(env: OidcEnv): OidcSettings | null {
  const configured = env.SHELF_OIDC_ISSUER?.trim();
  if (!configured || env.SHELF_VISIBILITY === undefined || shelfVisibility(env) === "public") return null;
  const issuer = configured.replace(/\/+$/, "");
  if (!providerUrl(issuer)) return off(`SHELF_OIDC_ISSUER=${JSON.stringify(configured)} is not an https URL`);
  const clientId = env.SHELF_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.SHELF_OIDC_CLIENT_SECRET?.trim();
  if (!clientId) return off("SHELF_OIDC_CLIENT_ID is not set");
  if (!clientSecret) return off("the SHELF_OIDC_CLIENT_SECRET secret is not set");
  const sessionKey = env.SHELF_SESSION_KEY?.trim();
  if (!sessionKey) return off("the SHELF_SESSION_KEY secret is not set");
  if (!env.SHELF_KV) return off("the SHELF_KV binding is missing");
  const allowedDomains = parseAllowedDomains(env.SHELF_OIDC_ALLOWED_DOMAINS);
  if (allowedDomains === undefined)
    return off(`SHELF_OIDC_ALLOWED_DOMAINS=${JSON.stringify(env.SHELF_OIDC_ALLOWED_DOMAINS)} holds something that is not a domain`);
  const requiredClaim = parseRequiredClaim(env.SHELF_OIDC_REQUIRED_CLAIM);
  if (requiredClaim === undefined) return off(`SHELF_OIDC_REQUIRED_CLAIM=${JSON.stringify(env.SHELF_OIDC_REQUIRED_CLAIM)} is not claim=value`);
  if (allowedDomains.length === 0 && requiredClaim === null) {
    return off("neither SHELF_OIDC_ALLOWED_DOMAINS nor SHELF_OIDC_REQUIRED_CLAIM is set, so every account the provider knows would be admitted");
  }
  const name = env.SHELF_OIDC_NAME?.trim() || new URL(issuer).hostname;
  return { issuer, clientId, clientSecret, allowedDomains, requiredClaim, name, sessionKey, kv: env.SHELF_KV };
}
