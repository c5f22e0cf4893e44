// OAuth access tokens as a way into a private shelf: the sign-in method read access asks about a
// token of OAuth's shape before the read token, and about any other after it (auth/read-access.ts). Every request asks the authorization server's KV (no
// isolate cache), so a revoked grant stops the next request; a token must be bound to this
// shelf's origin, hold the read scope, and come from a read token that still reads (or from the
// identity provider the shelf still signs in with).
import type { ReadAccessEnv, SignInMethod, SignInVerdict } from "../auth/read-access.ts";
import { bearerToken } from "../auth/bearer.ts";
import { oidcSettings, type OidcEnv } from "../auth/oidc/config.ts";
import { createReadTokenVerifier, type ReadTokenVerifier } from "../auth/read-tokens.ts";
import { ShelfError } from "../errors.ts";
import { StorageUnavailableError } from "../storage/errors.ts";
import { oauthSettings, READ_SCOPE, type OAuthEnv } from "./config.ts";
import { isGrantProps } from "./grants.ts";
import { resourceMetadataUrl, shelfOAuth } from "./server.ts";

/**
 * True when `token` has the shape workers-oauth-provider issues (`<user>:<grant>:<secret>`), so a
 * token of another kind is never looked up in OAuth's KV.
 */
function looksLikeOAuthToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}:[A-Za-z0-9_-]{1,128}:[A-Za-z0-9_-]{16,256}$/.test(token);
}

/** The 403 for a valid token without the read scope (RFC 6750 §3.1, the MCP scope challenge). */
function insufficientScope(issuer: string): never {
  throw new ShelfError("insufficient_scope", 403, `This token does not hold the ${READ_SCOPE} scope; sign in again and grant it.`, {
    headers: {
      "WWW-Authenticate": `Bearer realm="skillshelf", error="insufficient_scope", scope="${READ_SCOPE}", resource_metadata="${resourceMetadataUrl(issuer)}"`,
    },
  });
}

/** Options of {@link oauthSignIn}. */
export interface OAuthSignInOptions {
  /** Checks the read token a grant was signed in with still reads (default: auth/read-tokens.ts). */
  verify?: ReadTokenVerifier;
}

/**
 * The OAuth sign-in method for read access: grants a private read to an access token this shelf's
 * authorization server issued for this shelf, refuses any other OAuth-shaped token, and leaves
 * everything else to the next method. Off (undefined, no challenge) where OAuth is not configured.
 * @example readAccess({ methods: [oauthSignIn()] })
 */
export function oauthSignIn(options: OAuthSignInOptions = {}): SignInMethod {
  const verify = options.verify ?? createReadTokenVerifier();
  return {
    name: "oauth",
    challengeParams(env: ReadAccessEnv): readonly string[] {
      const settings = oauthSettings(env as OAuthEnv);
      return settings ? [`resource_metadata="${resourceMetadataUrl(settings.issuer)}"`, `scope="${READ_SCOPE}"`] : [];
    },
    claimsToken(token: string, env: ReadAccessEnv): boolean {
      return looksLikeOAuthToken(token) && oauthSettings(env as OAuthEnv) !== undefined;
    },
    async authenticate(request: Request, env: ReadAccessEnv): Promise<SignInVerdict> {
      const settings = oauthSettings(env as OAuthEnv);
      if (!settings) return undefined;
      const token = bearerToken(request.headers.get("Authorization"));
      if (token === null || !looksLikeOAuthToken(token)) return undefined;
      const { server } = await shelfOAuth(settings);
      let validated: Awaited<ReturnType<typeof server.validateToken>>;
      try {
        // Audience-checked against this shelf's origin: another shelf's token is refused here.
        validated = await server.validateToken(settings.issuer, token, env as OAuthEnv);
      } catch (err) {
        throw new StorageUnavailableError("KV lookup of an OAuth access token failed", { cause: err });
      }
      if (validated === null || !isGrantProps(validated.props)) return "refused";
      if (!validated.scope.includes(READ_SCOPE)) insufficientScope(settings.issuer);
      const props = validated.props;
      // An identity-provider grant lasts while the shelf still signs in with that provider
      // (grants revoke --user ends one person's; the allow-list applies at their next sign-in).
      if (props.method === "oidc") return oidcSettings(env as OidcEnv)?.issuer === props.issuer ? "granted" : "refused";
      // A grant lasts only as long as the read token it was signed in with (revoking that ends it too).
      return (await verify({ sha256: props.readTokenSha256 }, env)) ? "granted" : "refused";
    },
  };
}
