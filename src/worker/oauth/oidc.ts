// The shelf's side of an OpenID Connect sign-in (src/worker/auth/oidc): /oidc/sign-in sends the
// browser to the team's provider, /oidc/callback brings it back, then either on to the OAuth
// consent step (a hosted agent is being connected) or into the pages with their session cookie.
// Where OpenID Connect is off both paths fall through to the read group's 404.
import { Hono } from "hono";
import { parse } from "hono/utils/cookie";
import { oidcSettings, type OidcEnv } from "../auth/oidc/config.ts";
import { beginSignIn, finishSignIn, OIDC_CALLBACK_PATH, OIDC_START_PATH, SignInProblem } from "../auth/oidc/flow.ts";
import type { SignInReturn } from "../auth/oidc/transaction.ts";
import { TRANSACTION_COOKIE, transactionCookie } from "../auth/oidc/transaction.ts";
import { applySecurityHeaders, NO_STORE } from "../http/headers.ts";
import { htmlResponse } from "../views/pages/page-context.ts";
import { applyPageHeaders, readCookie, UI_PREFIX } from "../views/pages/security.ts";
import { consentAfterOidc } from "./authorize.ts";
import { OAUTH_PATHS, oauthSettings, type OAuthEnv } from "./config.ts";
import { AuthorizeProblem } from "./pages.tsx";
import { shelfOAuth } from "./server.ts";

type OidcRouteEnv = { Bindings: OAuthEnv & OidcEnv };

/** A sign-in that cannot go on, as a page (the pages' headers), the transaction cookie cleared. */
async function problemPage(problem: SignInProblem): Promise<Response> {
  console.warn(problem.message);
  const response = await htmlResponse(AuthorizeProblem({ title: problem.title, message: problem.detail }), problem.status);
  await applyPageHeaders(response.headers);
  response.headers.append("Set-Cookie", transactionCookie(null));
  return response;
}

function seeOther(location: string, cookies: readonly string[]): Response {
  const headers = new Headers({ Location: location, "Cache-Control": NO_STORE });
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  applySecurityHeaders(headers);
  return new Response(null, { status: 303, headers });
}

/**
 * Where a sign-in started at /oidc/sign-in returns: the pages, or (`for=oauth`) the authorization
 * request it came from on this origin, with its consent handle; null for anything else.
 */
function signInReturn(url: URL, env: OAuthEnv): SignInReturn | null {
  if (url.searchParams.get("for") !== "oauth") return { kind: "pages" };
  const authorize = url.searchParams.get("authorize") ?? "";
  const handle = url.searchParams.get("handle") ?? "";
  // Only this shelf's own authorization endpoint: never a redirect to anywhere a link names.
  if (!oauthSettings(env) || !authorize.startsWith(`${OAUTH_PATHS.authorize}?`) || handle === "" || handle.length > 512) return null;
  return { kind: "oauth", authorizeUrl: url.origin + authorize, handle };
}

/**
 * The OpenID Connect routes. Mount with the OAuth routes: `app.route("/", oidcRoutes())`.
 * @example app.route("/", oidcRoutes())
 */
export function oidcRoutes(): Hono<OidcRouteEnv> {
  const routes = new Hono<OidcRouteEnv>();

  routes.get(OIDC_START_PATH, async (c, next) => {
    const settings = oidcSettings(c.env);
    if (!settings) return next();
    const url = new URL(c.req.url);
    const ret = signInReturn(url, c.env);
    if (!ret)
      return problemPage(
        new SignInProblem(400, "This sign-in link is not valid", "Start connecting again from the app.", "oidc: a sign-in link with no valid return"),
      );
    try {
      const { location, cookie } = await beginSignIn(settings, url.origin, ret);
      return seeOther(location, [cookie]);
    } catch (error) {
      if (error instanceof SignInProblem) return problemPage(error);
      throw error;
    }
  });

  routes.get(OIDC_CALLBACK_PATH, async (c, next) => {
    const settings = oidcSettings(c.env);
    if (!settings) return next();
    const cookie = parse(c.req.header("Cookie") ?? "", TRANSACTION_COOKIE)[TRANSACTION_COOKIE];
    try {
      const done = await finishSignIn(c.req.raw, settings, cookie);
      const clear = transactionCookie(null);
      if (done.return.kind === "pages") return seeOther(`${UI_PREFIX}/`, [readCookie(done.session), clear]);
      const oauth = oauthSettings(c.env);
      if (!oauth)
        throw new SignInProblem(
          404,
          "Connecting apps is not set up",
          "This shelf does not serve OAuth now.",
          "oidc: an OAuth sign-in came back with OAuth off",
        );
      const response = await consentAfterOidc(done.return.authorizeUrl, done.return.handle, done.session, c.env, await shelfOAuth(oauth), oauth);
      response.headers.append("Set-Cookie", clear);
      response.headers.set("Cache-Control", NO_STORE);
      return response;
    } catch (error) {
      if (error instanceof SignInProblem) return problemPage(error);
      throw error;
    }
  });
  return routes;
}
