// Client ID metadata documents (MCP 2026-07-28's preferred registration): a client whose client_id
// is an https URL, its document fetched by workers-oauth-provider and served here by the test (a
// stubbed fetch), then signed in and exchanged like any client; and the rules the library enforces
// (https and a path, client_id matching the URL, 5 KB at most, the cache). The
// global_fetch_strictly_public flag is simulated: this proves the shelf's wiring, not that a
// deployed Worker can fetch a public https document (docs/oauth.md says so).
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { authorizeAsPerson, type FetchFn, oauthEnv, shelfFetch, testEnv } from "./helpers.ts";

const CALLBACK = "https://agent.example/callback";
const CLIENT_ID = "https://agent.example/oauth/client-metadata.json";
/** Its own issuer, so its authorization server is built after the flag is simulated (they are cached per issuer). */
const SHELF = "https://cimd-shelf.test";

const DOCUMENT = {
  client_id: CLIENT_ID,
  client_name: "Metadata Document Agent",
  redirect_uris: [CALLBACK],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};

let documents: Map<string, { body: string; headers?: Record<string, string> }>;
let fetched: string[];
let fetchFn: FetchFn;

beforeAll(async () => {
  await publishFixtureShelf(testEnv, [{ name: "alpha", description: "A private skill." }]);
});

function simulate(): void {
  documents = new Map([[CLIENT_ID, { body: JSON.stringify(DOCUMENT), headers: { "Cache-Control": "max-age=300" } }]]);
  fetched = [];
  const runtime = (globalThis as unknown as { Cloudflare: { compatibilityFlags: Record<string, boolean> } }).Cloudflare;
  vi.stubGlobal("Cloudflare", { ...runtime, compatibilityFlags: { ...runtime.compatibilityFlags, global_fetch_strictly_public: true } });
  const real = globalThis.fetch;
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith("https://agent.example/")) return real(input, init);
    fetched.push(url);
    const doc = documents.get(url);
    return doc ? new Response(doc.body, { headers: { "Content-Type": "application/json", ...doc.headers } }) : new Response("not found", { status: 404 });
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const b64 = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  const verifier = b64(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: b64(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)))) };
}

function authorizeUrl(clientId: string, challenge: string): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope: "skills:read",
    resource: SHELF,
  });
  return `${SHELF}/oauth/authorize?${params}`;
}

describe("client ID metadata documents", () => {
  it("are advertised, fetched, shown on the consent page with their domain, and exchanged for a token that reads", async () => {
    simulate();
    fetchFn = shelfFetch(await oauthEnv({ issuer: SHELF }));
    const metadata = (await (await fetchFn(`${SHELF}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    // Claude uses CIMD only when public clients ("none") may authenticate at the token endpoint.
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");

    const { verifier, challenge } = await pkce();
    const visit = await authorizeAsPerson(fetchFn, authorizeUrl(CLIENT_ID, challenge));
    expect(visit.signInPage.status).toBe(200);
    expect(visit.signInHtml).toContain("Metadata Document Agent");
    expect(visit.signInHtml).toContain("published by <strong>agent.example</strong>");
    expect(visit.final?.status).toBe(302);
    const code = new URL(visit.final!.headers.get("Location")!).searchParams.get("code")!;
    const token = await fetchFn(`${SHELF}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: CLIENT_ID, code, code_verifier: verifier, redirect_uri: CALLBACK }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    expect((await fetchFn(`${SHELF}/v1/catalog`, { headers: { Authorization: `Bearer ${access_token}` } })).status).toBe(200);
    // The document said max-age=300: the library kept it (Cache API) instead of fetching it on every step.
    expect(fetched.length).toBe(1);
  });

  it("refuse a document whose client_id is not its URL, one over 5 KB, and a missing one: a page, never a redirect or a 500", async () => {
    simulate();
    fetchFn = shelfFetch(await oauthEnv({ issuer: SHELF }));
    const cases: [string, { body: string } | undefined][] = [
      ["https://agent.example/oauth/liar.json", { body: JSON.stringify({ ...DOCUMENT, client_id: CLIENT_ID }) }],
      [
        "https://agent.example/oauth/huge.json",
        { body: JSON.stringify({ ...DOCUMENT, client_id: "https://agent.example/oauth/huge.json", client_name: "x".repeat(6000) }) },
      ],
      ["https://agent.example/oauth/missing.json", undefined],
    ];
    for (const [url, doc] of cases) {
      if (doc) documents.set(url, doc);
      const res = await fetchFn(authorizeUrl(url, (await pkce()).challenge), { redirect: "manual" });
      expect(res.status, url).toBe(400);
      expect(res.headers.get("Location"), url).toBeNull();
      expect(await res.text(), url).toContain("This app could not be verified");
    }
  });

  it("are not fetched for an http client_id, and not at all without the compatibility flag (an unknown client, not a 500)", async () => {
    simulate();
    fetchFn = shelfFetch(await oauthEnv({ issuer: SHELF }));
    const http = await fetchFn(authorizeUrl("http://agent.example/oauth/client-metadata.json", (await pkce()).challenge), { redirect: "manual" });
    expect(http.status).toBe(400);
    expect(fetched).toEqual([]);
    vi.unstubAllGlobals();
    // A shelf whose server was built without the flag treats the URL as an unregistered client id.
    const plain = shelfFetch(await oauthEnv({ issuer: "https://no-cimd-shelf.test" }));
    const metadata = (await (await plain("https://no-cimd-shelf.test/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).not.toBe(true);
    const res = await plain(authorizeUrl(CLIENT_ID, (await pkce()).challenge).replace(SHELF, "https://no-cimd-shelf.test"), { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Invalid client_id");
  });
});
