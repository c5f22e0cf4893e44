// The person and the MCP host of an OAuth sign-in, played headlessly against any fetch: a browser
// for /oauth/authorize that keeps its cookies, signs in with a read token and answers the consent
// form as a person would; the state an MCP host keeps for the official client's flow; and the whole
// authorization-code flow with PKCE in one call (accessTokenFor). No workerd imports: the OAuth tests
// use it inside workerd, the budget bench from Node against a running workerd.
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

/** The read token the OAuth tests' shelves accept (as READ_TOKEN_SHA256). */
export const READ_TOKEN = "sk_oauth_read_token_0123456789abcdef";

/** A fetch into a shelf: the Worker in-process, or a running one over HTTP. */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

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

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Where the flow's client says it is redirected to; nothing listens there (the code is read from the 302). */
const FLOW_CALLBACK = "http://127.0.0.1:33419/callback";

/**
 * An access token from the shelf at `origin` through the whole authorization-code flow, as an MCP
 * host gets one: dynamic registration, the authorize page (signed in with `readToken`, consent
 * approved), the code exchanged with PKCE S256 and `resource`. `resource` is the shelf's issuer
 * (SHELF_OAUTH_ISSUER), which may differ from the origin a test reaches the Worker at.
 * @example const token = await accessTokenFor(fetch, { origin: "http://127.0.0.1:8787", resource: "http://127.0.0.1:8787", readToken })
 */
export async function accessTokenFor(fetchFn: FetchFn, options: { origin: string; resource: string; readToken?: string; scope?: string }): Promise<string> {
  const scope = options.scope ?? "skills:read";
  const registered = await fetchFn(`${options.origin}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Headless Agent",
      redirect_uris: [FLOW_CALLBACK],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope,
    }),
  });
  if (registered.status !== 201) throw new Error(`POST /oauth/register answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const authorize = new URL(`${options.origin}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: FLOW_CALLBACK,
    scope,
    state: "headless",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: options.resource,
  }))
    authorize.searchParams.set(name, value);
  const visit = await authorizeAsPerson(fetchFn, authorize.href, { readToken: options.readToken });
  const location = visit.final?.headers.get("Location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (visit.final?.status !== 302 || !code) {
    throw new Error(
      `the authorize page did not redirect with a code (${visit.final?.status ?? visit.consentPage?.status ?? visit.signInPage.status}): ${(visit.consentHtml ?? visit.signInHtml).slice(0, 500)}`,
    );
  }
  const exchanged = await fetchFn(`${options.origin}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: FLOW_CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
      resource: options.resource,
    }).toString(),
  });
  if (exchanged.status !== 200) throw new Error(`POST /oauth/token answered ${exchanged.status}: ${await exchanged.text()}`);
  return ((await exchanged.json()) as { access_token: string }).access_token;
}
