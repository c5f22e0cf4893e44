// The shelf's pages, mounted in the read surface (src/worker/read/index.ts) under every access
// prefix: "/" answers browsers that ask for text/html (everyone else keeps the JSON 404, and both
// vary on Accept), /ui/… holds the shelf, skill and file views, and a private shelf's sign-in and
// sign-out. Each page is a computed answer (src/worker/read/respond.ts), cached per generation,
// advisories and arguments, so a warm page reads no storage.
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { oidcSettings, type OidcEnv } from "../../auth/oidc/config.ts";
import { OIDC_START_PATH } from "../../auth/oidc/flow.ts";
import { READ_COOKIE, readAccess, readUrlParams, shelfVisibility } from "../../auth/read-access.ts";
import { createReadTokenVerifier } from "../../auth/read-tokens.ts";
import { sessionValue, type SessionEnv } from "../../auth/session.ts";
import { classify, ShelfError } from "../../errors.ts";
import { applySecurityHeaders, NO_STORE } from "../../http/headers.ts";
import { openShelf, withShelf, type ReadContext, type ReadEnv } from "../../read/context.ts";
import { cachePolicy } from "../../read/policy.ts";
import { SkillBlockedError } from "../../shelf/errors.ts";
import { feedResponse } from "./feeds.ts";
import { fileView, skillPage } from "./skill-route.ts";
import { homeArgs, homeView } from "./home-data.ts";
import { HomePage } from "./home.tsx";
import { htmlResponse, pageLinks, uiBase, cachedPage } from "./page-context.ts";
import { MessagePage, SignInPage } from "./messages.tsx";
import { BlockedPage } from "./skill.tsx";
import { applyPageHeaders, crossSitePost, prefersHtml, readCookie, UI_PREFIX } from "./security.ts";

/** The identity-provider link on the sign-in page, where OpenID Connect is set up (auth/oidc). */
function oidcLink(c: Context<ReadEnv>): { name: string; href: string } | null {
  const settings = oidcSettings(c.env as OidcEnv);
  return settings ? { name: settings.name, href: OIDC_START_PATH } : null;
}

/** Longest sign-in form body read (a token and its field name). */
const SIGN_IN_MAX_BYTES = 4096;

/**
 * The shelf's answers as pages: missing things 404, blocked skills 410, storage trouble 503 (each
 * as classify() says); anything else goes on to the app's plain answer.
 */
async function asPage<T>(c: ReadContext, handler: () => Promise<T>): Promise<T | Response> {
  try {
    return await handler();
  } catch (thrown) {
    const error = classify(thrown);
    const links = pageLinks(c);
    if (error.code === "not_found") return htmlResponse(MessagePage({ links, title: "Not on this shelf", message: error.detail }), 404);
    if (error instanceof SkillBlockedError) return htmlResponse(BlockedPage({ links, name: error.skill, advisory: error.advisory }), 410);
    if (error.code === "storage_unavailable") {
      return htmlResponse(MessagePage({ links, title: "Try again shortly", message: "The shelf's storage did not answer." }), 503, error.headers);
    }
    throw error;
  }
}

/** Middleware: the pages' security headers on every answer that has no CSP of its own (raw files keep the sandbox one). */
const pageHeaders: MiddlewareHandler<ReadEnv> = async (c, next) => {
  await next();
  // Raw files and JSON refusals keep the strict policy they carry; pages get the page policy.
  if (c.res.headers.has("Content-Security-Policy") && !c.res.headers.get("Content-Type")?.startsWith("text/html")) return;
  await applyPageHeaders(c.res.headers);
};

/** Paths under the UI prefix that read access must not guard (they are how a token arrives or leaves). */
function isSignPath(path: string): boolean {
  return /\/ui\/sign-(in|out)$/.test(path);
}

/**
 * Middleware: read access for the pages, then the request's shelf service. A private shelf asked
 * without a token gets the sign-in form (401) instead of the JSON refusal; a cookie that no longer
 * verifies is cleared. The sign-in and sign-out paths need neither.
 */
function pageAccess(access: MiddlewareHandler<ReadEnv>): MiddlewareHandler<ReadEnv> {
  return async function pagesReadAccess(c, next) {
    if (isSignPath(c.req.path)) return next();
    try {
      // Only read access's own refusals land here: what `next` throws is answered below it.
      return await access(c, () => withShelf(c, next));
    } catch (error) {
      if (!(error instanceof ShelfError && error.code === "unauthorized") || c.req.header("Authorization")) throw error;
      const stale = getCookie(c, READ_COOKIE) !== undefined;
      const problem = stale ? "Your sign-in is no longer accepted (revoked or expired). Sign in again." : null;
      return htmlResponse(
        SignInPage({ links: { ui: uiBase(c), signOut: null }, problem, oidc: oidcLink(c) }),
        401,
        stale ? { "Set-Cookie": readCookie(null) } : {},
      );
    }
  };
}

/** The shelf page at `action` ("/" or "<ui>/"). */
function home(c: ReadContext, action: string): Promise<Response> {
  return asPage(c, async () => {
    const args = homeArgs({ q: c.req.query("q"), tag: c.req.query("tag"), page: c.req.query("page") });
    const links = pageLinks(c);
    // The current pointer's seq is in the key, pinned or not: "what's new" is the shelf's history,
    // which moves with every history entry, even one that keeps the generation.
    await c.get("shelf").generation();
    const seq = c.get("shelf").currentSeq;
    return cachedPage(
      c,
      "page-home",
      { ...args, action, signOut: links.signOut, seq },
      async () => HomePage(await homeView(c.get("shelf"), args, links, action)),
      true,
    );
  });
}

/** A small form body as text, read no further than `max` bytes (null past it). */
async function formText(body: ReadableStream<Uint8Array> | null, max: number): Promise<string | null> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(chunk.value);
  }
  return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
}

/** POST <ui>/sign-in: a read token from the form; verified, a session for it is kept in the pages' cookie. */
async function signIn(c: Context<ReadEnv>): Promise<Response> {
  const links = { ui: uiBase(c), signOut: null };
  if (crossSitePost(c.req.raw)) return htmlResponse(MessagePage({ links, title: "Refused", message: "Sign in from this shelf's own page." }), 403);
  if (shelfVisibility(c.env) === "public" || readUrlParams(c).token !== undefined) return c.redirect(`${links.ui}/`, 303);
  const text = await formText(c.req.raw.body, SIGN_IN_MAX_BYTES);
  if (text === null) return htmlResponse(SignInPage({ links, problem: "That is too long to be a read token.", oidc: oidcLink(c) }), 413);
  const token = (new URLSearchParams(text).get("token") ?? "").trim();
  if (token === "" || !(await verifyReadToken(token, c.env))) {
    return htmlResponse(SignInPage({ links, problem: token === "" ? "Enter a read token." : "That read token was not accepted.", oidc: oidcLink(c) }), 401);
  }
  // The cookie holds a session (a MAC over the token's hash), never the token itself.
  const session = await sessionValue(token, c.env as SessionEnv);
  if (session === null) {
    console.error("sign-in: no SHELF_SESSION_KEY secret to key sessions with (docs/pages.md, Sign-in)");
    return htmlResponse(
      MessagePage({ links, title: "Sign-in is not set up", message: "This shelf cannot keep a session; send the read token as a Bearer header instead." }),
      503,
    );
  }
  return new Response(null, { status: 303, headers: { Location: `${links.ui}/`, "Set-Cookie": readCookie(session), "Cache-Control": NO_STORE } });
}

const verifyReadToken = createReadTokenVerifier();

/**
 * "/" for agents and curl: still the JSON 404 (it is the pages' home, not a document), but naming
 * where a client goes instead, under this request's access prefix and pin.
 */
function rootForClients(c: ReadContext): ShelfError {
  const base = uiBase(c).slice(0, -UI_PREFIX.length);
  const links = {
    index: `${base}/.well-known/agent-skills/index.json`,
    shelf: `${base}/v1/shelf`,
    mcp: `${base}/mcp`,
    pages: `${base}${UI_PREFIX}/`,
  };
  return new ShelfError("not_found", 404, "There is no document at / (it is the shelf's page, for browsers).", {
    hint:
      `Skill clients read the index at ${links.index} (or the older /.well-known/skills/index.json); ` +
      `the read API starts at ${links.shelf}; MCP clients connect to ${links.mcp}; people browse ${links.pages}.`,
    members: { links },
  });
}

/**
 * The pages. Mount inside the read surface: `surface.route("/", pageRoutes(access))`, with the read
 * group's read access, which they wrap in their own (the sign-in form for a private shelf) and headers.
 * @example surface.route("/", pageRoutes(access))
 */
export function pageRoutes(access: MiddlewareHandler<ReadEnv> = readAccess() as unknown as MiddlewareHandler<ReadEnv>): Hono<ReadEnv> {
  const pages = new Hono<ReadEnv>();
  const shelf = openShelf();

  // "/" is negotiated: a page for browsers, the read group's JSON 404 for everyone else.
  pages.get(
    "/",
    async function varyOnAccept(c, next) {
      await next();
      c.res.headers.append("Vary", "Accept");
    },
    async function onlyForBrowsers(c, next) {
      if (!prefersHtml(c.req.header("Accept"))) throw rootForClients(c);
      return next();
    },
    pageHeaders,
    async function homeAccess(c, next) {
      // The sign-in cookie is sent to /ui only: a private shelf's home lives there.
      if (shelfVisibility(c.env) === "private" && readUrlParams(c).token === undefined && !c.req.header("Authorization")) {
        return c.redirect(`${uiBase(c)}/`, 303);
      }
      return access(c, next);
    },
    shelf,
    cachePolicy("generated"),
    (c) => home(c, new URL(c.req.url).pathname),
  );

  // Feed readers ask the site's root; the feed lives with the pages (their read access).
  pages.get("/feed.xml", (c) => c.redirect(`${uiBase(c)}/feed.xml`, 301));
  pages.use(`${UI_PREFIX}/*`, pageHeaders, pageAccess(access));
  pages.get(UI_PREFIX, (c) => c.redirect(`${uiBase(c)}/`, 301));
  pages.get(`${UI_PREFIX}/`, cachePolicy("generated"), (c) => home(c, `${uiBase(c)}/`));
  pages.get(`${UI_PREFIX}/feed.xml`, (c) => feedResponse(c, null));
  pages.get(`${UI_PREFIX}/skills/:name/feed.xml`, (c) => feedResponse(c, c.req.param("name")));
  pages.get(`${UI_PREFIX}/skills/:name`, cachePolicy("generated"), (c) => asPage(c, () => skillPage(c, c.req.param("name"))));
  pages.get(`${UI_PREFIX}/files/:name/:path{.+}`, cachePolicy("stored"), async (c) => {
    const file = await asPage(c, () => c.get("shelf").file(c.req.param("name"), c.req.param("path")));
    if (file instanceof Response) return file;
    // The bytes are answered as the static layout answers them (its 416 and 503 too), under its strict policy.
    const res = await fileView(c, file, c.req.query("download") !== undefined);
    applySecurityHeaders(res.headers);
    return res;
  });
  pages.get(`${UI_PREFIX}/sign-in`, async (c) => {
    if (shelfVisibility(c.env) === "public" || readUrlParams(c).token !== undefined) return c.redirect(`${uiBase(c)}/`, 303);
    return htmlResponse(SignInPage({ links: { ui: uiBase(c), signOut: null }, problem: null, oidc: oidcLink(c) }), 200);
  });
  pages.post(`${UI_PREFIX}/sign-in`, signIn);
  pages.post(`${UI_PREFIX}/sign-out`, async (c) => {
    const links = { ui: uiBase(c), signOut: null };
    if (crossSitePost(c.req.raw)) return htmlResponse(MessagePage({ links, title: "Refused", message: "Sign out from this shelf's own page." }), 403);
    return new Response(null, { status: 303, headers: { Location: `${links.ui}/sign-in`, "Set-Cookie": readCookie(null), "Cache-Control": NO_STORE } });
  });
  pages.all(`${UI_PREFIX}/*`, (c) =>
    htmlResponse(MessagePage({ links: pageLinks(c), title: "Not on this shelf", message: "This page is not on this shelf." }), 404),
  );
  return pages;
}
