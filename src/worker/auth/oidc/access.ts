// An OpenID Connect session in the pages' cookie as a way into a private shelf's pages: the
// sign-in method read access asks after the read token (auth/read-access.ts). Only on the pages'
// paths, as the read-token session is; an expired or foreign session is refused (the pages then
// show the sign-in form again).
import { parse } from "hono/utils/cookie";
import { isUiPath, READ_COOKIE, type ReadAccessEnv, type SignInMethod, type SignInVerdict } from "../read-access.ts";
import { oidcSettings, type OidcEnv } from "./config.ts";
import { isOidcSession, oidcSessionIdentity } from "./session.ts";

/** The pages' cookie of a request (hono's parser, as getCookie reads it). */
export function pagesCookie(request: Request): string | undefined {
  const header = request.headers.get("Cookie");
  return header ? parse(header, READ_COOKIE)[READ_COOKIE] : undefined;
}

/**
 * The sign-in method that admits a pages' session made by an OpenID Connect sign-in.
 * @example readAccess({ methods: [oidcSessionSignIn()] })
 */
export function oidcSessionSignIn(): SignInMethod {
  return {
    name: "oidc-session",
    async authenticate(request: Request, env: ReadAccessEnv): Promise<SignInVerdict> {
      if (request.headers.has("Authorization") || !isUiPath(new URL(request.url).pathname)) return undefined;
      const cookie = pagesCookie(request);
      if (cookie === undefined || !isOidcSession(cookie)) return undefined;
      const settings = oidcSettings(env as OidcEnv);
      if (!settings) return "refused";
      return (await oidcSessionIdentity(cookie, settings.sessionKey, settings.issuer)) ? "granted" : "refused";
    },
  };
}
