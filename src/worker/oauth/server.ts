// The shelf's authorization server and its protected-resource metadata, built on
// @cloudflare/workers-oauth-provider: one OAuthAuthorizationServer per issuer (the shelf's origin,
// which is also its only resource, so one token reads every private surface), loaded on first use
// so a Worker with OAuth off never evaluates the library.
import type { AuthorizationError, CimdFetchError, OAuthAuthorizationServer, OAuthHelpers, OAuthResourceServer } from "@cloudflare/workers-oauth-provider";
import { OAUTH_PATHS, type OAuthEnv, READ_SCOPE, SCOPES_SUPPORTED, type OAuthSettings } from "./config.ts";

/** How long an access token reads: an hour, then the client refreshes (a revoked grant cannot). */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** How long a grant lives after its sign-in, however often it is refreshed: 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The shelf's two OAuth roles for one issuer. */
export interface ShelfOAuth {
  server: OAuthAuthorizationServer<OAuthEnv>;
  /** Serves only the RFC 9728 document; the shelf's read access checks tokens itself. */
  metadata: OAuthResourceServer<OAuthEnv>;
  helpers(env: OAuthEnv): OAuthHelpers;
  issuer: string;
  /** The library's error classes, for `instanceof` without loading it where OAuth is off. */
  errors: { AuthorizationError: typeof AuthorizationError; CimdFetchError: typeof CimdFetchError };
}

let library: Promise<typeof import("@cloudflare/workers-oauth-provider")> | undefined;
const built = new Map<string, Promise<ShelfOAuth>>();

/**
 * The shelf's OAuth roles for `settings.issuer`, built once per isolate and issuer.
 * @example const { server } = await shelfOAuth(settings); await server.validateToken(settings.issuer, token, env)
 */
export function shelfOAuth(settings: OAuthSettings): Promise<ShelfOAuth> {
  let roles = built.get(settings.issuer);
  if (!roles) {
    roles = buildRoles(settings.issuer);
    // A failed build (a bad option is our bug) is not cached, so it is not the answer forever.
    roles.catch(() => built.delete(settings.issuer));
    built.set(settings.issuer, roles);
  }
  return roles;
}

async function buildRoles(issuer: string): Promise<ShelfOAuth> {
  library ??= import("@cloudflare/workers-oauth-provider");
  const lib = await library;
  const { OAuthAuthorizationServer, OAuthResourceServer } = lib;
  const server = new OAuthAuthorizationServer<OAuthEnv>({
    issuer,
    resources: [issuer],
    authorizeEndpoint: OAUTH_PATHS.authorize,
    tokenEndpoint: OAUTH_PATHS.token,
    clientRegistrationEndpoint: OAUTH_PATHS.register,
    scopesSupported: [...SCOPES_SUPPORTED],
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    // Only with the global_fetch_strictly_public compatibility flag (docs/oauth.md): without it the
    // library would throw on any URL-shaped client_id (a 500), where it should be an unknown client.
    clientIdMetadataDocumentEnabled: cimdAvailable(),
    onError: ({ status, code, internal }) => console.warn(`oauth: ${status} ${code}${internal ? ` (${JSON.stringify(internal)})` : ""}`),
  });
  const metadata = new OAuthResourceServer<OAuthEnv>({
    resourceMetadata: { resource: issuer, authorization_servers: [issuer], resource_name: "skillshelf" },
    requiredScopes: [READ_SCOPE],
    validateToken: () => async () => null,
    handler: { fetch: async () => new Response(null, { status: 404 }) },
  });
  return {
    server,
    metadata,
    issuer,
    helpers: (env) => server.getOAuthApi(env),
    errors: { AuthorizationError: lib.AuthorizationError, CimdFetchError: lib.CimdFetchError },
  };
}

/**
 * True when the Worker runs with the `global_fetch_strictly_public` compatibility flag, which client
 * ID metadata documents need (outbound fetches that cannot reach the Worker's own zone: SSRF).
 */
export function cimdAvailable(): boolean {
  const runtime = (globalThis as { Cloudflare?: { compatibilityFlags?: Record<string, boolean> } }).Cloudflare;
  return runtime?.compatibilityFlags?.global_fetch_strictly_public === true;
}

/**
 * The URL of the shelf's protected resource metadata (RFC 9728 §3.1: the well-known path, then the
 * resource's path, which for an origin is empty).
 * @example resourceMetadataUrl("https://s.example") // => "https://s.example/.well-known/oauth-protected-resource"
 */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}${OAUTH_PATHS.protectedResourceMetadata}`;
}
