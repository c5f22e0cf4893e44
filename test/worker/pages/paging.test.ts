// The shelf page's pages of 100: a 230-skill shelf lists 100, 100 and 30, in name order, with
// previous/next links that keep the search and tag; out-of-range and malformed page numbers.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import app from "../../../src/worker/index.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { HOME_PAGE_SIZE } from "../../../src/worker/views/pages/home.tsx";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";

const SKILLS = 230;
const names = Array.from({ length: SKILLS }, (_, i) => `skill-${String(i).padStart(3, "0")}`);

async function page(query: string): Promise<{ status: number; html: string; listed: string[] }> {
  const res = await app.request(`https://shelf.test/ui/${query}`, { headers: { Accept: "text/html" } }, env);
  const html = await res.text();
  return { status: res.status, html, listed: [...html.matchAll(/<h3><a href="\/ui\/skills\/([a-z0-9-]+)">/g)].map((m) => m[1]!) };
}

beforeAll(async () => {
  resetStorageMemory();
  await publishFixtureShelf(
    env,
    names.map((name) => ({ name, description: `Skill ${name} for testing pages.` })),
  );
});

beforeEach(() => resetComputedCache());

describe("the shelf page's pagination", () => {
  it("lists 100 a page in name order, with previous and next links", async () => {
    expect(HOME_PAGE_SIZE).toBe(100);
    const first = await page("");
    expect(first.listed).toEqual(names.slice(0, 100));
    expect(first.html).toContain("Skills: 1–100 of 230");
    expect(first.html).toContain('<a href="/ui/?page=2" rel="next">Next page</a>');
    expect(first.html).not.toContain('rel="prev"');
    const second = await page("?page=2");
    expect(second.listed).toEqual(names.slice(100, 200));
    expect(second.html).toContain('<a href="/ui/" rel="prev">Previous page</a>');
    const last = await page("?page=3");
    expect(last.listed).toEqual(names.slice(200));
    expect(last.html).toContain("Page 3 of 3");
    expect(last.html).not.toContain('rel="next"');
  });

  it("keeps the search in the page links", async () => {
    const searched = await page("?q=testing+pages&page=2");
    expect(searched.listed).toHaveLength(100);
    expect(searched.html).toContain('href="/ui/?q=testing+pages&amp;page=3" rel="next"');
  });

  it("answers a page past the end with an empty list, and reads a malformed page number as the first", async () => {
    const past = await page("?page=9");
    expect(past.status).toBe(200);
    expect(past.listed).toEqual([]);
    for (const bad of ["0", "-1", "x", "1e3", "99999999999999999999"]) {
      const res = await page(`?page=${bad}`);
      expect(res.status, bad).toBe(200);
      if (bad !== "99999999999999999999") expect(res.listed, bad).toEqual(names.slice(0, 100));
    }
  });
});
