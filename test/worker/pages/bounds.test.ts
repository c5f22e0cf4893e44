// The skill page's work bound (issue 25): a valid SKILL.md of 40,000 headings and one holding a
// 4 MiB Markdown table each render within a fixed budget, counted as work, not timed: at most
// BODY_RENDER_MAX_CHARS of Markdown parsed, at most PAGE_MAX_SECTIONS headings anchored and listed,
// at most PAGE_MAX_BYTES of page, kept by the page cache and rendered once whatever Host asks.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { BODY_HTML_MAX_CHARS, BODY_RENDER_MAX_CHARS, linesAt, PAGE_MAX_SECTIONS, renderSkillBody } from "../../../src/worker/views/pages/markdown.ts";
import { PAGE_MAX_BYTES } from "../../../src/worker/views/pages/skill-route.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { generatedBytes } from "../../../src/worker/read/generated.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import app from "../../../src/worker/index.ts";
import { adminEnv, newCounts, total, workerFetch } from "../admin/helpers.ts";
import { outlineOf } from "../../../src/core/disclosure/outline.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";

const HEADINGS = 40_000;
const BROWSER = "text/html";

/** A body of `## hN` lines, 40,000 of them (about 800 KB with their blank lines). */
const headingsBody = Array.from({ length: HEADINGS }, (_, i) => `## h${i}\n\nStep ${i}.\n`).join("\n");

/** A Markdown table of at least 4 MiB. */
function tableBody(): string {
  const row = "| alpha | beta | gamma | delta |\n";
  return `| a | b | c | d |\n|---|---|---|---|\n${row.repeat(Math.ceil((4 * 1024 * 1024) / row.length))}`;
}

function skillMd(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: A skill with a very long body.\n---\n\n${body}`;
}

function render(body: string) {
  const sections = outlineOf("x", body).sections.map((s) => ({ key: s.key, level: s.level, start: s.start }));
  return renderSkillBody(body, { sections, files: new Set(["SKILL.md"]), fileUrl: (p) => `/ui/files/x/${p}` });
}

describe("renderSkillBody's bound", () => {
  it("finds each offset's line in one pass, as counting line breaks before it would", () => {
    const body = "a\nb\r\nc\rd\n\ne";
    const offsets = [11, 0, 2, 5, 7, 9, 10, 3, 4];
    const naive = offsets.map((o) => body.slice(0, o).match(/\r\n|\r|\n/g)?.length ?? 0);
    expect(linesAt(body, offsets)).toEqual(naive);
  });

  it("parses a bounded prefix of a 40,000-heading body and anchors a bounded number of its headings", () => {
    const rendered = render(headingsBody);
    expect(rendered.renderedChars).toBeLessThanOrEqual(BODY_RENDER_MAX_CHARS);
    expect(rendered.truncated).toBe(true);
    expect(rendered.anchored.size).toBeGreaterThan(0);
    expect(rendered.anchored.size).toBeLessThanOrEqual(PAGE_MAX_SECTIONS);
    expect(rendered.html.length).toBeLessThanOrEqual(BODY_HTML_MAX_CHARS);
  });

  it("parses a bounded prefix of a 4 MiB table", () => {
    const rendered = render(tableBody());
    expect(rendered.renderedChars).toBeLessThanOrEqual(BODY_RENDER_MAX_CHARS);
    expect(rendered.truncated).toBe(true);
    expect(rendered.html).toContain("<table>");
    expect(rendered.html.length).toBeLessThanOrEqual(6 * BODY_RENDER_MAX_CHARS);
  });

  it("shows a body whose references would expand past the bound as text", () => {
    const body = `[r]: https://example.test/${"a".repeat(1000)}\n\n${"[x][r] ".repeat(5000)}\n`;
    const rendered = render(body);
    expect(rendered.truncated).toBe(true);
    expect(rendered.html.startsWith("<pre>")).toBe(true);
    expect(rendered.html.length).toBeLessThanOrEqual(6 * BODY_RENDER_MAX_CHARS);
  });

  it("renders a short body whole", () => {
    const rendered = render("# Use\n\nSteps.\n");
    expect(rendered.truncated).toBe(false);
    expect([...rendered.anchored]).toEqual(["use"]);
  });
});

describe("the skill page of a very long SKILL.md", () => {
  beforeAll(async () => {
    resetStorageMemory();
    await publishFixtureShelf(env, [
      { name: "many-headings", description: "A skill with a very long body.", files: { "SKILL.md": skillMd("many-headings", headingsBody) } },
      { name: "big-table", description: "A skill with a very long body.", files: { "SKILL.md": skillMd("big-table", tableBody()) } },
    ]);
  });

  beforeEach(() => {
    resetStorageMemory();
    resetComputedCache();
    resetBodyCache();
  });

  for (const name of ["many-headings", "big-table"]) {
    it(`${name}: a page of at most PAGE_MAX_BYTES linking to SKILL.md, kept by the cache, rendered once whatever the Host`, async () => {
      const first = await app.request(`https://shelf.test/ui/skills/${name}`, { headers: { Accept: BROWSER } }, env);
      expect(first.status).toBe(200);
      const html = await first.text();
      expect(new TextEncoder().encode(html).byteLength).toBeLessThanOrEqual(PAGE_MAX_BYTES);
      expect(html).toContain(`href="/ui/files/${name}/SKILL.md"`);
      expect(html).toContain(`npx skills add https://shelf.test --skill ${name}`);
      // The cache holds what it served: a second request reads no storage at all.
      expect(generatedBytes()).toBeGreaterThanOrEqual(html.length);
      const counts = newCounts();
      const call = workerFetch(await adminEnv(counts));
      const other = await call(new Request(`https://other.test/ui/skills/${name}`, { headers: { Accept: BROWSER } }));
      expect(other.status).toBe(200);
      expect(other.headers.get("ETag")).toBe(first.headers.get("ETag"));
      const otherHtml = await other.text();
      expect(otherHtml).toContain(`npx skills add https://other.test --skill ${name}`);
      expect(otherHtml).not.toContain("shelf.test");
      expect(Number(other.headers.get("Content-Length"))).toBe(new TextEncoder().encode(otherHtml).byteLength);
      expect(total(counts, "R2.") + total(counts, "KV.")).toBe(0);
    });
  }

  it("escapes the request's origin where it fills the cached page (a host may hold a quote)", async () => {
    const res = await app.request(`http://a"b'c.test/ui/skills/many-headings`, { headers: { Accept: BROWSER } }, env);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("npx skills add http://a&quot;b&#39;c.test --skill many-headings");
    expect(html).not.toContain(`a"b'c.test`);
  });
});
