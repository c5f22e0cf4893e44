// The OAuth routes of a private shelf, mounted before the read group: the authorization endpoint
// (the sign-in and consent pages), the library's token, registration and metadata endpoints, the
// RFC 9728 protected resource metadata, and the admin API's grants index. Where OAuth is off for
// the Worker's config (config.ts), every one of these paths falls through to what answered it
// before (the read group's 404, the admin API's), byte for byte.
import { Hono, type MiddlewareHandler } from "hono";
import { publishAuth, type PublishAuthBindings } from "../admin/auth.ts";
import { adminError } from "../admin/errors.ts";
import { applySecurityHeaders, NO_STORE } from "../http/headers.ts";
import { authorizeGet, authorizePost } from "./authorize.ts";
import { OAUTH_PATHS, oauthSettings, type OAuthEnv, type OAuthSettings } from "./config.ts";
import { listGrants, revokeGrant, revokeUserGrants } from "./grants.ts";
import { oidcRoutes } from "./oidc.ts";
import { type ShelfOAuth, shelfOAuth } from "./server.ts";

export { oauthSignIn } from "./access.ts";

type OAuthRouteEnv = { Bindings: OAuthEnv & PublishAuthBindings; Variables: { oauth: { roles: ShelfOAuth; settings: OAuthSettings } } };

/** Middleware: on a Worker with OAuth on, loads its roles into `oauth`; elsewhere passes the request on untouched. */
const whenOn: MiddlewareHandler<OAuthRouteEnv> = async function oauthWhenOn(c, next) {
  const settings = oauthSettings(c.env);
  if (!settings) return next();
  c.set("oauth", { roles: await shelfOAuth(settings), settings });
  return next();
};

/** The execution context Hono holds, or a stand-in when a test calls the app without one. */
function executionContext(c: { executionCtx: unknown }): LibraryContext {
  try {
    return c.executionCtx as LibraryContext;
  } catch {
    return { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as LibraryContext;
  }
}

/** The execution context type the library's fetch takes (the runtime's, which Hono's is a subset of). */
type LibraryContext = Parameters<ShelfOAuth["server"]["fetch"]>[2];

/** A library answer with the read group's security headers (its CORS and Cache-Control kept). */
function secured(response: Response): Response {
  const out = new Response(response.body, response);
  applySecurityHeaders(out.headers);
  return out;
}

/**
 * The OAuth routes. Mount before the admin catch-all and the read group: `app.route("/", oauthRoutes())`.
 * @example app.route("/", oauthRoutes())
 */
export function oauthRoutes(): Hono<OAuthRouteEnv> {
  const routes = new Hono<OAuthRouteEnv>();
  const paths = [
    OAUTH_PATHS.authorize,
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.authorizationServerMetadata,
    OAUTH_PATHS.protectedResourceMetadata,
  ];
  for (const path of paths) routes.use(path, whenOn);
  routes.use("/admin/v1/oauth/*", whenOn);

  routes.get(OAUTH_PATHS.authorize, async (c, next) => {
    const on = c.get("oauth");
    return on ? authorizeGet(c.req.raw, c.env, on.roles, on.settings) : next();
  });
  routes.post(OAUTH_PATHS.authorize, async (c, next) => {
    const on = c.get("oauth");
    return on ? authorizePost(c.req.raw, c.env, on.roles, on.settings) : next();
  });
  // The library's own endpoints: token (and revocation), registration, authorization-server metadata.
  for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.register, OAUTH_PATHS.authorizationServerMetadata]) {
    routes.all(path, async (c, next) => {
      const on = c.get("oauth");
      return on ? secured(await on.roles.server.fetch(c.req.raw, c.env, executionContext(c))) : next();
    });
  }
  routes.all(OAUTH_PATHS.protectedResourceMetadata, async (c, next) => {
    const on = c.get("oauth");
    return on ? secured(await on.roles.metadata.fetch(c.req.raw, c.env, executionContext(c))) : next();
  });

  // The grants index, behind the publish token like the rest of the admin API.
  const grants = new Hono<OAuthRouteEnv>();
  grants.use("*", publishAuth());
  grants.use("*", async (c, next) => {
    if (!c.get("oauth")) throw adminError("not_found", "OAuth is not turned on for this shelf (SHELF_OAUTH_ISSUER and OAUTH_KV; docs/oauth.md).");
    await next();
    c.res.headers.set("Cache-Control", NO_STORE);
  });
  grants.get("/", async (c) => {
    const { roles, settings } = c.get("oauth");
    return c.json({ grants: await listGrants(settings.kv, roles.helpers(c.env)) });
  });
  // DELETE ?user=<email>: every grant of one person who signed in with the identity provider.
  grants.delete("/", async (c) => {
    const { roles, settings } = c.get("oauth");
    const email = c.req.query("user")?.trim() ?? "";
    if (!/^[^\s@]{1,128}@[^\s@]{1,253}$/.test(email))
      throw adminError("bad_request", "DELETE /admin/v1/oauth/grants needs ?user=<e-mail address>, or a grant id in the path.");
    const revoked = await revokeUserGrants(settings.kv, roles.helpers(c.env), email);
    return c.json({ user: email.toLowerCase(), revoked });
  });
  grants.delete("/:grant", async (c) => {
    const { roles, settings } = c.get("oauth");
    const grantId = c.req.param("grant");
    if (!(await revokeGrant(settings.kv, roles.helpers(c.env), grantId)))
      throw adminError("not_found", `No grant ${JSON.stringify(grantId)} on this shelf; list them with skillshelf grants list.`);
    return c.json({ revoked: grantId });
  });
  routes.route("/admin/v1/oauth/grants", grants);
  // Sign-in with the team's identity provider: for the authorize step and for the pages.
  routes.route("/", oidcRoutes());
  return routes;
}
