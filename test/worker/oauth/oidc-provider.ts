// A local OpenID Connect provider for the tests, served by the test through a stubbed fetch:
// discovery, a JWKS (keys it can rotate), an authorization endpoint where the person signs in at
// once as `person`, and a token endpoint that checks the client secret, the one-time code, the
// redirect URI and PKCE, then signs an ID token with WebCrypto. `misbehave` bends the next ID
// token (another audience, an old expiry, a wrong nonce, a broken signature, a replayed token).
import { vi } from "vitest";
import { CookieJar, type FetchFn, hiddenField, postForm } from "./helpers.ts";

export const IDP = "https://idp.test";
export const CLIENT_ID = "shelf-client-1";
export const CLIENT_SECRET = "shelf-client-secret-0123456789";

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
const text = (value: unknown) => b64url(new TextEncoder().encode(JSON.stringify(value)));

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JsonWebKey & { kid: string };
}

async function newKey(kid: string): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return {
    kid,
    privateKey: pair.privateKey,
    publicJwk: { kty: jwk.kty!, n: jwk.n!, e: jwk.e!, kid, use: "sig", alg: "RS256" } as JsonWebKey & { kid: string },
  };
}

/** How the next ID token is bent: its header and claims, or the token itself. */
export interface Misbehaviour {
  claims?: (claims: Record<string, unknown>) => Record<string, unknown>;
  header?: (header: Record<string, unknown>) => Record<string, unknown>;
  /** Signs with this key instead of the current one (its kid still says the current one's unless header changes it). */
  signWith?: CryptoKey;
  /** Flips a bit of the signature. */
  breakSignature?: boolean;
  /** Answers this token instead of a new one. */
  replay?: string;
  /** The token endpoint's answer instead of a token. */
  tokenError?: { status: number; body: unknown };
}

export class OidcProviderStub {
  person: Record<string, unknown> = { sub: "user-ana", email: "ana@acme.example", email_verified: true, name: "Ana" };
  /** The next ID token is bent this way (then it is reset). */
  misbehave: Misbehaviour | null = null;
  /** Discovery answers this status instead of the document. */
  discoveryStatus = 200;
  /** Keys the JWKS publishes; the last one signs. */
  published: SigningKey[] = [];
  issued: string[] = [];
  jwksFetches = 0;
  private readonly codes = new Map<string, { redirectUri: string; nonce: string; challenge: string; person: Record<string, unknown> }>();

  static async start(): Promise<OidcProviderStub> {
    const stub = new OidcProviderStub();
    stub.published = [await newKey("key-1")];
    return stub;
  }

  /** A new signing key, published beside the old one (`keepOld`) or alone. */
  async rotate(kid: string, keepOld = false): Promise<void> {
    const key = await newKey(kid);
    this.published = keepOld ? [...this.published, key] : [key];
  }

  /** A key the JWKS never publishes, to sign with. */
  async strangerKey(): Promise<CryptoKey> {
    return (await newKey("stranger")).privateKey;
  }

  /** Routes the Worker's fetches to the provider; everything else goes out as before. */
  install(): void {
    const real = globalThis.fetch;
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(String(input), init);
      return request.url.startsWith(`${IDP}/`) ? this.handle(request) : real(input, init);
    });
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    if (url.pathname === "/.well-known/openid-configuration") {
      if (this.discoveryStatus !== 200) return new Response("unavailable", { status: this.discoveryStatus });
      return json({
        issuer: IDP,
        authorization_endpoint: `${IDP}/authorize`,
        token_endpoint: `${IDP}/token`,
        jwks_uri: `${IDP}/jwks`,
        response_types_supported: ["code"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      });
    }
    if (url.pathname === "/jwks") {
      this.jwksFetches += 1;
      return json({ keys: this.published.map((k) => k.publicJwk) });
    }
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      if (
        q.get("client_id") !== CLIENT_ID ||
        q.get("response_type") !== "code" ||
        q.get("code_challenge_method") !== "S256" ||
        !q.get("scope")?.split(" ").includes("openid")
      ) {
        return new Response("bad authorization request", { status: 400 });
      }
      const code = `code-${crypto.randomUUID()}`;
      this.codes.set(code, { redirectUri: q.get("redirect_uri")!, nonce: q.get("nonce")!, challenge: q.get("code_challenge")!, person: { ...this.person } });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return new Response(null, { status: 302, headers: { Location: back.href } });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer()));
      if (request.headers.get("Authorization") !== `Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`) return json({ error: "invalid_client" }, 401);
      const grant = this.codes.get(form.get("code") ?? "");
      this.codes.delete(form.get("code") ?? "");
      if (!grant || grant.redirectUri !== form.get("redirect_uri")) return json({ error: "invalid_grant" }, 400);
      const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(form.get("code_verifier") ?? ""))));
      if (challenge !== grant.challenge) return json({ error: "invalid_grant", error_description: "PKCE" }, 400);
      const bend = this.misbehave ?? {};
      this.misbehave = null;
      if (bend.tokenError) return json(bend.tokenError.body, bend.tokenError.status);
      const idToken = bend.replay ?? (await this.sign(grant.nonce, grant.person, bend));
      this.issued.push(idToken);
      return json({ access_token: "idp-access", token_type: "Bearer", expires_in: 3600, id_token: idToken });
    }
    return new Response("not found", { status: 404 });
  }

  private async sign(nonce: string, person: Record<string, unknown>, bend: Misbehaviour): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key = this.published.at(-1)!;
    const header = (bend.header ?? ((h) => h))({ alg: "RS256", typ: "JWT", kid: key.kid });
    const claims = (bend.claims ?? ((c) => c))({ iss: IDP, aud: CLIENT_ID, iat: now, exp: now + 300, nonce, ...person });
    const signed = `${text(header)}.${text(claims)}`;
    const signature = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", bend.signWith ?? key.privateKey, new TextEncoder().encode(signed)));
    if (bend.breakSignature) signature[10]! ^= 1;
    return `${signed}.${b64url(signature)}`;
  }
}

/** The Worker vars that sign in with this provider, admitting `domains` and/or `claim`. */
export function oidcVars(options: { domains?: string; claim?: string } = { domains: "acme.example" }): Record<string, string> {
  return {
    SHELF_OIDC_ISSUER: IDP,
    SHELF_OIDC_CLIENT_ID: CLIENT_ID,
    SHELF_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    SHELF_OIDC_NAME: "Acme SSO",
    ...(options.domains ? { SHELF_OIDC_ALLOWED_DOMAINS: options.domains } : {}),
    ...(options.claim ? { SHELF_OIDC_REQUIRED_CLAIM: options.claim } : {}),
  };
}

/** What the headless browser saw signing in with the provider. */
export interface ProviderVisit {
  /** The shelf's sign-in step (or the pages' sign-in page). */
  start?: Response;
  /** /oidc/sign-in's answer (a 303 to the provider). */
  leave: Response;
  /** /oidc/callback's answer: the consent page, the pages' redirect, or a refusal. */
  callback?: Response;
  callbackHtml?: string;
  callbackUrl?: string;
  /** The consent form's answer (a 302 to the app). */
  final?: Response;
}

/**
 * Plays the person signing in with the provider: follows `startPath` on the shelf (a sign-in link),
 * signs in at the provider (at once, as `idp.person`) and comes back to the callback. With
 * `decision`, also answers the consent page that follows.
 */
export async function signInWithProvider(
  fetchFn: FetchFn,
  idp: OidcProviderStub,
  origin: string,
  startPath: string,
  options: { jar?: CookieJar; decision?: "approve" | "deny"; authorizationUrl?: string } = {},
): Promise<ProviderVisit> {
  const jar = options.jar ?? new CookieJar();
  const leave = await fetchFn(origin + startPath, { redirect: "manual", headers: { Cookie: jar.header() } });
  jar.take(leave);
  const visit: ProviderVisit = { leave };
  if (leave.status !== 303) return visit;
  const atProvider = await idp.handle(new Request(leave.headers.get("Location")!));
  visit.callbackUrl = atProvider.headers.get("Location")!;
  visit.callback = await fetchFn(visit.callbackUrl, { redirect: "manual", headers: { Cookie: jar.header() } });
  jar.take(visit.callback);
  visit.callbackHtml = await visit.callback.text();
  const signIn = hiddenField(visit.callbackHtml, "sign_in");
  const handle = hiddenField(visit.callbackHtml, "handle");
  if (options.decision && options.authorizationUrl && visit.callback.status === 200 && signIn !== null && handle !== null) {
    visit.final = await postForm(fetchFn, options.authorizationUrl, { handle, step: "consent", sign_in: signIn, decision: options.decision }, jar);
  }
  return visit;
}

/** The identity-provider link on a sign-in page, as its href (unescaped), or null. */
export function providerLink(html: string): string | null {
  const match = /<a href="([^"]*)" class="sign-in-provider">/.exec(html);
  return match ? match[1]!.replaceAll("&amp;", "&") : null;
}

/**
 * Plays the person at an authorization URL choosing the provider: opens the sign-in step, follows
 * its provider link, signs in, and answers the consent page with `decision`.
 */
export async function authorizeWithProvider(
  fetchFn: FetchFn,
  idp: OidcProviderStub,
  authorizationUrl: string,
  decision: "approve" | "deny" = "approve",
  jar = new CookieJar(),
): Promise<ProviderVisit> {
  const start = await fetchFn(authorizationUrl, { redirect: "manual" });
  jar.take(start);
  const html = await start.text();
  const link = providerLink(html);
  if (start.status !== 200 || link === null) throw new Error(`no provider link on the sign-in step (${start.status}): ${html.slice(0, 300)}`);
  const origin = new URL(authorizationUrl).origin;
  return { ...(await signInWithProvider(fetchFn, idp, origin, link, { jar, decision, authorizationUrl })), start };
}
