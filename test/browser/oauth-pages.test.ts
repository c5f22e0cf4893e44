// The OAuth sign-in and consent pages in a real browser: headless Chromium against `wrangler dev`
// running a private shelf with OAuth on (its own config: an OAUTH_KV binding and
// SHELF_OAUTH_ISSUER on http://localhost), and a stand-in client's callback on loopback. A person
// signs in with the read token and clicks Allow; the browser must arrive at the client's callback
// with the code (the pages' CSP lets the form redirect there, and the library's __Host- consent
// cookie must survive), and axe finds no serious or critical violations on either page. Run with
// `npm run test:browser`. The team's identity provider is set up too (oidc-provider.ts, served on
// loopback): signing in with it instead leads to the same consent page and the same callback.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";
import { type LocalProvider, startOidcProvider } from "./oidc-provider.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const READ_TOKEN = "sk_browser_oauth_read_0123456789abcdef";

let state: string;
let worker: ChildProcess | undefined;
let origin: string;
let callbackServer: Server;
let callbackUrl: string;
const callbacks: URL[] = [];
let browser: Browser;
let idp: LocalProvider;

/** A port free right now on loopback. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A wrangler config of its own: the Worker, local R2 and KV, OAuth on at `issuer`. */
function writeConfig(dir: string, issuer: string): string {
  const file = path.join(dir, "wrangler.toml");
  const vars = {
    SHELF_VISIBILITY: "private",
    SHELF_CAPABILITY_URLS: "off",
    SHELF_DISCOVERY: "all",
    SHELF_SIGNING_ORIGIN: "",
    SHELF_SIGNING_KEYS: "[]",
    SHELF_REQUIRE_SIGNATURES: "off",
    SHELF_OAUTH_ISSUER: issuer,
    READ_TOKEN_SHA256: createHash("sha256").update(READ_TOKEN).digest("hex"),
    SHELF_SESSION_KEY: randomBytes(32).toString("hex"),
    ...idp.vars,
  };
  writeFileSync(
    file,
    [
      'name = "skillshelf-oauth-browser"',
      `main = ${JSON.stringify(path.join(ROOT, "src/worker/index.ts"))}`,
      'compatibility_date = "2026-11-01"',
      "[[r2_buckets]]",
      'binding = "SHELF_BUCKET"',
      'bucket_name = "skillshelf-oauth-browser"',
      "[[kv_namespaces]]",
      'binding = "SHELF_KV"',
      'id = "00000000000000000000000000000000"',
      "[[kv_namespaces]]",
      'binding = "OAUTH_KV"',
      'id = "00000000000000000000000000000002"',
      "[vars]",
      ...Object.entries(vars).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
      "",
    ].join("\n"),
  );
  return file;
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${output()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer in 90 s:\n${output()}`);
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

before(async () => {
  idp = await startOidcProvider();
  state = mkdtempSync(path.join(tmpdir(), "skillshelf-oauth-browser-"));
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url!, callbackUrl);
    if (url.pathname === "/callback") callbacks.push(url); // not the browser's /favicon.ico
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end("<!doctype html><title>Callback</title><p>connected</p>");
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;

  const port = await freePort();
  origin = `http://localhost:${port}`;
  const config = writeConfig(state, origin);
  let output = "";
  worker = spawn(
    process.execPath,
    [
      path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
      "dev",
      "--config",
      config,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      path.join(state, "state"),
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
    ],
    { cwd: state, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", DO_NOT_TRACK: "1" } },
  );
  worker.stdout?.on("data", (c: Buffer) => void (output = (output + c.toString()).slice(-20_000)));
  worker.stderr?.on("data", (c: Buffer) => void (output = (output + c.toString()).slice(-20_000)));
  await waitForHealth(`http://127.0.0.1:${port}`, worker, () => output);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  if (worker?.pid !== undefined && worker.exitCode === null) {
    try {
      process.kill(-worker.pid, "SIGTERM");
    } catch {}
    await new Promise((r) => setTimeout(r, 1000));
    try {
      process.kill(-worker.pid, "SIGKILL");
    } catch {}
  }
  await new Promise<void>((resolve) => callbackServer.close(() => resolve()));
  await idp?.close();
  rmSync(state, { recursive: true, force: true });
});

/** Registers a client (dynamic registration, as VS Code or Claude would) and builds its authorization URL. */
async function authorizationUrl(): Promise<string> {
  const res = await fetch(`${origin}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Browser Test Agent <b>", redirect_uris: [callbackUrl], token_endpoint_auth_method: "none" }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { client_id } = (await res.json()) as { client_id: string };
  const challenge = createHash("sha256").update("browser-test-verifier-0123456789abcdef0123456789").digest("base64url");
  const params = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: callbackUrl,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "browser-state",
    scope: "skills:read offline_access",
    resource: origin,
  });
  return `${origin}/oauth/authorize?${params}`;
}

describe("OAuth sign-in and consent pages", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`sign in, consent, Allow: the browser reaches the client's callback with the code (${colorScheme}); axe finds nothing serious`, async () => {
      const context = await browser.newContext({ colorScheme, viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      const blocked: string[] = [];
      page.on("console", (m) => {
        if (/Content Security Policy|Refused/i.test(m.text())) blocked.push(m.text());
      });
      await page.goto(await authorizationUrl());
      await page.getByRole("heading", { name: "Connect an app to this shelf" }).waitFor();
      // The client's self-chosen name is text, not markup, and flagged as unverified.
      assert.ok((await page.textContent("main"))?.includes("Browser Test Agent <b>"));
      assert.ok((await page.textContent("main"))?.includes("its name is not verified"));
      assert.ok((await page.textContent("main"))?.includes("app on your computer"));
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel("Read token for this shelf").fill("sk_wrong_token_0123456789abcdef");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("alert").waitFor();
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel("Read token for this shelf").fill(READ_TOKEN);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { name: "Allow this app to read the shelf?" }).waitFor();
      assert.ok((await page.textContent("main"))?.includes("skills:read"));
      assert.deepEqual(await seriousViolations(page), []);

      const before = callbacks.length;
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((url) => url.href.startsWith(callbackUrl));
      assert.equal(callbacks.length, before + 1);
      const back = callbacks.at(-1)!;
      assert.ok(back.searchParams.get("code"));
      assert.equal(back.searchParams.get("state"), "browser-state");
      assert.equal(back.searchParams.get("iss"), origin);
      assert.deepEqual(blocked, []);
      await context.close();
    });
  }

  it("Sign in with the identity provider, consent, Allow: the same callback with the code; axe finds nothing serious", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) blocked.push(m.text());
    });
    await page.goto(await authorizationUrl());
    const before = idp.tokenRequests.length;
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await page.getByRole("heading", { name: "Allow this app to read the shelf?" }).waitFor();
    assert.equal(idp.tokenRequests.length, before + 1, "the shelf exchanged the code at the provider");
    assert.deepEqual(await seriousViolations(page), []);
    const seen = callbacks.length;
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(callbackUrl));
    assert.equal(callbacks.length, seen + 1);
    assert.ok(callbacks.at(-1)!.searchParams.get("code"));
    assert.equal(callbacks.at(-1)!.searchParams.get("state"), "browser-state");
    assert.deepEqual(blocked, []);
    await context.close();
  });

  it("Deny sends the browser back to the client with access_denied and no code", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(await authorizationUrl());
    await page.getByLabel("Read token for this shelf").fill(READ_TOKEN);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((url) => url.href.startsWith(callbackUrl));
    const back = callbacks.at(-1)!;
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(back.searchParams.get("code"), null);
    await context.close();
  });
});
