// The authorization endpoint, /oauth/authorize: the library validates the request (client,
// redirect URI, PKCE, resource); the person signs in with a read token or (oidc.ts) the team's
// identity provider, then allows or denies.
// The consent handle is bound to this browser by the library's __Host- cookie (a forged or
// replayed form fails), the sign-in travels to the consent step as a pages session value (a MAC
// over the token's hash, auth/session.ts), and errors are redirected to the client only once the
// library has verified its redirect URI; every other failure is a page here.
import type { AuthRequest, ConsentDescription, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Child } from "hono/jsx";
import { oidcSettings, type OidcEnv } from "../auth/oidc/config.ts";
import { OIDC_START_PATH } from "../auth/oidc/flow.ts";
import { isOidcSession, oidcSessionIdentity } from "../auth/oidc/session.ts";
import { createReadTokenVerifier } from "../auth/read-tokens.ts";
import { sessionTokenHash, sessionValue } from "../auth/session.ts";
import { readBodyCapped } from "../http/capped-body.ts";
import { htmlResponse } from "../views/pages/page-context.ts";
import { applyPageHeaders, crossSitePost } from "../views/pages/security.ts";
import { READ_SCOPE, SCOPES_SUPPORTED, type OAuthEnv, type OAuthSettings } from "./config.ts";
import { type GrantProps, oidcUserId, readTokenUserId, recordHolder } from "./grants.ts";
import { AuthorizeProblem, ConsentStep, SignInStep } from "./pages.tsx";
import type { ShelfOAuth } from "./server.ts";

/** Longest form body read: a handle, a read token or a session value, and the field names. */
const FORM_MAX_BYTES = 4096;

const verifyReadToken = createReadTokenVerifier();

class FormTooLarge extends Error {}

/**
 * An HTML answer with the pages' headers (their CSP, no framing) and any the library asks for (its
 * consent cookie). A page whose form ends in a redirect to the client (`redirectUri`) lets its form
 * go there too: browsers apply `form-action` to a form's redirects, so 'self' alone would stop the
 * browser at the shelf with the code in hand.
 */
async function page(body: Child, status: number, extra?: Headers, redirectUri?: string): Promise<Response> {
  const response = await htmlResponse(body, status);
  await applyPageHeaders(response.headers);
  const target = redirectUri === undefined ? null : formTarget(redirectUri);
  const csp = response.headers.get("Content-Security-Policy");
  if (target !== null && csp !== null) response.headers.set("Content-Security-Policy", csp.replace("form-action 'self'", `form-action 'self' ${target}`));
  for (const [name, value] of extra ?? []) response.headers.append(name, value);
  return response;
}

/** The CSP source of a redirect URI the library accepted (https, or http on loopback), or null. */
export function formTarget(redirectUri: string): string | null {
  try {
    const url = new URL(redirectUri);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

function redirect(location: string, extra?: Headers): Response {
  const headers = new Headers(extra);
  headers.set("Location", location);
  headers.set("Cache-Control", "no-store");
  return new Response(null, { status: 302, headers });
}

/** The scopes granted for a request: those asked for that the shelf grants, or the read scope when none were asked for. */
export function grantedScopes(requested: readonly string[]): string[] {
  const known = requested.filter((scope) => SCOPES_SUPPORTED.includes(scope));
  return requested.length === 0 ? [READ_SCOPE] : [...new Set(known)];
}

/**
 * What a failed authorization step answers: the client's redirect with `error` once the library
 * vouches for it, a page otherwise (an unknown client, a wrong redirect URI, an expired or forged
 * consent form). Anything else is a bug or an outage, and is thrown on.
 */
async function failure(error: unknown, { AuthorizationError, CimdFetchError }: ShelfOAuth["errors"]): Promise<Response> {
  if (error instanceof AuthorizationError && error.redirectTo) return redirect(error.redirectTo);
  if (error instanceof AuthorizationError) {
    return page(AuthorizeProblem({ title: "This request cannot go on", message: `${error.description} Start connecting again from the app.` }), 400);
  }
  if (error instanceof CimdFetchError) {
    return page(
      AuthorizeProblem({ title: "This app could not be verified", message: "Its client metadata document could not be fetched or is not valid." }),
      400,
    );
  }
  if (error instanceof FormTooLarge) return page(AuthorizeProblem({ title: "Refused", message: "That form is too large." }), 413);
  throw error;
}

/** The parsed request and what the page shows about it. */
async function describe(helpers: OAuthHelpers, request: Request): Promise<{ auth: AuthRequest; details: ConsentDescription }> {
  const auth = await helpers.parseAuthRequest(request);
  return { auth, details: await helpers.describeConsent(auth) };
}

/**
 * The identity-provider choice on the sign-in step: its name and the link that starts it (back to
 * this authorization request and consent handle), or null where OpenID Connect is off.
 */
function oidcChoice(request: Request, env: OAuthEnv, handle: string): { name: string; href: string } | null {
  const oidc = oidcSettings(env as OidcEnv);
  if (!oidc) return null;
  const url = new URL(request.url);
  const query = new URLSearchParams({ for: "oauth", handle, authorize: url.pathname + url.search });
  return { name: oidc.name, href: `${OIDC_START_PATH}?${query}` };
}

/**
 * The consent step after an identity-provider sign-in (at /oidc/callback): the authorization
 * request the sign-in started from, parsed again, and the form posting back to it.
 */
export async function consentAfterOidc(
  authorizeUrl: string,
  handle: string,
  signIn: string,
  env: OAuthEnv,
  roles: ShelfOAuth,
  settings: OAuthSettings,
): Promise<Response> {
  try {
    const { auth, details } = await describe(roles.helpers(env), new Request(authorizeUrl));
    return page(
      ConsentStep({ details, shelf: settings.issuer, action: authorizeUrl, handle, signIn, scope: grantedScopes(auth.scope) }),
      200,
      undefined,
      details.redirectUri,
    );
  } catch (error) {
    return failure(error, roles.errors);
  }
}

/** GET /oauth/authorize: validate the request, open a consent transaction, ask for a read token. */
export async function authorizeGet(request: Request, env: OAuthEnv, roles: ShelfOAuth, settings: OAuthSettings): Promise<Response> {
  const helpers = roles.helpers(env);
  try {
    const { auth, details } = await describe(helpers, request);
    const consent = await helpers.beginConsent(auth);
    return page(
      SignInStep({
        details,
        shelf: settings.issuer,
        action: request.url,
        handle: consent.handle,
        problem: null,
        oidc: oidcChoice(request, env, consent.handle),
      }),
      200,
      consent.headers,
      details.redirectUri,
    );
  } catch (error) {
    return failure(error, roles.errors);
  }
}

/** POST /oauth/authorize: the sign-in step, then the consent step (Allow or Deny). */
export async function authorizePost(request: Request, env: OAuthEnv, roles: ShelfOAuth, settings: OAuthSettings): Promise<Response> {
  const helpers = roles.helpers(env);
  if (crossSitePost(request)) return page(AuthorizeProblem({ title: "Refused", message: "Answer from this shelf's own page." }), 403);
  try {
    const bytes = await readBodyCapped(request.body, FORM_MAX_BYTES, { tooLarge: () => new FormTooLarge(), incomplete: () => new FormTooLarge() });
    const form = new URLSearchParams(new TextDecoder().decode(bytes));
    const handle = form.get("handle") ?? "";
    // The request is parsed again from the URL the form posts to, for what the page shows; what is
    // granted is the request the library stored with the handle (approveConsent), never this copy.
    const { auth, details } = await describe(helpers, request);
    const show = { details, shelf: settings.issuer, action: request.url, handle, oidc: oidcChoice(request, env, handle) };

    if (form.get("step") === "sign-in") {
      const token = (form.get("token") ?? "").trim();
      if (token === "" || !(await verifyReadToken(token, env))) {
        return page(SignInStep({ ...show, problem: token === "" ? "Enter a read token." : "That read token was not accepted." }), 401);
      }
      const signIn = await sessionValue(token, env);
      if (signIn === null) {
        console.error("oauth: no SHELF_SESSION_KEY secret to carry a sign-in to the consent step (docs/oauth.md)");
        return page(AuthorizeProblem({ title: "Sign-in is not set up", message: "This shelf has no session key; its owner must set SHELF_SESSION_KEY." }), 503);
      }
      return page(ConsentStep({ ...show, signIn, scope: grantedScopes(auth.scope) }), 200, undefined, details.redirectUri);
    }

    if (form.get("decision") !== "approve") {
      const denied = await helpers.denyConsent(request, handle);
      return redirect(denied.redirectTo, denied.headers);
    }
    const signIn = await heldSignIn(form.get("sign_in") ?? "", env);
    if (signIn === null) {
      return page(SignInStep({ ...show, problem: "Your sign-in expired or its read token was revoked; sign in again." }), 401);
    }
    const approved = await helpers.approveConsent(request, handle, { scope: grantedScopes(auth.scope) });
    const { userId, props, email } = signIn;
    const { redirectTo } = await helpers.completeAuthorization({
      request: approved.request,
      userId,
      metadata: { client_name: details.clientName, method: props.method, ...(email ? { email } : {}) },
      scope: approved.request.scope,
      props,
    });
    await recordHolder(settings.kv, userId, props.method, email);
    return redirect(redirectTo, approved.headers);
  } catch (error) {
    return failure(error, roles.errors);
  }
}

/**
 * Who the consent form's sign-in value vouches for: a read-token session whose token still reads,
 * or an identity-provider session from the provider configured now; null for anything else.
 */
async function heldSignIn(value: string, env: OAuthEnv): Promise<{ userId: string; props: GrantProps; email: string | null } | null> {
  if (isOidcSession(value)) {
    const oidc = oidcSettings(env as OidcEnv);
    const identity = oidc ? await oidcSessionIdentity(value, oidc.sessionKey, oidc.issuer) : null;
    if (!identity) return null;
    const props: GrantProps = { method: "oidc", issuer: identity.issuer, subject: identity.subject, email: identity.email };
    return { userId: await oidcUserId(identity.issuer, identity.subject), props, email: identity.email };
  }
  // A read-token session: a MAC this Worker made, over a read token that still reads.
  const tokenSha256 = await sessionTokenHash(value, env);
  if (tokenSha256 === null || !(await verifyReadToken({ sha256: tokenSha256 }, env))) return null;
  return { userId: readTokenUserId(tokenSha256), props: { method: "read-token", readTokenSha256: tokenSha256 }, email: null };
}
