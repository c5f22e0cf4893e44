// Attacks on the shelf's OAuth, each tried against the real Worker: a replayed code, a wrong PKCE
// verifier, an unregistered redirect URI, another shelf's `resource`, an expired token, a token in
// the query string, a forged or cross-site consent form, a wrong read token at sign-in. None
// succeeds and none is answered with a 5xx.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { authorizeAsPerson, CookieJar, type FetchFn, hiddenField, oauthEnv, ORIGIN, postForm, READ_TOKEN, shelfFetch, testEnv } from "./helpers.ts";

const CALLBACK = "https://agent.example/callback";
let fetchFn: FetchFn;

/** Every answer of this file goes through here: a 5xx fails the test wherever it happens. */
function checked(inner: FetchFn): FetchFn {
  return async (input, init) => {
    const response = await inner(input, init);
    expect(response.status, `${init?.method ?? "GET"} ${String(input)}`).toBeLessThan(500);
    return response;
  };
}

beforeAll(async () => {
  await publishFixtureShelf(testEnv, [{ name: "alpha", description: "A private skill." }]);
  fetchFn = checked(shelfFetch(await oauthEnv()));
});

afterEach(() => {
  vi.useRealTimers();
});

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A PKCE pair: a random verifier and its S256 challenge. */
async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

async function register(): Promise<string> {
  const res = await fetchFn(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Adversary Test",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope: "skills:read offline_access",
    resource: ORIGIN,
    ...extra,
  });
  return `${ORIGIN}/oauth/authorize?${params}`;
}

function exchange(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetchFn(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: CALLBACK,
      ...extra,
    }).toString(),
  });
}

/** A code issued to a fresh client, with its verifier. */
async function issuedCode(): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const visit = await authorizeAsPerson(fetchFn, authorizeUrl(clientId, challenge));
  expect(visit.final?.status).toBe(302);
  const code = new URL(visit.final!.headers.get("Location")!).searchParams.get("code")!;
  return { clientId, code, verifier };
}

describe("the token endpoint", () => {
  it("refuses a replayed authorization code", async () => {
    const { clientId, code, verifier } = await issuedCode();
    expect((await exchange(clientId, code, verifier)).status).toBe(200);
    const replay = await exchange(clientId, code, verifier);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("refuses a code with the wrong PKCE verifier", async () => {
    const { clientId, code } = await issuedCode();
    const res = await exchange(clientId, code, (await pkce()).verifier);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("refuses a token request naming another shelf as the resource", async () => {
    const { clientId, code, verifier } = await issuedCode();
    const res = await exchange(clientId, code, verifier, { resource: "https://other-shelf.test" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_target");
  });
});

describe("the authorization endpoint", () => {
  it("never redirects to a redirect URI the client did not register: a page says why", async () => {
    const clientId = await register();
    const res = await fetchFn(authorizeUrl(clientId, (await pkce()).challenge, { redirect_uri: "https://evil.example/steal" }), { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("Location")).toBeNull();
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    expect(await res.text()).toContain("Invalid redirect URI");
  });

  it("answers an authorization request for another shelf's resource with invalid_target, and no code", async () => {
    const clientId = await register();
    const res = await fetchFn(authorizeUrl(clientId, (await pkce()).challenge, { resource: "https://other-shelf.test" }), { redirect: "manual" });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get("Location")!);
    expect(back.origin + back.pathname).toBe(CALLBACK);
    expect(back.searchParams.get("error")).toBe("invalid_target");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("refuses a wrong read token at sign-in, and shows no consent", async () => {
    const clientId = await register();
    const visit = await authorizeAsPerson(fetchFn, authorizeUrl(clientId, (await pkce()).challenge), { readToken: "sk_not_the_token_0123456789abcdef" });
    expect(visit.consentPage?.status).toBe(401);
    expect(visit.consentHtml).toContain("That read token was not accepted.");
    expect(visit.final).toBeUndefined();
  });

  it("refuses a consent form posted from another site, one without the browser's consent cookie, and a forged sign-in", async () => {
    const clientId = await register();
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const jar = new CookieJar();
    const page = await fetchFn(url, { redirect: "manual" });
    jar.take(page);
    const handle = hiddenField(await page.text(), "handle")!;
    const consent = await postForm(fetchFn, url, { handle, step: "sign-in", token: READ_TOKEN }, jar);
    const signIn = hiddenField(await consent.text(), "sign_in")!;
    // The consent form may end in a redirect to the client's callback, and nowhere else.
    expect(consent.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://agent.example;");
    const approve = { handle, step: "consent", sign_in: signIn, decision: "approve" };

    const crossSite = await postForm(fetchFn, url, approve, jar, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("Location")).toBeNull();

    // The attacker's own browser has no consent cookie for this handle (it is bound to the victim's).
    const noCookie = await postForm(fetchFn, url, approve, new CookieJar());
    expect(noCookie.status).toBe(400);
    expect(noCookie.headers.get("Location")).toBeNull();

    const forged = await postForm(fetchFn, url, { ...approve, sign_in: `s1.${"0".repeat(64)}.1.${"A".repeat(43)}` }, jar);
    expect(forged.status).toBe(401);
    expect(forged.headers.get("Location")).toBeNull();

    // The real browser still completes, once; the handle then works no more.
    const real = await postForm(fetchFn, url, approve, jar);
    expect(real.status).toBe(302);
    expect(new URL(real.headers.get("Location")!).searchParams.get("code")).toBeTruthy();
    const again = await postForm(fetchFn, url, approve, jar);
    expect(again.status).toBe(400);
  });
});

describe("the read routes", () => {
  async function accessToken(): Promise<string> {
    const { clientId, code, verifier } = await issuedCode();
    const res = await exchange(clientId, code, verifier);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("refuses an expired access token", async () => {
    const token = await accessToken();
    expect((await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 2 * 60 * 60 * 1000);
    const res = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("never takes a token from the query string", async () => {
    const token = await accessToken();
    for (const path of ["/v1/catalog", "/skills/alpha/SKILL.md", "/.well-known/agent-skills/index.json"]) {
      for (const name of ["access_token", "token"]) {
        const res = await fetchFn(`${ORIGIN}${path}?${name}=${encodeURIComponent(token)}`);
        expect(res.status, `${path}?${name}`).toBe(401);
      }
    }
    const mcp = await fetchFn(`${ORIGIN}/mcp?access_token=${encodeURIComponent(token)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401);
  });

  it("does not take an OAuth token as a capability URL, nor the pages' cookie", async () => {
    const token = await accessToken();
    expect((await fetchFn(`${ORIGIN}/c/${encodeURIComponent(token)}/skills/alpha/SKILL.md`)).status).toBe(404);
    const ui = await fetchFn(`${ORIGIN}/ui/`, { headers: { Accept: "text/html", Cookie: `skillshelf_read=${encodeURIComponent(token)}` } });
    expect(ui.status).toBe(401);
  });
});
