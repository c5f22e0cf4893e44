// Whether a Worker serves OAuth, and as what: the one place its settings are read. OAuth is on
// only when SHELF_OAUTH_ISSUER names the shelf's public origin and the OAUTH_KV binding exists,
// so a shelf without both (every public shelf, and every existing deployment) is untouched.
import type { ReadAccessEnv } from "../auth/read-access.ts";

/** The bindings OAuth reads besides read access's own (docs/oauth.md says how to set each). */
export interface OAuthEnv extends ReadAccessEnv {
  /** The shelf's public origin, e.g. "https://skills.acme.example": the issuer and the one resource. */
  SHELF_OAUTH_ISSUER?: string;
  /** The KV namespace @cloudflare/workers-oauth-provider keeps clients, grants and token hashes in. */
  OAUTH_KV?: KVNamespace;
}

/** The read scope: skills, files, the /v1 API and /mcp. Nothing an OAuth token holds can write. */
export const READ_SCOPE = "skills:read";
/** Every scope the shelf's authorization server grants: the read scope, and refresh tokens. */
export const SCOPES_SUPPORTED: readonly string[] = [READ_SCOPE, "offline_access"];

/** The authorization endpoints, on the shelf's own origin (the read group answers everything else). */
export const OAUTH_PATHS = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  authorizationServerMetadata: "/.well-known/oauth-authorization-server",
  protectedResourceMetadata: "/.well-known/oauth-protected-resource",
} as const;

/** A Worker's OAuth settings: its issuer, which is also the resource its tokens are bound to. */
export interface OAuthSettings {
  /** The shelf's origin, without a trailing slash: "https://skills.acme.example". */
  issuer: string;
  kv: KVNamespace;
}

let warned: string | undefined;

/**
 * The OAuth settings of a Worker, or null when OAuth is off (no SHELF_OAUTH_ISSUER, no OAUTH_KV, or
 * a public shelf: a public shelf needs no sign-in). An issuer that is not a bare https origin (or
 * http on a loopback host, for `wrangler dev`) is logged once and turns OAuth off, never on.
 * @example oauthSettings({ SHELF_VISIBILITY: "private", SHELF_OAUTH_ISSUER: "https://s.example", OAUTH_KV }) // => { issuer: "https://s.example", kv }
 */
export function oauthSettings(env: OAuthEnv): OAuthSettings | null {
  const configured = env.SHELF_OAUTH_ISSUER?.trim();
  if (!configured || !env.OAUTH_KV || env.SHELF_VISIBILITY === "public" || env.SHELF_VISIBILITY === undefined) return null;
  const issuer = canonicalOrigin(configured);
  if (issuer === null) {
    if (warned !== configured) console.warn(`SHELF_OAUTH_ISSUER=${JSON.stringify(configured)} is not a bare https origin; OAuth is off (docs/oauth.md)`);
    warned = configured;
    return null;
  }
  return { issuer, kv: env.OAUTH_KV };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/**
 * `value` as a canonical origin (lowercase scheme and host, no default port, no path), or null when
 * it is not one: OAuth 2.1 needs https, and http is accepted on a loopback host only.
 * @example canonicalOrigin("https://Skills.Example/") // => "https://skills.example"
 */
export function canonicalOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.test(url.hostname))) return null;
  return url.origin;
}
