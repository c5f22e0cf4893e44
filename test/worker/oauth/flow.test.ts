// The MCP 2026-07-28 authorization flow against a private shelf with OAuth on, driven by the
// official MCP TypeScript client's OAuth support (@modelcontextprotocol/client 2.4): a 401 naming
// the protected resource metadata, discovery, dynamic registration, the authorize page (signed in
// headlessly with the read token), the code exchanged with PKCE and `resource`, then skills/list
// and a verified resources/read through SkillsClient, /v1/catalog and a static file with the same
// token, refresh, and revocation (by the client, and by the owner's grants index) stopping the
// next request. A second shelf's token, and a token without the read scope, are refused.
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { beforeAll, describe, expect, it } from "vitest";
import { skillUri } from "../../../src/worker/views/mcp/uris.ts";
import { publishFixtureShelf, type PublishedFixture } from "../fixture-shelf.ts";
import { authorizeAsPerson, type FetchFn, HeadlessOAuthClient, oauthEnv, ORIGIN, PUBLISH_TOKEN, shelfFetch, testEnv } from "./helpers.ts";

const CALLBACK = "http://127.0.0.1:33418/callback";

/** The flow's host: signs in headlessly with the read token (authorizeAsPerson) and consents. */
function headlessProvider(fetchFn: FetchFn, scope = "skills:read offline_access"): HeadlessOAuthClient {
  return new HeadlessOAuthClient({ name: "Flow Test Agent", callback: CALLBACK, scope, state: "state-flow-1" }, async (url) => {
    const visit = await authorizeAsPerson(fetchFn, url.href);
    expect(visit.final?.status, visit.consentHtml ?? visit.signInHtml).toBe(302);
    return new URL(visit.final!.headers.get("Location")!);
  });
}

/** Every request the client makes, in order, as "METHOD path status". */
function recording(fetchFn: FetchFn, log: string[]): FetchFn {
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const response = await fetchFn(request.clone());
    log.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`);
    return response;
  };
}

async function connect(fetchFn: FetchFn, provider: HeadlessOAuthClient): Promise<{ client: Client; skills: SkillsClient }> {
  const client = new Client({ name: "oauth-flow-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: fetchFn, authProvider: provider }));
  return { client, skills: new SkillsClient(client) };
}

let shelf: PublishedFixture;
let bindings: Record<string, unknown>;
let fetchFn: FetchFn;

beforeAll(async () => {
  shelf = await publishFixtureShelf(testEnv, [
    { name: "alpha", description: "A private skill with a reference.", files: { "references/guide.md": "# Guide\n\nRead me.\n" } },
    { name: "beta", description: "Another private skill." },
  ]);
  bindings = await oauthEnv();
  fetchFn = shelfFetch(bindings);
});

describe("the MCP authorization flow with the official client", () => {
  const log: string[] = [];
  let provider: HeadlessOAuthClient;

  it("discovers, registers, signs in, and reads through SkillsClient with the token", async () => {
    const traced = recording(fetchFn, log);
    provider = headlessProvider(traced);
    // First connect: the 401 starts the flow; the provider plays the browser; UnauthorizedError
    // tells the host to finish with the callback's code, as after a real redirect.
    await expect(connect(traced, provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.callback?.searchParams.get("state")).toBe("state-flow-1");
    expect(provider.callback?.searchParams.get("iss")).toBe(ORIGIN);
    const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: traced, authProvider: provider });
    await transport.finishAuth(provider.callback!.searchParams);

    expect(log.slice(0, 4)).toEqual([
      "POST /mcp 401",
      "GET /.well-known/oauth-protected-resource 200",
      "GET /.well-known/oauth-authorization-server 200",
      "POST /oauth/register 201",
    ]);
    expect(log).toContain("POST /oauth/token 200");
    // The authorization request carried PKCE S256 and the shelf's origin as the resource.
    const asked = provider.authorizationUrl!.searchParams;
    expect(asked.get("code_challenge_method")).toBe("S256");
    expect(asked.get("resource")?.replace(/\/$/, "")).toBe(ORIGIN);
    expect(provider.stored?.access_token).toMatch(/^rt-[0-9a-f]{16}:/);
    expect(provider.stored?.refresh_token).toBeTruthy();

    const { client, skills } = await connect(traced, provider);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri).sort()).toEqual([skillUri("alpha", "SKILL.md"), skillUri("beta", "SKILL.md")]);
    const { skill } = await skills.get(skillUri("alpha", "SKILL.md"));
    const resources = skill.resources === "dynamic" ? [] : skill.resources;
    const guide = resources.find((r) => r.uri === skillUri("alpha", "references/guide.md"))!;
    const file = await skills.read(skill, guide.uri);
    expect(file.verified).toBe(true);
    expect(file.bytes).toEqual(shelf.files.get("alpha")!.get("references/guide.md"));
    await client.close();
  });

  it("reads /v1/catalog and a static file with the same token", async () => {
    const headers = { Authorization: `Bearer ${provider.stored!.access_token}` };
    const catalog = await fetchFn(`${ORIGIN}/v1/catalog`, { headers });
    expect(catalog.status).toBe(200);
    const file = await fetchFn(`${ORIGIN}/skills/alpha/references/guide.md`, { headers });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe("# Guide\n\nRead me.\n");
    const index = await fetchFn(`${ORIGIN}/.well-known/agent-skills/index.json`, { headers });
    expect(index.status).toBe(200);
  });

  it("refreshes: a new access token reads, and the refresh token rotates", async () => {
    const before = { ...provider.stored! };
    // auth() with a stored refresh token refreshes instead of starting over.
    expect(await auth(provider, { serverUrl: `${ORIGIN}/mcp`, fetchFn })).toBe("AUTHORIZED");
    expect(provider.stored!.access_token).not.toBe(before.access_token);
    expect(provider.stored!.refresh_token).not.toBe(before.refresh_token);
    const res = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${provider.stored!.access_token}` } });
    expect(res.status).toBe(200);
  });

  it("revokes (RFC 7009 at the token endpoint): the next request is a 401 naming the resource metadata", async () => {
    const token = provider.stored!.access_token;
    const revoke = await fetchFn(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, token_type_hint: "access_token", client_id: provider.client!.client_id }).toString(),
    });
    expect(revoke.status).toBe(200);
    const res = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(
      `Bearer realm="skillshelf", error="invalid_token", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource", scope="skills:read"`,
    );
  });

  it("lists the grant in the owner's index, and revoking it there stops the refresh token", async () => {
    const admin = { Authorization: `Bearer ${PUBLISH_TOKEN}` };
    const listed = await fetchFn(`${ORIGIN}/admin/v1/oauth/grants`, { headers: admin });
    expect(listed.status).toBe(200);
    const listedGrants = (await listed.json()) as { grants: { grant_id: string; client_id: string; client_name: string; scope: string[]; user_id: string }[] };
    // This flow's client only: other files in the same runtime (the OIDC flow, the adversarial cases) leave grants of their own clients.
    const grants = listedGrants.grants.filter((g) => g.client_id === provider.client!.client_id);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ client_name: "Flow Test Agent", scope: ["skills:read", "offline_access"] });
    // The read token never lists grants; the publish token does.
    expect((await fetchFn(`${ORIGIN}/admin/v1/oauth/grants`, { headers: { Authorization: `Bearer ${provider.stored!.access_token}` } })).status).toBe(401);

    expect(await auth(provider, { serverUrl: `${ORIGIN}/mcp`, fetchFn })).toBe("AUTHORIZED");
    const fresh = provider.stored!.access_token;
    expect((await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(200);
    const revoked = await fetchFn(`${ORIGIN}/admin/v1/oauth/grants/${grants[0]!.grant_id}`, { method: "DELETE", headers: admin });
    expect(revoked.status).toBe(200);
    expect((await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(401);
    const refresh = await fetchFn(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: provider.stored!.refresh_token!,
        client_id: provider.client!.client_id,
      }).toString(),
    });
    expect(refresh.status).toBe(400);
    const gone = await fetchFn(`${ORIGIN}/admin/v1/oauth/grants/${grants[0]!.grant_id}`, { method: "DELETE", headers: admin });
    expect(gone.status).toBe(404);
  });
});

describe("tokens this shelf must refuse", () => {
  it("refuses a token minted by a second shelf with its own keys", async () => {
    const other = "https://other-shelf.test";
    const otherFetch = shelfFetch(await oauthEnv({ issuer: other, kv: testEnv.OAUTH_KV_OTHER }));
    const provider = headlessProvider(otherFetch);
    await expect(auth(provider, { serverUrl: `${other}/mcp`, fetchFn: otherFetch })).resolves.toBe("REDIRECT");
    const code = provider.callback!.searchParams;
    expect(await auth(provider, { serverUrl: `${other}/mcp`, fetchFn: otherFetch, authorizationCode: code.get("code")!, iss: code.get("iss")! })).toBe(
      "AUTHORIZED",
    );
    const token = provider.stored!.access_token;
    expect((await otherFetch(`${other}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const here = await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } });
    expect(here.status).toBe(401);
    expect(here.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("refuses a token bound to another origin even where it shares this shelf's KV and read token (the audience)", async () => {
    const third = "https://third-shelf.test";
    const thirdFetch = shelfFetch(await oauthEnv({ issuer: third }));
    const provider = headlessProvider(thirdFetch);
    expect(await auth(provider, { serverUrl: `${third}/mcp`, fetchFn: thirdFetch })).toBe("REDIRECT");
    const code = provider.callback!.searchParams;
    expect(await auth(provider, { serverUrl: `${third}/mcp`, fetchFn: thirdFetch, authorizationCode: code.get("code")!, iss: code.get("iss")! })).toBe(
      "AUTHORIZED",
    );
    const token = provider.stored!.access_token;
    expect((await thirdFetch(`${third}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetchFn(`${ORIGIN}/v1/catalog`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it("refuses a token without the read scope with 403 insufficient_scope", async () => {
    const provider = headlessProvider(fetchFn, "offline_access");
    expect(await auth(provider, { serverUrl: `${ORIGIN}/mcp`, fetchFn, scope: "offline_access" })).toBe("REDIRECT");
    const code = provider.callback!.searchParams;
    expect(await auth(provider, { serverUrl: `${ORIGIN}/mcp`, fetchFn, authorizationCode: code.get("code")!, iss: code.get("iss")! })).toBe("AUTHORIZED");
    for (const path of ["/v1/catalog", "/skills/alpha/SKILL.md"]) {
      const res = await fetchFn(`${ORIGIN}${path}`, { headers: { Authorization: `Bearer ${provider.stored!.access_token}` } });
      expect(res.status).toBe(403);
      expect(res.headers.get("WWW-Authenticate")).toBe(
        `Bearer realm="skillshelf", error="insufficient_scope", scope="skills:read", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`,
      );
    }
  });
});
