// The pages (src/worker/views/pages) over a fixture shelf in workerd: negotiation at "/" (Vary: Accept,
// the JSON 404 kept for agents), the page CSP and the raw files' sandbox CSP, search and tag
// filter agreeing with the read API, the skill page (outline, files, install snippets), a
// blocked skill, XSS inertness at the HTML level, caching (304, no storage reads warm), and the
// private shelf's sign-in cookie (HttpOnly, Secure, SameSite=Lax, Path=/ui; accepted on /ui only).
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { isUiPath } from "../../../src/worker/auth/read-access.ts";
import { pageCsp, prefersHtml, readCookie } from "../../../src/worker/views/pages/security.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import app from "../../../src/worker/index.ts";
import { newCounts, total, adminEnv, workerFetch } from "../admin/helpers.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, type PublishedFixture } from "../fixture-shelf.ts";

const BASE = "https://shelf.test";
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00, 0x80]);
const TOKEN = "sk_pages_read_token_0123456789abcdef";

const XSS_BODY = [
  "# Usage",
  "",
  "<script>alert('body')</script>",
  "",
  "[click](javascript:alert('link'))",
  "",
  '<img src=x onerror="alert(1)">',
  "",
  "## Details",
  "",
  "See [the guide](references/guide.md) and ![logo](assets/logo.png).",
  "",
].join("\n");

let shelf: PublishedFixture;

function get(path: string, headers: Record<string, string> = { Accept: BROWSER }, bindings: object = env): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, { headers }, bindings));
}

/** Names of the skills a shelf page lists, in order. */
function listed(html: string): string[] {
  return [...html.matchAll(/<h3><a href="[^"]*\/ui\/skills\/([a-z0-9-]+)">/g)].map((m) => m[1]!);
}

beforeAll(async () => {
  resetStorageMemory();
  shelf = await publishFixtureShelf(
    env,
    [
      {
        name: "solo",
        description: "Review a pull request for risky changes.",
        files: { "SKILL.md": skillMd("solo", "Review a pull request for risky changes.", ["review"]) },
      },
      {
        name: "nested",
        description: "Triage a flaky test in CI.",
        files: {
          "SKILL.md": skillMd("nested", "Triage a flaky test in CI.", ["testing", "ci"], XSS_BODY),
          "references/guide.md": "# Guide\n\n<b>bold?</b>\n",
          "assets/logo.png": PNG,
          "assets/page.html": "<script>alert(1)</script>\n",
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
        },
      },
      {
        name: "xss-front",
        description: '<img src=x onerror="alert(2)"> descriptions are text',
        files: { "SKILL.md": skillMd("xss-front", '"<img src=x onerror=alert(2)> descriptions are text"', ["<b>tag</b>"]) },
      },
      { name: "review-me", description: "Needs a human look first.", requiresReview: true },
      { name: "bad-skill", description: "Blocked after the build." },
    ],
    { advisories: [BLOCKING_ADVISORY] },
  );
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

function skillMd(name: string, description: string, tags: string[], body = `# ${name}\n\nFollow the steps.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  tags: ${JSON.stringify(tags.join(", "))}\n---\n\n${body}`;
}

describe("content negotiation at /", () => {
  it("tells browsers from agents by Accept", () => {
    expect(prefersHtml(BROWSER)).toBe(true);
    expect(prefersHtml("text/html")).toBe(true);
    expect(prefersHtml("*/*")).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml("application/json, text/html;q=0.5")).toBe(false);
    expect(prefersHtml("text/html;q=0")).toBe(false);
  });

  it("answers a browser with the shelf page, varying on Accept, under the page CSP", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("Vary")).toBe("Accept");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toBe(await pageCsp());
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; script-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|https?:/);
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=60, must-revalidate, no-transform");
    const html = await res.text();
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(listed(html)).toEqual(["nested", "review-me", "solo", "xss-front"]);
    expect(html).toContain(shelf.generation.slice(0, 12));
    expect(html).toContain("2026-11-30 10:00 UTC");
    // The advisory in force, and the skill it blocks (linked, not listed).
    expect(html).toContain("ADV-2026-001");
    expect(html).toContain('href="/ui/skills/bad-skill"');
  });

  it("keeps the JSON 404 for agents and curl, with Vary: Accept", async () => {
    for (const accept of ["*/*", "application/json", "application/json, text/html;q=0.5", ""]) {
      const res = await get("/", accept ? { Accept: accept } : {});
      expect(res.status, accept).toBe(404);
      expect(res.headers.get("Content-Type")).toBe("application/json");
      expect(res.headers.get("Vary")).toBe("Accept");
      expect(((await res.json()) as { error: string }).error).toBe("not_found");
    }
  });

  it("names where agents and curl go instead: the well-known index, /v1/shelf, /mcp, the pages", async () => {
    const res = await get("/", { Accept: "application/json" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: string; message: string; links: Record<string, string> };
    expect(body.error).toBe("not_found");
    expect(body.message).toContain("/.well-known/agent-skills/index.json");
    expect(body.message).toContain("/v1/shelf");
    expect(body.message).toContain("/mcp");
    expect(body.links).toEqual({
      index: "/.well-known/agent-skills/index.json",
      shelf: "/v1/shelf",
      mcp: "/mcp",
      pages: "/ui/",
    });
  });

  it("serves the same page at /ui/ and redirects /ui there", async () => {
    const page = await get("/ui/");
    expect(page.status).toBe(200);
    expect(page.headers.get("Vary")).toBeNull();
    expect(listed(await page.text())).toEqual(["nested", "review-me", "solo", "xss-front"]);
    const bare = await get("/ui");
    expect(bare.status).toBe(301);
    expect(bare.headers.get("Location")).toBe("/ui/");
  });

  it("answers 304 from the page's ETag, and a warm page reads no storage", async () => {
    const counts = newCounts();
    const call = workerFetch(await adminEnv(counts));
    const first = await call(new Request(`${BASE}/ui/?q=review`, { headers: { Accept: BROWSER } }));
    expect(first.status).toBe(200);
    const etag = first.headers.get("ETag")!;
    const cold = total(counts, "R2.") + total(counts, "KV.");
    expect(cold).toBeGreaterThan(0);
    const again = await call(new Request(`${BASE}/ui/?q=review`, { headers: { Accept: BROWSER } }));
    expect(await again.text()).toBe(await first.text());
    const revalidated = await call(new Request(`${BASE}/ui/?q=review`, { headers: { Accept: BROWSER, "If-None-Match": etag } }));
    expect(revalidated.status).toBe(304);
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(cold);
  });
});

describe("the shelf page's search, tags and pages", () => {
  it("narrows the list by search in the order /v1/search ranks", async () => {
    const html = await (await get("/?q=flaky+test")).text();
    const api = (await (await get("/v1/search?q=flaky+test&limit=50", {})).json()) as { results: Array<{ name: string }> };
    expect(api.results.length).toBeGreaterThan(0);
    expect(listed(html)).toEqual(api.results.map((r) => r.name));
    expect(listed(html)).toEqual(["nested"]);
    expect(html).toContain('value="flaky test"');
  });

  it("filters by tag as /v1/skills?tags= does, and combines with search", async () => {
    const html = await (await get("/?tag=CI")).text();
    const api = (await (await get("/v1/skills?tags=CI", {})).json()) as { skills: Array<{ name: string }> };
    expect(listed(html)).toEqual(api.skills.map((s) => s.name));
    expect(listed(html)).toEqual(["nested"]);
    expect(listed(await (await get("/?tag=ci&q=review")).text())).toEqual([]);
    expect(listed(await (await get("/?tag=no-such-tag")).text())).toEqual([]);
  });

  it("says why a search cannot be used instead of failing", async () => {
    const stop = await get("/?q=the+and+of");
    expect(stop.status).toBe(200);
    expect(await stop.text()).toContain("only common words");
    const long = await get(`/?q=${"a".repeat(300)}`);
    expect(long.status).toBe(200);
    expect(await long.text()).toContain("too long");
  });

  it("escapes tags and descriptions (frontmatter XSS is inert)", async () => {
    const html = await (await get("/")).text();
    expect(html).toContain("&lt;img src=x onerror=");
    expect(html).not.toMatch(/<img src=x/i);
    expect(html).toContain("&lt;b&gt;tag&lt;/b&gt;");
    expect(html).not.toContain("<b>tag</b>");
  });
});

describe("a skill's page", () => {
  it("shows the rendered body, its outline with tokens, the files and install snippets", async () => {
    const res = await get("/ui/skills/nested");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Security-Policy")).toBe(await pageCsp());
    const html = await res.text();
    const record = shelf.records.get("nested")!;
    for (const section of record.outline.sections) {
      expect(html).toContain(`<a href="#section-${section.key}">${section.title}</a> <span class="muted">(${section.tokens} tokens)</span>`);
      expect(html).toContain(`id="section-${section.key}"`);
    }
    for (const file of record.files) {
      expect(html).toContain(`<code>${file.sha256}</code>`);
      expect(html).toContain(file.media_type);
    }
    expect(html).toContain('<img src="/ui/files/nested/assets/logo.png"');
    // Relative links in the body go to the file view.
    expect(html).toContain('<a href="/ui/files/nested/references/guide.md">the guide</a>');
    expect(html).toContain("npx skills add https://shelf.test --skill nested");
    expect(html).toContain("HTTPStaticFileSkillProvider(&quot;https://shelf.test/skills&quot;");
    expect(html).toContain("https://shelf.test/mcp?include=nested");
    expect(html).toContain(`https://shelf.test/g/${shelf.generation}/.well-known/agent-skills/nested/SKILL.md`);
    expect(html).toContain('data-copy="install-cli"');
    expect(html).toContain("CLAWHUB_REGISTRY=https://shelf.test clawhub install nested");
    expect(html).toContain("claude plugin marketplace add https://shelf.test/.claude-plugin/marketplace.json\nclaude plugin install nested@shelf.test");
  });

  it("renders HTML in the body as text and drops javascript: links", async () => {
    const html = await (await get("/ui/skills/nested")).text();
    expect(html).toContain("&lt;script&gt;alert('body')&lt;/script&gt;");
    expect(html).toContain("<p>[click](javascript:alert('link'))</p>");
    expect(html).not.toContain("<script>alert");
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toMatch(/<img src="?x/i);
    // The only scripts are the page's own, allowed by hash.
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it("shows the review state with its reasons", async () => {
    const html = await (await get("/ui/skills/review-me")).text();
    expect(html).toContain("requires review");
    expect(html).toContain("no: a person must review it first");
  });

  it("says why a blocked skill is blocked and offers nothing to install (410)", async () => {
    const res = await get("/ui/skills/bad-skill");
    expect(res.status).toBe(410);
    expect(res.headers.get("Content-Security-Policy")).toBe(await pageCsp());
    const html = await res.text();
    expect(html).toContain("ADV-2026-001");
    expect(html).toContain(BLOCKING_ADVISORY.hidden_issue);
    expect(html).not.toContain("npx skills add");
    expect(html).not.toContain("/ui/files/bad-skill/");
    expect((await get("/ui/files/bad-skill/SKILL.md")).status).toBe(410);
  });

  it("answers 404 pages for an unknown skill or path under /ui", async () => {
    for (const path of ["/ui/skills/no-such-skill", "/ui/skills/NOT_A_NAME", "/ui/nothing-here"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    }
  });

  it("serves files for viewing as text, images as images, downloads as attachments, all sandboxed", async () => {
    // Encoded separators never name a stored path, here as on every read route.
    for (const raw of ["references%2Fguide.md", "references%5Cguide.md", "references/guide.md%00"]) {
      expect((await get(`/ui/files/nested/${raw}`)).status, raw).toBe(404);
    }
    const text = await get("/ui/files/nested/references/guide.md");
    expect(text.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(await text.text()).toBe("# Guide\n\n<b>bold?</b>\n");
    const html = await get("/ui/files/nested/assets/page.html");
    expect(html.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    const image = await get("/ui/files/nested/assets/logo.png");
    expect(image.headers.get("Content-Type")).toBe("image/png");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG);
    const download = await get("/ui/files/nested/scripts/run.sh?download=1");
    expect(download.headers.get("Content-Disposition")).toBe('attachment; filename="run.sh"');
    expect(download.headers.get("Content-Type")).toBe("application/octet-stream");
    for (const res of [text, html, image, download]) expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
    expect((await get("/ui/files/nested/references/missing.md")).status).toBe(404);
  });

  it("keeps links pinned under /g/<generation>/ui", async () => {
    const res = await get(`/g/${shelf.generation}/ui/skills/solo`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`href="/g/${shelf.generation}/ui/"`);
  });
});

describe("a private shelf", () => {
  async function privateEnv(capability = "off") {
    return { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: capability, READ_TOKEN_SHA256: await sha256Hex(TOKEN) };
  }
  /** The session cookie a sign-in with the token sets (name=value). */
  async function signedIn(bindings: object): Promise<string> {
    const res = await Promise.resolve(
      app.request(
        `${BASE}/ui/sign-in`,
        {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
          body: new URLSearchParams({ token: TOKEN }).toString(),
        },
        bindings,
      ),
    );
    const set = res.headers.get("Set-Cookie") ?? "";
    return set.slice(0, set.indexOf(";"));
  }

  it("asks a browser for the token (401 sign-in form), and sends / to /ui/", async () => {
    const bindings = await privateEnv();
    const page = await get("/ui/", { Accept: BROWSER }, bindings);
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/ui/sign-in">');
    expect(html).toContain('<label for="token">Read token</label>');
    expect(html).not.toContain("solo");
    const home = await get("/", { Accept: BROWSER }, bindings);
    expect(home.status).toBe(303);
    expect(home.headers.get("Location")).toBe("/ui/");
    // Agents keep the read group's 401 (JSON) everywhere else.
    expect((await get("/v1/skills", {}, bindings)).status).toBe(401);
  });

  it("signs in with a valid token: an HttpOnly, Secure, SameSite=Lax cookie scoped to /ui", async () => {
    const bindings = await privateEnv();
    const post = (token: string, headers: Record<string, string> = { Origin: BASE }) =>
      Promise.resolve(
        app.request(
          `${BASE}/ui/sign-in`,
          { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams({ token }).toString() },
          bindings,
        ),
      );
    const wrong = await post("not-the-token");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("Set-Cookie")).toBeNull();
    expect((await post("x".repeat(5000))).status).toBe(413);
    expect(await wrong.text()).toContain("not accepted");
    expect((await post(TOKEN, { Origin: "https://evil.test" })).status).toBe(403);
    expect((await post(TOKEN, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    // Issue 25: `Origin: null` without Fetch Metadata (an old browser's cross-site form) and no proof at all are refused.
    expect((await post(TOKEN, { Origin: "null" })).status).toBe(403);
    expect((await post(TOKEN, {})).status).toBe(403);
    expect((await post(TOKEN, { Origin: "null", "Sec-Fetch-Site": "same-origin" })).status).toBe(303);
    expect((await post(TOKEN, { "Sec-Fetch-Site": "same-origin" })).status).toBe(303);
    const ok = await post(TOKEN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/ui/");
    // The cookie holds an opaque session value, never the token (nor anything the API would take as one).
    const set = ok.headers.get("Set-Cookie")!;
    expect(set).toMatch(/^skillshelf_read=s1\.[0-9a-f]{64}\.\d+\.[A-Za-z0-9_-]{43}; Path=\/ui; Max-Age=43200; HttpOnly; Secure; SameSite=Lax$/);
    expect(set).not.toContain(TOKEN);
    const session = set.slice(0, set.indexOf(";"));
    expect((await get("/v1/skills", { Authorization: `Bearer ${session.slice("skillshelf_read=".length)}` }, bindings)).status).toBe(401);
    expect((await get("/ui/", { Accept: BROWSER, Cookie: session }, bindings)).status).toBe(200);
    // The raw token as a cookie, or a session whose MAC was tampered with, signs nothing in.
    expect((await get("/ui/", { Accept: BROWSER, Cookie: `skillshelf_read=${TOKEN}` }, bindings)).status).toBe(401);
    const forged = session.replace(/\.[A-Za-z0-9_-]{43}$/, (mac) => `.${mac[1] === "A" ? "B" : "A"}${mac.slice(2)}`);
    expect((await get("/ui/", { Accept: BROWSER, Cookie: forged }, bindings)).status).toBe(401);
  });

  it("accepts the cookie on the pages' paths only (isUiPath)", () => {
    for (const path of ["/ui", "/ui/", "/ui/skills/solo", `/g/${"a".repeat(64)}/ui/skills/solo`]) expect(isUiPath(path), path).toBe(true);
    for (const path of ["/", "/uix", "/v1/ui/x", "/skills/ui/SKILL.md", "/mcp", "/c/tok/ui/", "/g/x/v1/skills"]) expect(isUiPath(path), path).toBe(false);
  });

  it("shows the shelf to the cookie on /ui only, never on the API, files or /mcp", async () => {
    const bindings = await privateEnv();
    const cookie = await signedIn(bindings);
    const page = await get("/ui/", { Accept: BROWSER, Cookie: cookie }, bindings);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toBe("private, max-age=60, must-revalidate, no-transform");
    const html = await page.text();
    expect(listed(html)).toEqual(["nested", "review-me", "solo", "xss-front"]);
    expect(html).toContain('<form method="post" action="/ui/sign-out">');
    expect(html).not.toContain(TOKEN);
    const skill = await (await get("/ui/skills/nested", { Accept: BROWSER, Cookie: cookie }, bindings)).text();
    expect(skill).not.toContain(TOKEN);
    expect(skill).toContain("&quot;Authorization&quot;: &quot;Bearer &lt;read-token&gt;&quot;");
    expect(skill).toContain("clawhub login --token &lt;read-token&gt;");
    expect((await get("/ui/files/nested/assets/logo.png", { Cookie: cookie }, bindings)).status).toBe(200);
    for (const path of ["/v1/skills", "/skills/index.json", "/skills/solo/SKILL.md", "/.well-known/agent-skills/index.json", "/v1/shelf"]) {
      expect((await get(path, { Cookie: cookie }, bindings)).status, path).toBe(401);
    }
    // The header still works on the pages.
    expect((await get("/ui/", { Accept: BROWSER, Authorization: `Bearer ${TOKEN}` }, bindings)).status).toBe(200);
  });

  it("clears a cookie that no longer verifies, and signs out", async () => {
    const bindings = await privateEnv();
    const cookie = await signedIn(bindings);
    const stale = await get("/ui/", { Accept: BROWSER, Cookie: "skillshelf_read=revoked-token-0123456789" }, bindings);
    expect(stale.status).toBe(401);
    expect(stale.headers.get("Set-Cookie")).toBe(readCookie(null));
    expect(await stale.text()).toContain("no longer accepted");
    const out = await Promise.resolve(app.request(`${BASE}/ui/sign-out`, { method: "POST", headers: { Cookie: cookie, Origin: BASE } }, bindings));
    expect(out.status).toBe(303);
    expect(out.headers.get("Set-Cookie")).toBe("skillshelf_read=; Path=/ui; Max-Age=0; HttpOnly; Secure; SameSite=Lax");
  });

  it("offers the skills CLI a capability URL only when capability URLs are on; otherwise says how to reach the shelf", async () => {
    const install = async (capability: string) => {
      const bindings = await privateEnv(capability);
      const html = await (await get("/ui/skills/solo", { Accept: BROWSER, Authorization: `Bearer ${TOKEN}` }, bindings)).text();
      return html.slice(html.indexOf('id="install"'), html.indexOf('id="instructions"'));
    };
    const off = await install("off");
    expect(off).not.toContain("/c/");
    expect(off).not.toContain("npx skills add");
    expect(off).toContain("capability URLs are off");
    expect(off).toContain("SHELF_CAPABILITY_URLS");
    expect(off).toContain("Authorization: Bearer &lt;read-token&gt;");
    // The snippets that work with a read token header stay.
    expect(off).toContain("https://shelf.test/mcp?include=solo");
    expect(off).toContain('data-copy="install-mcp"');
    const on = await install("on");
    expect(on).toContain("npx skills add -g https://shelf.test/c/&lt;read-token&gt; --skill solo");
  });

  it("keeps capability URLs working, without putting the token in the snippets", async () => {
    const bindings = await privateEnv("on");
    const res = await get(`/c/${TOKEN}/ui/skills/solo`, { Accept: BROWSER }, bindings);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`href="/c/${TOKEN}/ui/"`);
    expect(html).toContain("npx skills add https://shelf.test/c/&lt;read-token&gt; --skill solo");
    expect(html).toContain("CLAWHUB_REGISTRY=https://shelf.test/c/&lt;read-token&gt; clawhub install solo");
    expect(html).toContain("claude plugin marketplace add https://shelf.test/c/&lt;read-token&gt;/.claude-plugin/marketplace.json");
    const snippets = html.slice(html.indexOf('id="install"'), html.indexOf('id="instructions"'));
    expect(snippets).not.toContain(TOKEN);
    const home = await get(`/c/${TOKEN}`, { Accept: BROWSER }, bindings);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain(`<form class="search" method="get" action="/c/${TOKEN}">`);
    expect((await get("/c/wrong-token-0123456789/ui/", { Accept: BROWSER }, bindings)).status).toBe(404);
  });
});
