// The pure parts of sign-in with an OpenID Connect provider (src/worker/auth/oidc), each alone:
// its settings (off rather than half on), the admission rules, the ID token check beyond what the
// flow tests reach (ES256, no kid, nbf and iat in the future), the JWKS refresh limits, the sealed
// transaction and the session value. The flow itself is test/worker/oauth/oidc.test.ts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { toBase64Url } from "../../../src/worker/auth/oidc/base64url.ts";
import { oidcSettings, parseAllowedDomains, parseRequiredClaim } from "../../../src/worker/auth/oidc/config.ts";
import { IdTokenRefused, type Jwk, verifyIdToken } from "../../../src/worker/auth/oidc/id-token.ts";
import { admit } from "../../../src/worker/auth/oidc/policy.ts";
import { forgetProviders, providerKeys } from "../../../src/worker/auth/oidc/provider.ts";
import { oidcSessionIdentity, oidcSessionValue } from "../../../src/worker/auth/oidc/session.ts";
import { openTransaction, sealTransaction } from "../../../src/worker/auth/oidc/transaction.ts";

const KV = {} as KVNamespace;
const BASE = {
  SHELF_VISIBILITY: "private",
  SHELF_OIDC_ISSUER: "https://idp.example/",
  SHELF_OIDC_CLIENT_ID: "client",
  SHELF_OIDC_CLIENT_SECRET: "secret",
  SHELF_OIDC_ALLOWED_DOMAINS: "Acme.example, acme.dev",
  SHELF_SESSION_KEY: "k".repeat(64),
  SHELF_KV: KV,
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("settings", () => {
  it("are read once, normalized, and name the provider", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const settings = oidcSettings(BASE)!;
    expect(settings.issuer).toBe("https://idp.example");
    expect(settings.allowedDomains).toEqual(["acme.example", "acme.dev"]);
    expect(settings.name).toBe("idp.example");
    expect(oidcSettings({ ...BASE, SHELF_OIDC_ISSUER: "http://127.0.0.1:9000" })?.issuer).toBe("http://127.0.0.1:9000");
  });

  it("stay off for a public shelf, and (logged) for anything missing or malformed", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(oidcSettings({ ...BASE, SHELF_VISIBILITY: "public" })).toBeNull();
    expect(oidcSettings({ ...BASE, SHELF_OIDC_ISSUER: undefined })).toBeNull();
    for (const change of [
      { SHELF_OIDC_ISSUER: "http://idp.example" },
      { SHELF_OIDC_CLIENT_ID: "" },
      { SHELF_OIDC_CLIENT_SECRET: undefined },
      { SHELF_SESSION_KEY: undefined },
      { SHELF_KV: undefined },
      { SHELF_OIDC_ALLOWED_DOMAINS: "*.acme.example" },
      { SHELF_OIDC_ALLOWED_DOMAINS: "", SHELF_OIDC_REQUIRED_CLAIM: "groups" },
      { SHELF_OIDC_ALLOWED_DOMAINS: "" },
    ]) {
      expect(oidcSettings({ ...BASE, ...change }), JSON.stringify(change)).toBeNull();
    }
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/every account the provider knows would be admitted/);
  });

  it("parse domains and the required claim", () => {
    expect(parseAllowedDomains("a.example b.example,,c.example")).toEqual(["a.example", "b.example", "c.example"]);
    expect(parseAllowedDomains("@a.example")).toBeUndefined();
    expect(parseRequiredClaim(" groups = skills-readers ")).toEqual({ name: "groups", value: "skills-readers" });
    expect(parseRequiredClaim("")).toBeNull();
    expect(parseRequiredClaim("=x")).toBeUndefined();
  });
});

describe("admission", () => {
  const settings = oidcSettings({ ...BASE, SHELF_OIDC_REQUIRED_CLAIM: "groups=readers" })!;
  const claims = { iss: "https://idp.example", sub: "s", aud: "client", exp: 0 };
  it("needs a verified address at an exact domain, and the claim", () => {
    expect(admit({ ...claims, email: "Ana@Acme.example", email_verified: true, groups: ["x", "readers"] }, settings)).toEqual({
      admitted: true,
      identity: { issuer: "https://idp.example", subject: "s", email: "ana@acme.example" },
    });
    expect(admit({ ...claims, email: "ana@acme.example", email_verified: "true", groups: "readers" }, settings).admitted).toBe(true);
    expect(admit({ ...claims, email: "ana@sub.acme.example", email_verified: true, groups: ["readers"] }, settings).admitted).toBe(false);
    expect(admit({ ...claims, email: "ana@acme.example", groups: ["readers"] }, settings).admitted).toBe(false);
    expect(admit({ ...claims, email: "ana@acme.example", email_verified: true, groups: ["readers-not"] }, settings).admitted).toBe(false);
    expect(admit({ ...claims, email: "ana@acme.example", email_verified: true }, settings).admitted).toBe(false);
  });
});

async function es256(): Promise<{ privateKey: CryptoKey; jwk: Jwk }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  return { privateKey: pair.privateKey, jwk: (await crypto.subtle.exportKey("jwk", pair.publicKey)) as Jwk };
}

async function jwt(key: CryptoKey, header: object, claims: object): Promise<string> {
  const enc = (v: object) => toBase64Url(new TextEncoder().encode(JSON.stringify(v)));
  const signed = `${enc(header)}.${enc(claims)}`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(signed)));
  return `${signed}.${toBase64Url(sig)}`;
}

describe("the ID token check", () => {
  const now = 2_000_000_000;
  const good = { iss: "https://idp.example", aud: "client", sub: "s", nonce: "n", iat: now, exp: now + 300 };
  const expect_ = (keys: Jwk[]) => ({ issuer: "https://idp.example", clientId: "client", nonce: "n", now, keys: async () => keys });

  it("takes ES256, and a token without a kid against every key of its type", async () => {
    const { privateKey, jwk } = await es256();
    const claims = await verifyIdToken(await jwt(privateKey, { alg: "ES256" }, good), expect_([jwk]));
    expect(claims.sub).toBe("s");
  });

  it("refuses a token not yet valid, issued in the future, malformed, or for a key of another type", async () => {
    const { privateKey, jwk } = await es256();
    const reason = async (token: string, keys = [jwk]) => {
      const error = await verifyIdToken(token, expect_(keys)).catch((e: unknown) => e);
      return error instanceof IdTokenRefused ? error.reason : `accepted ${String(error)}`;
    };
    expect(await reason(await jwt(privateKey, { alg: "ES256" }, { ...good, nbf: now + 600 }))).toBe("not_yet_valid");
    expect(await reason(await jwt(privateKey, { alg: "ES256" }, { ...good, iat: now + 600 }))).toBe("not_yet_valid");
    expect(await reason(await jwt(privateKey, { alg: "ES256" }, { ...good, sub: "" }))).toBe("malformed");
    expect(await reason("a.b")).toBe("malformed");
    expect(await reason("e30.e30.!!")).toBe("malformed");
    expect(await reason(await jwt(privateKey, { alg: "RS256" }, good))).toBe("unknown_key");
  });
});

describe("the provider's keys", () => {
  it("are cached, fetched again for an unknown kid at most once a minute per kid", async () => {
    forgetProviders();
    let fetches = 0;
    vi.stubGlobal("fetch", async () => {
      fetches += 1;
      return new Response(JSON.stringify({ keys: [{ kty: "EC", kid: "a" }] }), { headers: { "Content-Type": "application/json" } });
    });
    let clock = 1_000_000;
    const keys = providerKeys("https://idp.example/jwks", () => clock);
    await keys("a", false);
    await keys("a", false);
    expect(fetches).toBe(1);
    await keys("b", true);
    await keys("b", true);
    expect(fetches).toBe(2);
    clock += 61_000;
    await keys("b", true);
    expect(fetches).toBe(3);
    // Made-up kids: six refreshes a minute in all, then the cached keys answer.
    for (let i = 0; i < 20; i++) await keys(`made-up-${i}`, true);
    expect(fetches).toBeLessThanOrEqual(3 + 6);
    forgetProviders();
  });
});

describe("the transaction cookie and the session", () => {
  const txn = { state: "s", nonce: "n", verifier: "v", return: { kind: "pages" as const }, exp: Math.floor(Date.now() / 1000) + 600 };
  it("opens only what this key sealed, before it expires", async () => {
    const sealed = await sealTransaction(txn, "key-1");
    expect(await openTransaction(sealed, "key-1")).toEqual(txn);
    expect(await openTransaction(sealed, "key-2")).toBeNull();
    expect(await openTransaction(`${sealed.slice(0, -2)}AA`, "key-1")).toBeNull();
    expect(await openTransaction(sealed, "key-1", Date.now() + 601_000)).toBeNull();
    expect(await openTransaction(undefined, "key-1")).toBeNull();
  });

  it("vouches for the identity under this key and issuer, for 12 hours", async () => {
    const identity = { issuer: "https://idp.example", subject: "s", email: "ana@acme.example" };
    const value = await oidcSessionValue(identity, "key-1");
    expect(await oidcSessionIdentity(value, "key-1", "https://idp.example")).toEqual(identity);
    expect(await oidcSessionIdentity(value, "key-2", "https://idp.example")).toBeNull();
    expect(await oidcSessionIdentity(value, "key-1", "https://other.example")).toBeNull();
    expect(await oidcSessionIdentity(value, "key-1", "https://idp.example", Date.now() + 13 * 3600_000)).toBeNull();
  });
});
