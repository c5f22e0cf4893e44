// Who holds OAuth grants on this shelf. workers-oauth-provider lists grants per user only, so the
// shelf keeps its own index of the users that signed in (KV `oauth-holder:<user id>` in OAUTH_KV,
// docs/storage.md) and lists or revokes their grants through the library. A user is the read token
// that signed in (its hash's first 16 hex digits), or the person the identity provider vouched for
// (issuer and subject), so one holder's grants are revoked together.
import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { sha256Hex } from "../../core/skill/hash.ts";
import { REFRESH_TOKEN_TTL_SECONDS } from "./server.ts";

/** KV key prefix of a holder record in OAUTH_KV; the rest of the key is the user id. */
export const HOLDER_KV_PREFIX = "oauth-holder:";

/** How a grant's holder signed in: with a read token, or with the team's identity provider (auth/oidc). */
export type SignInMethodName = "read-token" | "oidc";

/** What a grant carries, encrypted by the library with the token: who signed in, by which method. */
export type GrantProps =
  | {
      method: "read-token";
      /** SHA-256 hex of the read token that signed in: the grant reads only while that token does. */
      readTokenSha256: string;
    }
  | {
      method: "oidc";
      /** The provider that vouched for the person: the grant reads only while the shelf still uses it. */
      issuer: string;
      subject: string;
      email: string | null;
    };

/** True for props this shelf stored (anything else is refused, never trusted). */
export function isGrantProps(value: unknown): value is GrantProps {
  if (typeof value !== "object" || value === null) return false;
  const props = value as Record<string, unknown>;
  if (props.method === "read-token") return typeof props.readTokenSha256 === "string" && /^[0-9a-f]{64}$/.test(props.readTokenSha256);
  if (props.method === "oidc")
    return typeof props.issuer === "string" && typeof props.subject === "string" && (props.email === null || typeof props.email === "string");
  return false;
}

/**
 * The user id of a read-token sign-in: stable per token, without ":" (the library's separator),
 * and not the whole hash (a user id is stored and sent in the clear, inside every token).
 * @example readTokenUserId("94f8d38a…") // => "rt-94f8d38aa613a331"
 */
export function readTokenUserId(readTokenSha256: string): string {
  return `rt-${readTokenSha256.slice(0, 16)}`;
}

/**
 * The user id of an identity-provider sign-in: stable per person (issuer and subject), without ":".
 * @example await oidcUserId("https://accounts.google.com", "1083…") // => "oidc-3f0c…" (16 hex digits)
 */
export async function oidcUserId(issuer: string, subject: string): Promise<string> {
  return `oidc-${(await sha256Hex(`${issuer}\n${subject}`)).slice(0, 16)}`;
}

/** The JSON stored under `oauth-holder:<user id>`. */
export interface HolderRecord {
  user_id: string;
  method: SignInMethodName;
  /** The person's e-mail address (lowercase) for an identity-provider sign-in; absent for a read token. */
  email?: string;
  /** Last sign-in (ISO 8601); the record expires REFRESH_TOKEN_TTL_SECONDS after it, with the grant. */
  signed_in_at: string;
}

/** Notes that `userId` now holds a grant (after completeAuthorization stored it). */
export async function recordHolder(kv: KVNamespace, userId: string, method: SignInMethodName, email: string | null = null, now = Date.now()): Promise<void> {
  const record: HolderRecord = { user_id: userId, method, ...(email ? { email } : {}), signed_in_at: new Date(now).toISOString() };
  await kv.put(HOLDER_KV_PREFIX + userId, JSON.stringify(record), { expirationTtl: REFRESH_TOKEN_TTL_SECONDS });
}

/** One grant as the admin API lists it. */
export interface ListedGrant {
  grant_id: string;
  user_id: string;
  method: SignInMethodName;
  /** Who signed in, for an identity-provider sign-in; null for a read token (user_id names which). */
  email: string | null;
  client_id: string;
  client_name: string | null;
  scope: string[];
  created_at: string;
  expires_at: string | null;
}

/** Most holders and grants per holder the admin API walks: a team's shelf has far fewer. */
const MAX_HOLDERS = 1000;

async function holders(kv: KVNamespace): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix: HOLDER_KV_PREFIX, ...(cursor ? { cursor } : {}) });
    for (const key of page.keys) out.push(key.name.slice(HOLDER_KV_PREFIX.length));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor && out.length < MAX_HOLDERS);
  return out;
}

function listed(grant: GrantSummary): ListedGrant {
  const meta = (grant.metadata ?? {}) as { client_name?: unknown; method?: unknown; email?: unknown };
  return {
    grant_id: grant.id,
    user_id: grant.userId,
    method: meta.method === "oidc" ? "oidc" : "read-token",
    email: typeof meta.email === "string" ? meta.email : null,
    client_id: grant.clientId,
    client_name: typeof meta.client_name === "string" ? meta.client_name : null,
    scope: grant.scope,
    created_at: new Date(grant.createdAt * 1000).toISOString(),
    expires_at: grant.expiresAt === undefined ? null : new Date(grant.expiresAt * 1000).toISOString(),
  };
}

/**
 * Every live grant on the shelf, oldest first, from the holder index.
 * @example await listGrants(kv, helpers) // => [{ grant_id, user_id, client_name: "Claude", scope: ["skills:read"], … }]
 */
export async function listGrants(kv: KVNamespace, helpers: OAuthHelpers): Promise<ListedGrant[]> {
  const out: ListedGrant[] = [];
  for (const userId of await holders(kv)) {
    let cursor: string | undefined;
    do {
      const page = await helpers.listUserGrants(userId, cursor ? { cursor } : {});
      out.push(...page.items.map(listed));
      cursor = page.cursor;
    } while (cursor);
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/**
 * Revokes one grant (its access and refresh tokens stop on their next use); false when no holder
 * has a grant with that id.
 */
export async function revokeGrant(kv: KVNamespace, helpers: OAuthHelpers, grantId: string): Promise<boolean> {
  const grant = (await listGrants(kv, helpers)).find((g) => g.grant_id === grantId);
  if (!grant) return false;
  await helpers.revokeGrant(grant.grant_id, grant.user_id);
  return true;
}

/**
 * Revokes every grant of the person with `email` (an identity-provider sign-in) and forgets them
 * as a holder; the grant ids revoked (empty when they hold none). Their next sign-in meets the
 * allow-list as it is then.
 */
export async function revokeUserGrants(kv: KVNamespace, helpers: OAuthHelpers, email: string): Promise<string[]> {
  const wanted = email.trim().toLowerCase();
  const revoked: string[] = [];
  for (const userId of await holders(kv)) {
    const record = await kv.get<HolderRecord>(HOLDER_KV_PREFIX + userId, "json");
    if (record?.email !== wanted) continue;
    let cursor: string | undefined;
    const ids: string[] = [];
    do {
      const page = await helpers.listUserGrants(userId, cursor ? { cursor } : {});
      ids.push(...page.items.map((g) => g.id));
      cursor = page.cursor;
    } while (cursor);
    for (const id of ids) await helpers.revokeGrant(id, userId);
    revoked.push(...ids);
    await kv.delete(HOLDER_KV_PREFIX + userId);
  }
  return revoked;
}
