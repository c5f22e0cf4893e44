// What every page handler shares: where the request's links go (access prefix, pin, UI prefix),
// whether it shows the sign-out form, and the two ways a page is answered: a computed answer
// (src/worker/read/respond.ts) cached per generation, advisories, prefix and arguments, or an
// uncached one (sign-in, refusals).
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { Child } from "hono/jsx";
import { computed } from "../../read/respond.ts";
import { READ_COOKIE, readUrlParams, shelfVisibility } from "../../auth/read-access.ts";
import { NO_STORE } from "../../http/headers.ts";
import type { ReadContext, ReadEnv } from "../../read/context.ts";
import { htmlDocument, type PageLinks } from "./layout.tsx";
import { UI_PREFIX } from "./security.ts";

/** The media type of every page. */
export const HTML_TYPE = "text/html; charset=utf-8";

/** The access prefix and pin of a request from its path parameters, read before read access runs. */
export function uiBase(c: Context<ReadEnv>): string {
  const { token, generation: pinned } = readUrlParams(c);
  return `${token === undefined ? "" : `/c/${encodeURIComponent(token)}`}${pinned === undefined ? "" : `/g/${encodeURIComponent(pinned)}`}${UI_PREFIX}`;
}

/** Where this request's page links go, and whether it shows the sign-out form (signed in by cookie). */
export function pageLinks(c: Context<ReadEnv>): PageLinks {
  const byCookie = readUrlParams(c).token === undefined && !c.req.header("Authorization") && getCookie(c, READ_COOKIE) !== undefined;
  const signedIn = byCookie && shelfVisibility(c.env) === "private";
  return { ui: uiBase(c), signOut: signedIn ? `${UI_PREFIX}/sign-out` : null };
}

/** An HTML answer that is not a cached view (sign-in, errors, blocked skills): never stored by caches. */
export async function htmlResponse(page: Child, status: number, headers: Record<string, string> = {}): Promise<Response> {
  return new Response(await htmlDocument(page), { status, headers: { "Content-Type": HTML_TYPE, "Cache-Control": NO_STORE, ...headers } });
}

/**
 * A page as a computed answer: keyed by the route, generation, advisories, access prefix and
 * `args`; 304 from the key alone; built once per isolate.
 */
export function cachedPage(c: ReadContext, route: string, args: Record<string, unknown>, render: () => Promise<Child>, shelfWide = false): Promise<Response> {
  return computed(c, { route, args, links: true, shelfWide, contentType: HTML_TYPE, build: async () => htmlDocument(await render()) });
}
