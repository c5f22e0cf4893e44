// The pages' header policy: a strict CSP of their own (nothing remote, no inline code but the one
// style sheet and script, allowed by hash), the read group's other security headers, and the
// sign-in cookie's attributes. Raw files under /ui/files keep the sandbox CSP every file gets.
import { READ_COOKIE } from "../../auth/read-access.ts";
import { SESSION_MAX_AGE_SECONDS } from "../../auth/session.ts";
import { securityHeaders, type HeaderPolicy } from "../../http/headers.ts";
import { PAGE_CSS, PAGE_SCRIPT } from "./assets.ts";

/** The path prefix of the pages (the shelf's home is also answered at "/" for browsers). */
export const UI_PREFIX = "/ui";

/** How long the browser keeps the sign-in cookie: as long as the session it holds works (auth/session.ts). */
export const READ_COOKIE_MAX_AGE_SECONDS = SESSION_MAX_AGE_SECONDS;

async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

let pagePolicy: Promise<string> | undefined;

/**
 * The pages' Content-Security-Policy: nothing by default; the inline style and script by their
 * SHA-256 only; images, forms and nothing else from the shelf's own origin; never framed.
 * @example (await pageCsp()).startsWith("default-src 'none'") // => true
 */
export function pageCsp(): Promise<string> {
  pagePolicy ??= Promise.all([sha256Base64(PAGE_CSS), sha256Base64(PAGE_SCRIPT)]).then(([style, script]) =>
    [
      "default-src 'none'",
      `style-src 'sha256-${style}'`,
      `script-src 'sha256-${script}'`,
      "img-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  );
  return pagePolicy;
}

let pageHeaders: Promise<HeaderPolicy> | undefined;

/** Sets the pages' security headers on an HTML answer (http/headers.ts securityHeaders with the pages' CSP, built once). */
export async function applyPageHeaders(headers: Headers): Promise<void> {
  pageHeaders ??= pageCsp().then((csp) => securityHeaders({ contentSecurityPolicy: csp }));
  (await pageHeaders)(headers);
}

/**
 * The Set-Cookie value that stores a sign-in session for the pages (or, with null, clears it): only
 * sent to /ui, never readable by script, never sent on cross-site subrequests or form posts.
 * @example readCookie("s1.ab….Mac") // => "skillshelf_read=s1.ab….Mac; Path=/ui; Max-Age=43200; HttpOnly; Secure; SameSite=Lax"
 */
export function readCookie(session: string | null): string {
  const value = session === null ? "" : encodeURIComponent(session);
  const age = session === null ? 0 : READ_COOKIE_MAX_AGE_SECONDS;
  return `${READ_COOKIE}=${value}; Path=${UI_PREFIX}; Max-Age=${age}; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * Whether an Accept header asks for a page: text/html (or XHTML) listed, and not less preferred
 * than JSON. `*\/*` alone (curl, fetch, agents) is not a page request.
 * @example prefersHtml("text/html,application/xhtml+xml,*\/*;q=0.8") // => true
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === "text/html" || type === "application/xhtml+xml") html = Math.max(html, q);
    else if (type === "application/json" || type.endsWith("+json")) json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}

/**
 * True unless the browser shows a form post came from this shelf's own pages (login and logout
 * CSRF): `Sec-Fetch-Site: same-origin`, or, from a browser without Fetch Metadata, an `Origin`
 * that is exactly this origin. `Origin: null` (which an old browser sends for a cross-site form
 * too) and a post with neither header are refused.
 * @example crossSitePost(new Request("https://s.test/ui/sign-out", { method: "POST", headers: { Origin: "https://evil.test" } })) // => true
 */
export function crossSitePost(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null) return site !== "same-origin";
  return request.headers.get("Origin") !== new URL(request.url).origin;
}
