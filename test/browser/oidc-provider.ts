// A small OpenID Connect provider on loopback for the browser suite: discovery, a JWKS, an
// authorization endpoint where the person is already signed in (as `person`), and a token endpoint
// that checks the client secret (client_secret_basic), the one-time code, the redirect URI and
// PKCE, then signs an RS256 ID token with node:crypto.
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const CLIENT_ID = "browser-shelf";
export const CLIENT_SECRET = "browser-shelf-secret-0123456789";

/** A running provider. */
export interface LocalProvider {
  issuer: string;
  /** Who the provider says is signed in at its next authorization. */
  person: Record<string, unknown>;
  /** The grant_type of every token request, in order. */
  tokenRequests: string[];
  /** The Worker vars that sign in with this provider, admitting acme.example. */
  vars: Record<string, string>;
  close(): Promise<void>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Starts the provider on a free loopback port. */
export async function startOidcProvider(): Promise<LocalProvider> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "browser-key", use: "sig", alg: "RS256" };
  const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string; person: Record<string, unknown> }>();
  const provider: LocalProvider = {
    issuer: "",
    person: { sub: "ana", email: "ana@acme.example", email_verified: true },
    tokenRequests: [],
    vars: {},
    close: async () => {},
  };

  const idToken = (nonce: string, who: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    const signed = `${b64({ alg: "RS256", typ: "JWT", kid: jwk.kid })}.${b64({ iss: provider.issuer, aud: CLIENT_ID, iat: now, exp: now + 300, nonce, ...who })}`;
    return `${signed}.${sign("sha256", Buffer.from(signed), privateKey).toString("base64url")}`;
  };

  const server = createServer(async (req, res) => {
    const { issuer } = provider;
    const url = new URL(req.url!, issuer);
    const json = (body: unknown, status = 200) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` });
    }
    if (url.pathname === "/jwks") return json({ keys: [jwk] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const code = randomUUID();
      codes.set(code, { nonce: q.get("nonce")!, challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")!, person: { ...provider.person } });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return res.writeHead(302, { Location: back.href }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      provider.tokenRequests.push(form.get("grant_type") ?? "");
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
      const challenge = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url");
      if (req.headers.authorization !== basic || !grant || challenge !== grant.challenge || grant.redirectUri !== form.get("redirect_uri")) {
        return json({ error: "invalid_grant" }, 400);
      }
      return json({ access_token: "idp-access", token_type: "Bearer", id_token: idToken(grant.nonce, grant.person) });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  provider.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.vars = {
    SHELF_OIDC_ISSUER: provider.issuer,
    SHELF_OIDC_CLIENT_ID: CLIENT_ID,
    SHELF_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    SHELF_OIDC_ALLOWED_DOMAINS: "acme.example",
    SHELF_OIDC_NAME: "Acme SSO",
  };
  provider.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return provider;
}
