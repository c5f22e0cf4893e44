// The pages' sign-in with the team's identity provider in a real browser: headless Chromium against
// `wrangler dev` serving a private copy of ./shelf with OpenID Connect set up, and a small OpenID
// Connect provider this test serves on loopback (discovery, JWKS, an authorization endpoint where
// the person is already signed in, a token endpoint that checks the client secret and PKCE and signs
// an RS256 ID token). A member arrives at the shelf's pages; an outsider gets the refusal page; axe
// finds nothing serious on the sign-in page or the refusal. Run with `npm run test:browser`.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";
import { startShelfOnFreePort, type RunningShelf } from "../../scripts/start.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const READ_TOKEN = "sk_browser_oidc_read_0123456789abcdef";
const CLIENT_ID = "browser-shelf";
const CLIENT_SECRET = "browser-shelf-secret-0123456789";

let state: string;
let shelf: RunningShelf;
let browser: Browser;
let idp: Server;
let issuer: string;
/** Who the provider says is signed in. */
let person: Record<string, unknown> = { sub: "ana", email: "ana@acme.example", email_verified: true };
const tokenRequests: string[] = [];

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const JWK = { ...publicKey.export({ format: "jwk" }), kid: "browser-key", use: "sig", alg: "RS256" };
const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string; person: Record<string, unknown> }>();

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function idToken(nonce: string, who: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const signed = `${b64({ alg: "RS256", typ: "JWT", kid: JWK.kid })}.${b64({ iss: issuer, aud: CLIENT_ID, iat: now, exp: now + 300, nonce, ...who })}`;
  return `${signed}.${sign("sha256", Buffer.from(signed), privateKey).toString("base64url")}`;
}

/** The provider: discovery, JWKS, authorize (the person is already signed in), token. */
function startProvider(): Promise<void> {
  idp = createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (body: unknown, status = 200) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` });
    }
    if (url.pathname === "/jwks") return json({ keys: [JWK] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const code = randomUUID();
      codes.set(code, { nonce: q.get("nonce")!, challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")!, person: { ...person } });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return res.writeHead(302, { Location: back.href }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      tokenRequests.push(form.get("grant_type") ?? "");
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
      const verifier = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url");
      if (req.headers.authorization !== basic || !grant || verifier !== grant.challenge || grant.redirectUri !== form.get("redirect_uri")) {
        return json({ error: "invalid_grant" }, 400);
      }
      return json({ access_token: "idp-access", token_type: "Bearer", id_token: idToken(grant.nonce, grant.person) });
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    idp.listen(0, "127.0.0.1", () => {
      issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

before(async () => {
  await startProvider();
  state = mkdtempSync(path.join(tmpdir(), "skillshelf-oidc-browser-"));
  const shelfDir = path.join(state, "shelf");
  cpSync(path.join(ROOT, "shelf"), shelfDir, { recursive: true });
  shelf = await startShelfOnFreePort({
    shelfDir,
    persistTo: path.join(state, "wrangler"),
    buildDir: path.join(state, "build"),
    vars: {
      SHELF_VISIBILITY: "private",
      READ_TOKEN_SHA256: createHash("sha256").update(READ_TOKEN).digest("hex"),
      SHELF_OIDC_ISSUER: issuer,
      SHELF_OIDC_CLIENT_ID: CLIENT_ID,
      SHELF_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      SHELF_OIDC_ALLOWED_DOMAINS: "acme.example",
      SHELF_OIDC_NAME: "Acme SSO",
    },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  await shelf?.stop();
  await new Promise<void>((resolve) => (idp ? idp.close(() => resolve()) : resolve()));
  if (state) rmSync(state, { recursive: true, force: true });
});

describe("the pages' sign-in with the identity provider", () => {
  it("a member follows 'Sign in with Acme SSO' and arrives at the shelf; axe finds nothing serious", async () => {
    person = { sub: "ana", email: "ana@acme.example", email_verified: true };
    const context = await browser.newContext({ baseURL: shelf.url });
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) blocked.push(m.text());
    });
    const first = await page.goto("/ui/");
    assert.equal(first?.status(), 401);
    await page.getByRole("heading", { name: "This shelf is private" }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    const before = tokenRequests.length;
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await page.waitForURL((url) => url.pathname === "/ui/");
    assert.equal(tokenRequests.length, before + 1, "the shelf exchanged the code at the provider");
    assert.notEqual(await page.getByRole("heading", { name: "This shelf is private" }).count(), 1);
    assert.ok((await page.locator("ul.skills > li").count()) > 0, "the shelf's skills are listed");
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "skillshelf_read");
    assert.ok(session?.value.startsWith("o1."), "the pages keep an identity-provider session");
    assert.equal(session?.httpOnly, true);
    assert.ok(!cookies.some((c) => c.name === "__Host-skillshelf_oidc" && c.value !== ""), "the sign-in transaction cookie is cleared");
    assert.deepEqual(blocked, []);
    await context.close();
  });

  it("an outsider gets the refusal page, and no session", async () => {
    person = { sub: "eve", email: "eve@evil.example", email_verified: true };
    const context = await browser.newContext({ baseURL: shelf.url });
    const page = await context.newPage();
    await page.goto("/ui/sign-in");
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await page.getByRole("heading", { name: "You may not read this shelf" }).waitFor();
    assert.ok((await page.textContent("main"))?.includes("evil.example"));
    assert.deepEqual(await seriousViolations(page), []);
    assert.ok(!(await context.cookies()).some((c) => c.name === "skillshelf_read" && c.value !== ""));
    await context.close();
  });
});
