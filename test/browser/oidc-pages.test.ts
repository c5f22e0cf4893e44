// The pages' sign-in with the team's identity provider in a real browser: headless Chromium against
// `wrangler dev` serving a private copy of ./shelf with OpenID Connect set up, and a small OpenID
// Connect provider this test serves on loopback (oidc-provider.ts; test/browser/oauth-pages.test.ts
// signs in to the OAuth authorize step with it). A member arrives at the shelf's pages; an outsider
// gets the refusal page; axe finds nothing serious on the sign-in page or the refusal. Run with
// `npm run test:browser`.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";
import { startShelfOnFreePort, type RunningShelf } from "../../scripts/start.ts";
import { type LocalProvider, startOidcProvider } from "./oidc-provider.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const READ_TOKEN = "sk_browser_oidc_read_0123456789abcdef";

let state: string;
let shelf: RunningShelf;
let browser: Browser;
let idp: LocalProvider;

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

before(async () => {
  idp = await startOidcProvider();
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
      ...idp.vars,
    },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  await shelf?.stop();
  await idp?.close();
  if (state) rmSync(state, { recursive: true, force: true });
});

describe("the pages' sign-in with the identity provider", () => {
  it("a member follows 'Sign in with Acme SSO' and arrives at the shelf; axe finds nothing serious", async () => {
    idp.person = { sub: "ana", email: "ana@acme.example", email_verified: true };
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
    const before = idp.tokenRequests.length;
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await page.waitForURL((url) => url.pathname === "/ui/");
    assert.equal(idp.tokenRequests.length, before + 1, "the shelf exchanged the code at the provider");
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
    idp.person = { sub: "eve", email: "eve@evil.example", email_verified: true };
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
