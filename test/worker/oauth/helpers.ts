// A private shelf with OAuth on, for the OAuth tests: its env (the test's OAUTH_KV, the shelf's
// origin as issuer, a read token and a publish token), a fetch into the whole Worker, and a headless
// browser for /oauth/authorize that keeps its cookies, signs in with the read token and answers the
// consent form as a person would.
import { env } from "cloudflare:workers";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { TOKEN as PUBLISH_TOKEN } from "../admin/helpers.ts";

export const ORIGIN = "https://shelf.test";
export const READ_TOKEN = "sk_oauth_read_token_0123456789abcdef";
export { PUBLISH_TOKEN };

/** The test runtime's bindings with the OAuth test namespaces (vitest.config.ts). */
export const testEnv = env as typeof env & { OAUTH_KV: KVNamespace; OAUTH_KV_OTHER: KVNamespace };

/** A private shelf's env with OAuth on at `issuer`, its grants kept in `kv`. */
export async function oauthEnv(options: { issuer?: string; kv?: KVNamespace; readToken?: string } = {}): Promise<Record<string, unknown>> {
  return {
    ...testEnv,
    SHELF_VISIBILITY: "private",
    READ_TOKEN_SHA256: await sha256Hex(options.readToken ?? READ_TOKEN),
    PUBLISH_TOKEN_SHA256: await sha256Hex(PUBLISH_TOKEN),
    SHELF_OAUTH_ISSUER: options.issuer ?? ORIGIN,
    OAUTH_KV: options.kv ?? testEnv.OAUTH_KV,
  };
}

/** A fetch into the whole Worker with `bindings` (what an HTTP client of the shelf would see). */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
export function shelfFetch(bindings: object): FetchFn {
  return async (input, init) => app.request(input instanceof Request ? input : String(input), init, bindings);
}

/** The value of a hidden form field in a page, or null. */
export function hiddenField(html: string, name: string): string | null {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return match ? match[1]!.replaceAll("&amp;", "&").replaceAll("&quot;", '"') : null;
}

/** A browser's cookie jar, enough for the library's __Host- consent cookie. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      if (at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** What the headless browser saw at each step. */
export interface AuthorizeVisit {
  signInPage: Response;
  signInHtml: string;
  consentPage?: Response;
  consentHtml?: string;
  final?: Response;
}

/** Posts a form from the shelf's own page, as a browser would (same-origin Fetch Metadata, the jar's cookies). */
export function postForm(fetchFn: FetchFn, url: string, fields: Record<string, string>, jar: CookieJar, extra: Record<string, string> = {}): Promise<Response> {
  return fetchFn(url, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin", Cookie: jar.header(), ...extra },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Plays the person at the authorization URL: opens it, signs in with `readToken`, then answers
 * the consent form with `decision`. Each step's answer is returned for the test to check.
 */
export async function authorizeAsPerson(
  fetchFn: FetchFn,
  authorizationUrl: string,
  options: { readToken?: string; decision?: "approve" | "deny"; jar?: CookieJar } = {},
): Promise<AuthorizeVisit> {
  const jar = options.jar ?? new CookieJar();
  const signInPage = await fetchFn(authorizationUrl, { redirect: "manual" });
  jar.take(signInPage);
  const signInHtml = await signInPage.text();
  const visit: AuthorizeVisit = { signInPage, signInHtml };
  const handle = hiddenField(signInHtml, "handle");
  if (signInPage.status !== 200 || handle === null) return visit;
  visit.consentPage = await postForm(fetchFn, authorizationUrl, { handle, step: "sign-in", token: options.readToken ?? READ_TOKEN }, jar);
  visit.consentHtml = await visit.consentPage.text();
  const signIn = hiddenField(visit.consentHtml, "sign_in");
  if (visit.consentPage.status !== 200 || signIn === null) return visit;
  visit.final = await postForm(fetchFn, authorizationUrl, { handle, step: "consent", sign_in: signIn, decision: options.decision ?? "approve" }, jar);
  return visit;
}

/**
 * The OAuth state an MCP host keeps (client registration, tokens, PKCE verifier, discovery), for
 * the official client's flow; `browse` plays the person's browser at the authorization URL and
 * returns the callback URL the shelf redirected to.
 */
export class HeadlessOAuthClient implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  stored?: StoredOAuthTokens;
  verifier = "";
  discovery?: OAuthDiscoveryState;
  callback?: URL;
  authorizationUrl?: URL;
  private readonly app: { name: string; callback: string; scope: string; state: string };
  private readonly browse: (authorizationUrl: URL) => Promise<URL>;
  constructor(app: { name: string; callback: string; scope: string; state: string }, browse: (authorizationUrl: URL) => Promise<URL>) {
    this.app = app;
    this.browse = browse;
  }
  get redirectUrl() {
    return this.app.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.app.name,
      redirect_uris: [this.app.callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: this.app.scope,
    };
  }
  state() {
    return this.app.state;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.callback = await this.browse(url);
  }
}
