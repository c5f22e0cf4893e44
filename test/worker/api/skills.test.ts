// The skills group of /v1 over a fixture shelf in workerd: every answer compared with the core
// functions the CLI uses, computed here on the same published bytes (same bytes for text), and
// every answer checked against the served OpenAPI document.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renderCatalog } from "../../../src/core/disclosure/catalog.ts";
import { renderOutline, sectionOf } from "../../../src/core/disclosure/outline.ts";
import { classifyResource, encodeResourceContent } from "../../../src/core/disclosure/resources.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { decodeSkillMd, parseSkillMd } from "../../../src/core/skill/skill-md.ts";
import { evaluateTrust } from "../../../src/core/trust/evaluate.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import type { PublishedFixture } from "../fixture-shelf.ts";
import { expectDocumented } from "./openapi-check.ts";
import { ADVISORIES, bodyOf, get, outlineFromBytes, publishSkillsFixture, REVIEW_ADVISORY } from "./skills-fixture.ts";

let shelf: PublishedFixture;
const SERVED = ["atlas", "beacon", "solo"];

/** GET, checked against the OpenAPI document. */
async function documented(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await get(path, init, bindings);
  await expectDocumented(init.method ?? "get", path, res);
  return res;
}

async function json<T = Record<string, unknown>>(path: string): Promise<T> {
  const res = await documented(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  resetStorageMemory();
  shelf = await publishSkillsFixture();
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

interface Summary {
  name: string;
  trust: { level: string; requires_review: boolean };
  links: { self: string; skill_md: { url: string; pinned_url: string; sha256: string }; archives: { tar_gz: { url: string; pinned_url: string } } };
  [key: string]: unknown;
}
interface Page {
  generation: string;
  skills: Summary[];
  next_cursor: string | null;
}

describe("GET /v1/skills", () => {
  it("lists every servable skill from its shard entry, the blocked one absent, requires_review as the edge decides it", async () => {
    const page = await json<Page>("/v1/skills");
    expect(page.generation).toBe(shelf.generation);
    expect(page.next_cursor).toBeNull();
    expect(page.skills.map((s) => s.name)).toEqual(SERVED);
    for (const summary of page.skills) {
      const entry = shelf.entries.get(summary.name)!;
      expect(summary).toMatchObject({
        description: entry.description,
        version: entry.version,
        tags: entry.tags,
        when_to_use: entry.when_to_use,
        when_not_to_use: entry.when_not_to_use,
        file_count: entry.file_count,
        total_bytes: entry.total_bytes,
        has_scripts: entry.has_scripts,
        tree_hash: entry.tree_hash,
      });
      expect(summary.trust.level).toBe(entry.trust.level);
    }
    const review = Object.fromEntries(page.skills.map((s) => [s.name, s.trust.requires_review]));
    // beacon: the build said so; solo: an advisory in force now matches it without blocking.
    expect(review).toEqual({ atlas: false, beacon: true, solo: true });
  });

  it("links SKILL.md in the static layout and the archives, each also pinned, and every link serves the digest it names", async () => {
    const { skills } = await json<Page>("/v1/skills");
    const atlas = skills[0]!;
    expect(atlas.links.self).toBe("/v1/skills/atlas");
    expect(atlas.links.skill_md.url).toBe("/skills/atlas/SKILL.md");
    expect(atlas.links.skill_md.pinned_url).toBe(`/g/${shelf.generation}/skills/atlas/SKILL.md`);
    expect(atlas.links.archives.tar_gz.pinned_url).toBe(`/g/${shelf.generation}/.well-known/agent-skills/atlas.tar.gz`);
    const links = atlas.links as unknown as Record<string, unknown> & {
      skill_md: { url: string; pinned_url: string; sha256: string; size: number };
      archives: Record<string, { url: string; pinned_url: string; sha256: string; size: number }>;
    };
    for (const link of [links.skill_md, ...Object.values(links.archives)]) {
      for (const url of [link.url, link.pinned_url]) {
        const bytes = new Uint8Array(await (await get(url)).arrayBuffer());
        expect(bytes.byteLength, url).toBe(link.size);
        expect(await sha256Hex(bytes), url).toBe(link.sha256);
      }
    }
    expect((await get(atlas.links.self)).status).toBe(200);
  });

  it("walks pages with an opaque cursor, in name order, to a null next_cursor", async () => {
    for (const limit of [1, 2, 3]) {
      const names: string[] = [];
      let path = `/v1/skills?limit=${limit}`;
      for (let pages = 0; pages < 10; pages++) {
        const page = await json<Page>(path);
        expect(page.skills.length).toBeLessThanOrEqual(limit);
        names.push(...page.skills.map((s) => s.name));
        if (page.next_cursor === null) break;
        expect(page.next_cursor).not.toContain(page.skills.at(-1)!.name);
        path = `/v1/skills?limit=${limit}&cursor=${page.next_cursor}`;
      }
      expect(names, `limit=${limit}`).toEqual(SERVED);
    }
  });

  it("filters tags case-insensitively exactly as the catalog does", async () => {
    const skills = [...shelf.entries.values()].filter((e) => e.name !== "bad-skill").map((e) => ({ name: e.name, description: e.description, tags: e.tags }));
    const catalogNames = (tags: string[]) => [...renderCatalog(skills, { format: "markdown", tags }).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const tags of [["docs"], ["NAVIGATION"], ["ops", "docs"], ["nothing-has-this"], []]) {
      const page = await json<Page>(`/v1/skills?tags=${encodeURIComponent(tags.join(","))}`);
      expect(
        page.skills.map((s) => s.name),
        tags.join(","),
      ).toEqual(catalogNames(tags));
    }
    expect((await json<Page>("/v1/skills?tags=docs")).skills.map((s) => s.name)).toEqual(["atlas"]);
  });

  it("keeps include and drops exclude (exclude wins; an unknown exclude is ignored)", async () => {
    const names = async (q: string) => (await json<Page>(`/v1/skills?${q}`)).skills.map((s) => s.name);
    expect(await names("include=solo,atlas")).toEqual(["atlas", "solo"]);
    expect(await names("exclude=atlas,no-such-skill")).toEqual(["beacon", "solo"]);
    expect(await names("include=solo,atlas&exclude=solo")).toEqual(["atlas"]);
  });
});

describe("GET /v1/skills/{name}", () => {
  it("gives the verbatim frontmatter, files, hashes, requirements and archive URLs of the record", async () => {
    const record = shelf.records.get("atlas")!;
    const detail = await json("/v1/skills/atlas");
    const parsed = parseSkillMd(decodeSkillMd(shelf.files.get("atlas")!.get("SKILL.md")!));
    expect(detail.frontmatter).toEqual(JSON.parse(JSON.stringify(parsed.frontmatter)));
    expect(detail.files).toEqual(record.files);
    expect(detail.files).toEqual(
      await Promise.all(
        [...shelf.files.get("atlas")!]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(async ([path, bytes]) => expect.objectContaining({ path, size: bytes.byteLength, sha256: await sha256Hex(bytes) })),
      ),
    );
    expect(detail).toMatchObject({
      generation: shelf.generation,
      name: "atlas",
      version: "2.1.0",
      license: "MIT",
      content_hash: await sha256Hex(shelf.files.get("atlas")!.get("SKILL.md")!),
      tree_hash: record.tree_hash,
      requires: { requires_tools: record.requires.tools, requires_mcp: ["github"] },
      links: {
        body: "/v1/skills/atlas/body",
        outline: "/v1/skills/atlas/outline",
        resources: "/v1/skills/atlas/resources",
        archives: { zip: { url: "/.well-known/agent-skills/atlas.zip", pinned_url: `/g/${shelf.generation}/.well-known/agent-skills/atlas.zip` } },
      },
    });
  });

  it("gives the trust verdict evaluate_trust reaches under the advisories in force now, with the build's verdict", async () => {
    for (const name of SERVED) {
      const record = shelf.records.get(name)!;
      const entry = shelf.entries.get(name)!;
      const detail = await json<{ trust: Record<string, unknown> }>(`/v1/skills/${name}`);
      const verdict = evaluateTrust(
        { validations: [], advisories: ADVISORIES },
        { tree_hash: record.tree_hash, name, source: entry.trust.source, has_scripts: record.has_scripts },
      );
      expect(detail.trust.level, name).toBe(verdict.level);
      expect(detail.trust.reasons, name).toEqual(expect.arrayContaining(verdict.reasons));
      expect(detail.trust.advisories, name).toEqual(verdict.advisories);
      expect(detail.trust.build, name).toEqual(record.trust.verdict);
      expect(detail.trust.source, name).toBe("first-party");
    }
    const solo = await json<{ trust: { requires_review: boolean; attachable: boolean; advisories: Array<{ advisory_id: string }> } }>("/v1/skills/solo");
    expect(solo.trust.requires_review).toBe(true);
    expect(solo.trust.attachable).toBe(false);
    expect(solo.trust.advisories.map((a) => a.advisory_id)).toEqual([REVIEW_ADVISORY.advisory_id]);
  });
});

describe("GET /v1/skills/{name}/body, /outline and /sections/{key}", () => {
  it("serves the body exactly as get_body returns it", async () => {
    for (const name of SERVED) {
      const res = await documented(`/v1/skills/${name}/body`);
      expect(res.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
      expect(await res.text(), name).toBe(bodyOf(shelf, name));
    }
  });

  it("serves the outline the build stored as JSON, equal to outlineOf over the published body", async () => {
    for (const name of SERVED) {
      const outline = await json(`/v1/skills/${name}/outline`);
      expect(outline, name).toEqual(shelf.records.get(name)!.outline);
      expect(outline, name).toEqual(JSON.parse(JSON.stringify(outlineFromBytes(shelf, name))));
    }
  });

  it("renders the outline text byte for byte as `skillshelf outline` prints it", async () => {
    for (const name of SERVED) {
      const res = await documented(`/v1/skills/${name}/outline?format=text`);
      expect(res.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
      expect(await res.text(), name).toBe(renderOutline(outlineFromBytes(shelf, name)));
    }
    expect(await (await get("/v1/skills/atlas/outline?format=json")).text()).toBe(await (await get("/v1/skills/atlas/outline")).text());
  });

  it("serves every section byte for byte as `skillshelf section` prints it (repeated, nested, non-ASCII, after a fenced #)", async () => {
    const outline = outlineFromBytes(shelf, "atlas");
    expect(outline.sections.map((s) => s.key)).toEqual(["preamble", "setup", "steps", "steps-2", "tapes-finales"]);
    for (const { key } of outline.sections) {
      const res = await documented(`/v1/skills/atlas/sections/${key}`);
      expect(res.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
      expect(await res.text(), key).toBe(sectionOf(bodyOf(shelf, "atlas"), outline, key));
    }
  });

  it("answers an unknown key with a 404 problem listing every key in outline order", async () => {
    const res = await documented("/v1/skills/atlas/sections/setup-3");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    const body = (await res.json()) as { code: string; keys: string[]; param: string };
    expect(body.code).toBe("not_found");
    expect(body.param).toBe("key");
    expect(body.keys).toEqual(outlineFromBytes(shelf, "atlas").sections.map((s) => s.key));
  });
});

interface ResourceEntry {
  name: string;
  path: string;
  size: number;
  sha256: string;
  media_type: string;
  listed: boolean;
  url: string;
  pinned_url: string;
}

describe("GET /v1/skills/{name}/resources", () => {
  it("groups every file under references/, scripts/ and assets/ by folder, named inside it; SKILL.md and other folders are not resources", async () => {
    const list = await json<Record<"references" | "scripts" | "assets", ResourceEntry[]> & { skill: string; generation: string }>("/v1/skills/atlas/resources");
    expect(list.skill).toBe("atlas");
    expect(list.generation).toBe(shelf.generation);
    const names = (kind: "references" | "scripts" | "assets") => list[kind].map((r) => [r.name, r.listed]);
    // listed: what list_skill_resources reports (flat names agentskills-http accepts).
    expect(names("references")).toEqual([
      ["data.json", true],
      ["deep/more.md", false],
      ["guide.md", true],
      ["read me.md", false],
    ]);
    expect(names("scripts")).toEqual([["run.sh", true]]);
    expect(names("assets")).toEqual([
      ["blob.bin", true],
      ["logo.png", true],
    ]);
    const record = shelf.records.get("atlas")!;
    for (const entry of [...list.references, ...list.scripts, ...list.assets]) {
      const bytes = shelf.files.get("atlas")!.get(entry.path)!;
      expect(entry.size).toBe(bytes.byteLength);
      expect(entry.sha256).toBe(await sha256Hex(bytes));
      expect(entry.media_type).toBe(record.files.find((f) => f.path === entry.path)!.media_type);
      expect(entry.url).toBe(`/v1/skills/atlas/resources/${entry.path.split("/").map(encodeURIComponent).join("/")}`);
      expect(entry.pinned_url).toBe(`/g/${shelf.generation}${entry.url}`);
    }
  });
});

describe("GET /v1/skills/{name}/resources/{path}", () => {
  it("serves each resource's bytes exactly as the static layout serves the file (type, ETag, digest)", async () => {
    const list = await json<Record<"references" | "scripts" | "assets", ResourceEntry[]>>("/v1/skills/atlas/resources");
    for (const entry of [...list.references, ...list.scripts, ...list.assets]) {
      for (const url of [entry.url, entry.pinned_url]) {
        const res = await documented(url);
        expect(res.status, url).toBe(200);
        const staticRes = await get(`/skills/atlas/${entry.path.split("/").map(encodeURIComponent).join("/")}`);
        for (const header of ["Content-Type", "Content-Disposition", "ETag", "Repr-Digest", "Content-Length", "Accept-Ranges"]) {
          expect(res.headers.get(header), `${url} ${header}`).toBe(staticRes.headers.get(header));
        }
        expect(new Uint8Array(await res.arrayBuffer()), url).toEqual(shelf.files.get("atlas")!.get(entry.path));
      }
    }
  });

  it("with as=text gives encode_resource_content's text and classify_resource's media type and flags", async () => {
    for (const [path, bytes] of shelf.files.get("atlas")!) {
      if (!/^(references|scripts|assets)\//.test(path)) continue;
      const name = path.slice(path.indexOf("/") + 1);
      const body = await json(`/v1/skills/atlas/resources/${path.split("/").map(encodeURIComponent).join("/")}?as=text`);
      const media = classifyResource(name, bytes);
      expect(body, path).toEqual({
        path,
        name,
        media_type: media.media_type,
        renderable: media.renderable,
        is_text: media.is_text,
        size: bytes.byteLength,
        sha256: await sha256Hex(bytes),
        content: encodeResourceContent(name, bytes),
      });
    }
    const png = await json<{ renderable: boolean; media_type: string; content: string }>("/v1/skills/atlas/resources/assets/logo.png?as=text");
    expect(png.renderable).toBe(true);
    expect(png.media_type).toBe("image/png");
    expect(JSON.parse(png.content)).toMatchObject({ name: "logo.png", encoding: "base64" });
  });

  it("as=bytes is the default", async () => {
    const a = await get("/v1/skills/atlas/resources/assets/blob.bin");
    const b = await get("/v1/skills/atlas/resources/assets/blob.bin?as=bytes");
    expect(new Uint8Array(await b.arrayBuffer())).toEqual(new Uint8Array(await a.arrayBuffer()));
    expect(b.headers.get("ETag")).toBe(a.headers.get("ETag"));
  });
});
