// Sign-in with the team's OpenID Connect provider (src/worker/auth/oidc, src/worker/oauth/oidc.ts)
// against a provider the test serves (oidc-provider.ts: discovery, JWKS, code flow): a member of
// the allowed domain connects an MCP client through the official client's OAuth flow and reads;
// the grant names them and `?user=` revokes it; the pages' sign-in uses the same method. Every way
// an ID token or a callback can be wrong is refused, and none is answered with a 5xx.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetProviders } from "../../../src/worker/auth/oidc/provider.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { CookieJar, type FetchFn, HeadlessOAuthClient, oauthEnv, ORIGIN, PUBLISH_TOKEN, shelfFetch, testEnv } from "./helpers.ts";
import { authorizeWithProvider, OidcProviderStub, oidcVars, providerLink, signInWithProvider } from "./oidc-provider.ts";

const CALLBACK = "http://127.0.0.1:33419/callback";

/** Every answer of this file goes through here: a 5xx fails the test wherever it happens. */
function checked(inner: FetchFn): FetchFn {
  return async (input, init) => {
    const response = await inner(input, init);
    expect(response.status, `${init?.method ?? "GET"} ${String(input)}`).toBeLessThan(500);
    return response;
  };
}

let idp: OidcProviderStub;
let fetchFn: FetchFn;

beforeAll(async () => {
  await publishFixtureShelf(testEnv, [{ name: "alpha", description: "A private skill." }]);
});

beforeEach(async () => {
  forgetProviders();
  idp = await OidcProviderStub.start();
  idp.install();
  fetchFn = checked(shelfFetch({ ...(await oauthEnv()), ...oidcVars() }));
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A registered client and an authorization URL for it (PKCE S256, the shelf as resource). */
async function authorizationUrl(fetch: FetchFn = fetchFn): Promise<{ url: string; clientId: string; verifier: string }> {
  const res = await fetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "OIDC Test Agent",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
    }),
  });
  expect(res.status).toBe(201);
  const { client_id: clientId } = (await res.json()) as { client_id: string };
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "app-state",
    scope: "skills:read",
    resource: ORIGIN,
  });
  return { url: `${ORIGIN}/oauth/authorize?${params}`, clientId, verifier };
}

/** Signs in through the authorize step and exchanges the code; the access token, or the visit that failed. */
async function connectApp(fetch: FetchFn = fetchFn): Promise<{ token?: string; visit: Awaited<ReturnType<typeof authorizeWithProvider>> }> {
  const { url, clientId, verifier } = await authorizationUrl(fetch);
  const visit = await authorizeWithProvider(fetch, idp, url);
  if (visit.final?.status !== 302) return { visit };
  const code = new URL(visit.final.headers.get("Location")!).searchParams.get("code")!;
  const exchanged = await fetch(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
      resource: ORIGIN,
    }).toString(),
  });
  expect(exchanged.status).toBe(200);
  return { token: ((await exchanged.json()) as { access_token: string }).access_token, visit };
}

/** The callback's answer when the provider's next ID token is bent by `bend` (status, page, and why the Worker logged it refused). */
async function callbackWith(bend: OidcProviderStub["misbehave"]): Promise<{ status: number; html: string; logged: string }> {
  const { url } = await authorizationUrl();
  idp.misbehave = bend;
  const warn = vi.spyOn(console, "warn");
  try {
    const visit = await authorizeWithProvider(fetchFn, idp, url);
    expect(visit.final, "no consent form may follow a refused sign-in").toBeUndefined();
    return { status: visit.callback!.status, html: visit.callbackHtml!, logged: warn.mock.calls.map((args) => String(args[0])).join("\n") };
  } finally {
    warn.mockRestore();
  }
}

/** Expects the callback refused an ID token with 401 for `reason` (id-token.ts IdTokenProblem). */
async function refusedFor(bend: OidcProviderStub["misbehave"], reason: string): Promise<void> {
  const { status, logged } = await callbackWith(bend);
  expect(status).toBe(401);
  expect(logged).toContain(`ID token refused (${reason})`);
}

describe("a member signs in with the identity provider", () => {
  it("through the official MCP client's OAuth flow, and reads skills with the token", async () => {
    const provider = new HeadlessOAuthClient({ name: "OIDC Flow Agent", callback: CALLBACK, scope: "skills:read", state: "state-oidc-1" }, async (url) => {
      const visit = await authorizeWithProvider(fetchFn, idp, url.href);
      expect(visit.start?.status).toBe(200);
      expect(visit.callback?.status, visit.callbackHtml).toBe(200);
      expect(visit.callbackHtml).toContain("OIDC Flow Agent");
      expect(visit.final?.status).toBe(302);
      return new URL(visit.final!.headers.get("Location")!);
    });
    const connect = async () => {
      const client = new Client({ name: "oidc-flow-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: fetchFn, authProvider: provider }));
      return client;
    };
    await expect(connect()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.callback?.searchParams.get("state")).toBe("state-oidc-1");
    await new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: fetchFn, authProvider: provider }).finishAuth(provider.callback!.searchParams);
    expect(provider.stored?.access_token).toMatch(/^oidc-[0-9a-f]{16}:/);

    const client = await connect();
    const listing = await new SkillsClient(client).list();
    expect(listing.skills.map((s) => s.uri)).toHaveLength(1);
    await client.close();
    const catalog = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${provider.stored!.access_token}` } });
    expect(catalog.status).toBe(200);
  });

  it("records who on the grant; revoking by e-mail ends their grants at the next request", async () => {
    const { token } = await connectApp();
    expect(token).toBeTruthy();
    const admin = { Authorization: `Bearer ${PUBLISH_TOKEN}` };
    const { grants } = (await (await fetchFn(`${ORIGIN}/admin/v1/oauth/grants`, { headers: admin })).json()) as {
      grants: { grant_id: string; method: string; email: string | null; client_name: string }[];
    };
    const mine = grants.filter((g) => g.email === "ana@acme.example");
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((g) => g.method === "oidc")).toBe(true);

    const bad = await fetchFn(`${ORIGIN}/admin/v1/oauth/grants?user=not-an-address`, { method: "DELETE", headers: admin });
    expect(bad.status).toBe(400);
    const revoked = await fetchFn(`${ORIGIN}/admin/v1/oauth/grants?user=ANA@acme.example`, { method: "DELETE", headers: admin });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revoked: string[] }).revoked.sort()).toEqual(mine.map((g) => g.grant_id).sort());
    const after = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
  });

  it("a grant stops reading when the shelf stops signing in with that provider", async () => {
    const { token } = await connectApp();
    const withoutOidc = checked(shelfFetch(await oauthEnv()));
    const res = await withoutOidc(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
  });

  it("admits by a required claim (a group), alone or with the domains", async () => {
    fetchFn = checked(shelfFetch({ ...(await oauthEnv()), ...oidcVars({ claim: "groups=skills-readers" }) }));
    idp.person = { sub: "user-bo", email: "bo@elsewhere.example", email_verified: false, groups: ["staff", "skills-readers"] };
    expect((await connectApp()).token).toBeTruthy();
    idp.person = { sub: "user-cy", email: "cy@elsewhere.example", email_verified: true, groups: ["staff"] };
    const refused = await connectApp();
    expect(refused.token).toBeUndefined();
    expect(refused.visit.callback?.status).toBe(403);
    expect(refused.visit.callbackHtml).toContain("not in the group");

    fetchFn = checked(shelfFetch({ ...(await oauthEnv()), ...oidcVars({ domains: "acme.example", claim: "groups=skills-readers" }) }));
    idp.person = { sub: "user-bo", email: "bo@elsewhere.example", email_verified: true, groups: ["skills-readers"] };
    expect((await connectApp()).visit.callback?.status).toBe(403);
  });
});

describe("refusals at the callback (none a 5xx, none reaching consent)", () => {
  it("an outsider's domain", async () => {
    idp.person = { sub: "user-eve", email: "eve@evil.example", email_verified: true };
    const { status, html } = await callbackWith(null);
    expect(status).toBe(403);
    expect(html).toContain("evil.example");
  });

  it("an allowed domain whose address is not verified", async () => {
    idp.person = { sub: "user-mal", email: "mal@acme.example", email_verified: false };
    expect((await callbackWith(null)).status).toBe(403);
  });

  it("a wrong audience, or another authorized party", async () => {
    await refusedFor({ claims: (c) => ({ ...c, aud: "another-client" }) }, "audience");
    await refusedFor({ claims: (c) => ({ ...c, aud: ["shelf-client-1", "another-client"], azp: "another-client" }) }, "audience");
  });

  it("another issuer", async () => {
    await refusedFor({ claims: (c) => ({ ...c, iss: "https://evil.example" }) }, "issuer");
  });

  it("an expired ID token", async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await refusedFor({ claims: (c) => ({ ...c, iat: past - 300, exp: past }) }, "expired");
  });

  it("a replayed ID token (one issued for an earlier sign-in)", async () => {
    expect((await connectApp()).token).toBeTruthy();
    const old = idp.issued.at(-1)!;
    await refusedFor({ replay: old }, "nonce");
  });

  it("a replayed callback (the same code and state, the same browser)", async () => {
    const { url } = await authorizationUrl();
    const jar = new CookieJar();
    const visit = await authorizeWithProvider(fetchFn, idp, url, "approve", jar);
    expect(visit.callback?.status).toBe(200);
    // The browser kept its transaction cookie from before the callback cleared it (an attacker's copy).
    const again = await fetchFn(visit.callbackUrl!, { redirect: "manual", headers: { Cookie: visit.leave.headers.getSetCookie()[0]!.split(";")[0]! } });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used");
  });

  it("a callback in another browser (no transaction cookie), or with another state", async () => {
    const { url } = await authorizationUrl();
    const start = await fetchFn(url);
    const link = providerLink(await start.text())!;
    const leave = await fetchFn(ORIGIN + link, { redirect: "manual" });
    const back = (await idp.handle(new Request(leave.headers.get("Location")!))).headers.get("Location")!;
    expect((await fetchFn(back, { redirect: "manual" })).status).toBe(400);
    const cookie = leave.headers.getSetCookie()[0]!.split(";")[0]!;
    const forged = new URL(back);
    forged.searchParams.set("state", "another-state");
    expect((await fetchFn(forged.href, { redirect: "manual", headers: { Cookie: cookie } })).status).toBe(400);
  });

  it("a bad signature: a flipped bit, a key the provider never published, alg none", async () => {
    await refusedFor({ breakSignature: true }, "signature");
    await refusedFor({ signWith: await idp.strangerKey() }, "signature");
    await refusedFor({ header: () => ({ alg: "none", kid: "key-1" }) }, "algorithm");
    await refusedFor({ header: () => ({ alg: "HS256", kid: "key-1" }) }, "algorithm");
  });

  it("a nonce mismatch, or none at all", async () => {
    await refusedFor({ claims: (c) => ({ ...c, nonce: "another-nonce" }) }, "nonce");
    await refusedFor({ claims: ({ nonce: _nonce, ...c }) => c }, "nonce");
  });

  it("the provider refusing the code (401), or not answering (a 502 page naming it, never a 500)", async () => {
    expect((await callbackWith({ tokenError: { status: 400, body: { error: "invalid_grant" } } })).status).toBe(401);
    // A 502 is the one 5xx this file expects: the provider, not the shelf, failed.
    const unchecked = shelfFetch({ ...(await oauthEnv()), ...oidcVars() });
    const { url } = await authorizationUrl();
    idp.misbehave = { tokenError: { status: 503, body: { error: "temporarily_unavailable" } } };
    const visit = await authorizeWithProvider(unchecked, idp, url);
    expect(visit.callback?.status).toBe(502);
    expect(visit.callbackHtml).toContain("identity provider did not answer");
    forgetProviders();
    idp.discoveryStatus = 500;
    const start = await unchecked(url);
    const leave = await unchecked(ORIGIN + providerLink(await start.text())!, { redirect: "manual" });
    expect(leave.status).toBe(502);
    expect(await leave.text()).toContain("identity provider did not answer");
  });

  it("a sign-in link that would return anywhere but this shelf's authorization endpoint", async () => {
    for (const authorize of ["https://evil.example/oauth/authorize?x=1", "/ui/?x=1", "//evil.example/oauth/authorize?x"]) {
      const res = await fetchFn(`${ORIGIN}/oidc/sign-in?${new URLSearchParams({ for: "oauth", handle: "h", authorize })}`, { redirect: "manual" });
      expect(res.status, authorize).toBe(400);
    }
  });
});

describe("key rotation", () => {
  it("a token signed with a new key is accepted after the keys are fetched again; an unknown kid is not", async () => {
    expect((await connectApp()).token).toBeTruthy();
    const fetches = idp.jwksFetches;
    expect((await connectApp()).token).toBeTruthy();
    expect(idp.jwksFetches, "the keys are cached between sign-ins").toBe(fetches);

    await idp.rotate("key-2");
    expect((await connectApp()).token).toBeTruthy();
    expect(idp.jwksFetches).toBe(fetches + 1);

    await refusedFor({ header: (h) => ({ ...h, kid: "key-never" }) }, "unknown_key");
  });
});

describe("the pages' sign-in", () => {
  it("offers the provider, and its session reads the pages only", async () => {
    const page = await fetchFn(`${ORIGIN}/ui/sign-in`);
    const html = await page.text();
    expect(html).toContain("Sign in with Acme SSO");
    expect(providerLink(html)).toBe("/oidc/sign-in");

    const jar = new CookieJar();
    const visit = await signInWithProvider(fetchFn, idp, ORIGIN, "/oidc/sign-in", { jar });
    expect(visit.callback?.status).toBe(303);
    expect(visit.callback?.headers.get("Location")).toBe("/ui/");
    const home = await fetchFn(`${ORIGIN}/ui/`, { headers: { Cookie: jar.header(), Accept: "text/html" } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("alpha");
    // The cookie reads the pages only, never the API.
    expect((await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Cookie: jar.header() } })).status).toBe(401);
    // A tampered session is the sign-in page again.
    const tampered = jar.header().replace(/skillshelf_read=o1\.([A-Za-z0-9_-])/, (_m, c: string) => `skillshelf_read=o1.${c === "A" ? "B" : "A"}`);
    expect((await fetchFn(`${ORIGIN}/ui/`, { headers: { Cookie: tampered, Accept: "text/html" } })).status).toBe(401);
  });

  it("refuses an outsider on the pages too", async () => {
    idp.person = { sub: "user-eve", email: "eve@evil.example", email_verified: true };
    const visit = await signInWithProvider(fetchFn, idp, ORIGIN, "/oidc/sign-in");
    expect(visit.callback?.status).toBe(403);
    expect(visit.callback?.headers.getSetCookie().some((c) => c.startsWith("skillshelf_read="))).toBe(false);
  });
});

describe("with OpenID Connect off", () => {
  it("its paths are the read group's 404, and the sign-in pages offer only the read token", async () => {
    const plain = checked(shelfFetch(await oauthEnv()));
    expect((await plain(`${ORIGIN}/oidc/sign-in`)).status).toBe(404);
    expect((await plain(`${ORIGIN}/oidc/callback?code=x&state=y`)).status).toBe(404);
    expect(await (await plain(`${ORIGIN}/ui/sign-in`)).text()).not.toContain("sign-in-provider");
    // Half-configured (no admission rule) stays off rather than admitting everyone.
    const open = checked(shelfFetch({ ...(await oauthEnv()), ...oidcVars({}) }));
    expect((await open(`${ORIGIN}/oidc/sign-in`)).status).toBe(404);
  });
});
