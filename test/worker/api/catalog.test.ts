// GET /v1/catalog and GET /v1/fast-path over a fixture shelf in workerd: xml and markdown bytes
// equal the core's renderCatalog (the code `skillshelf catalog` runs) over the same SKILL.md
// metadata, blocked skills left out; json lists what the xml shows; the fast path equals the
// core's resolveFastPath; every error case; pinned, capability and private forms; 304 and ETags.
// Every /v1 answer is checked against the served OpenAPI document.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../src/core/api/contract.ts";
import { renderCatalog, type CatalogOptions } from "../../../src/core/disclosure/catalog.ts";
import { resolveFastPath } from "../../../src/core/disclosure/fast-path.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import type { SkillMetadata } from "../../../src/core/skill/skill.ts";
import { parseSkillMd } from "../../../src/core/skill/skill-md.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import app from "../../../src/worker/index.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key, r2Prefix } from "../../../src/worker/storage/keys.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, setFixtureAdvisories, type FixtureSkill, type PublishedFixture } from "../fixture-shelf.ts";
import { expectDocumented } from "./openapi-check.ts";

const BASE = "https://shelf.test";
const encoder = new TextEncoder();

interface Meta {
  name: string;
  description: string;
  version?: string;
  tags?: string;
  when?: string[];
  whenNot?: string[];
  body?: string;
}

/** A SKILL.md with the catalog's fields (JSON strings are valid YAML scalars, so any text survives). */
function skillMd(m: Meta): string {
  const lines = [`name: ${m.name}`, `description: ${JSON.stringify(m.description)}`];
  if (m.version) lines.push(`version: ${JSON.stringify(m.version)}`);
  if (m.when) lines.push("when_to_use:", ...m.when.map((c) => `  - ${JSON.stringify(c)}`));
  if (m.whenNot) lines.push("when_not_to_use:", ...m.whenNot.map((c) => `  - ${JSON.stringify(c)}`));
  if (m.tags) lines.push("metadata:", `  tags: ${JSON.stringify(m.tags)}`);
  return `---\n${lines.join("\n")}\n---\n\n${m.body ?? `# ${m.name}\n\nFollow the steps.\n`}`;
}

const SKILLS: Meta[] = [
  {
    name: "alpha",
    description: "Reviews <pull requests> & diffs for teams.",
    version: "1.2.0",
    tags: "review, Ops",
    when: ["A diff needs a second look", "Before merging"],
    whenNot: ["Formatting only"],
  },
  { name: "beta", description: "Drafts incident timelines — Straße, 日本語, 🚨.", tags: "incident, ops" },
  { name: "gamma", description: "Plans database migrations.", version: "0.1.0-rc.1", when: ["A schema changes"] },
  { name: "solo", description: "A tiny skill whose body is inlined by the fast path.", body: "# Solo\n\nDo the one thing.\n" },
  { name: "bad-skill", description: "Blocked after the build by an advisory.", tags: "ops" },
];

/** The metadata the CLI's catalog reads from each SKILL.md (validateSkillMd, as loadValidShelf does). */
function metadataOf(m: Meta): SkillMetadata {
  const validation = validateSkillMd(m.name, encoder.encode(skillMd(m)));
  if (!validation.ok || !validation.metadata) throw new Error(`fixture ${m.name} is invalid: ${JSON.stringify(validation.problems)}`);
  return validation.metadata;
}

const SERVED = SKILLS.filter((s) => s.name !== "bad-skill").map(metadataOf);
const ALL = SKILLS.map(metadataOf);

let shelf: PublishedFixture;

function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, init, bindings));
}

/** GETs a /v1 path and checks the answer against the OpenAPI document. */
async function documented(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await get(path, init, bindings);
  await expectDocumented(init.method ?? "get", path, res);
  return res;
}

/** A problem answer: status, code and the parameter at fault. */
async function expectProblem(path: string, status: number, code: string, param?: string): Promise<Record<string, unknown>> {
  const res = await documented(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.code, path).toBe(code);
  if (param !== undefined) expect(body.param, path).toBe(param);
  return body;
}

beforeAll(async () => {
  resetStorageMemory();
  const fixtures: FixtureSkill[] = SKILLS.map((m) => ({ name: m.name, description: m.description, files: { "SKILL.md": skillMd(m) } }));
  shelf = await publishFixtureShelf(env, fixtures, { advisories: [BLOCKING_ADVISORY] });
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

/** Query strings and the core options they mean (the CLI's flags, written as the CLI would pass them). */
const ARGUMENT_SETS: Array<[string, CatalogOptions]> = [
  ["", {}],
  ["format=xml", { format: "xml" }],
  ["format=markdown", { format: "markdown" }],
  ["tags=ops", { tags: ["ops"] }],
  ["tags=%20OPS%20,,review&format=markdown", { format: "markdown", tags: ["OPS", "review"] }],
  ["tags=", { tags: [] }],
  ["tags=nothing", { tags: ["nothing"] }],
  ["include=gamma,alpha", { include: ["gamma", "alpha"] }],
  ["include=", { include: [] }],
  ["exclude=alpha,nope", { exclude: ["alpha", "nope"] }],
  ["include=alpha,beta&exclude=alpha&format=markdown", { format: "markdown", include: ["alpha", "beta"], exclude: ["alpha"] }],
  ["total=20", { total: 20 }],
  ["total=2&format=markdown", { format: "markdown", total: 2 }],
  ["selection_hints=false", { selectionHints: false }],
  ["selection_hints=0&format=markdown", { format: "markdown", selectionHints: false }],
  ["selection_hints=true", { selectionHints: true }],
  ["max_chars=300", { maxChars: 300 }],
  ["max_chars=300&format=markdown", { format: "markdown", maxChars: 300 }],
  ["max_chars=100", { maxChars: 100 }],
  ["max_chars=400&total=9&tags=ops,incident&selection_hints=false", { maxChars: 400, total: 9, tags: ["ops", "incident"], selectionHints: false }],
  ["max_chars=1000000", { maxChars: 1_000_000 }],
];

describe("GET /v1/catalog", () => {
  it.each(ARGUMENT_SETS)("?%s is byte-identical to the core's renderCatalog over the servable skills", async (query, options) => {
    const res = await documented(`/v1/catalog?${query}`);
    expect(res.status).toBe(200);
    const markdown = options.format === "markdown";
    expect(res.headers.get("Content-Type")).toBe(markdown ? "text/markdown; charset=utf-8" : "application/xml; charset=utf-8");
    const text = await res.text();
    expect(text).toBe(renderCatalog(SERVED, options));
    expect(res.headers.get("Content-Length")).toBe(String(encoder.encode(text).byteLength));
  });

  it("the fixture exercises truncation, escaping and hints (the byte comparisons above are not vacuous)", () => {
    expect(renderCatalog(SERVED, { maxChars: 300 })).toContain('truncated="true"');
    expect(renderCatalog(SERVED, { maxChars: 100 })).toBe('<available_skills truncated="true" shown="0" total="4" />');
    expect(renderCatalog(SERVED)).toContain("&lt;pull requests&gt; &amp; diffs");
    expect(renderCatalog(SERVED)).toContain("<case>A diff needs a second look</case>");
    expect(renderCatalog(SERVED)).not.toBe(renderCatalog(ALL));
  });

  it("leaves a blocked skill out, and lists it again once the advisory is withdrawn", async () => {
    const blocked = await (await documented("/v1/catalog?tags=ops")).text();
    expect(blocked).not.toContain("bad-skill");
    await setFixtureAdvisories(env, [], 2);
    try {
      resetStorageMemory();
      const res = await documented("/v1/catalog?tags=ops");
      expect(await res.text()).toBe(renderCatalog(ALL, { tags: ["ops"] }));
      const json = (await (await documented("/v1/catalog?format=json")).json()) as { skills: Array<{ name: string }> };
      expect(json.skills.map((s) => s.name)).toContain("bad-skill");
    } finally {
      await setFixtureAdvisories(env, [BLOCKING_ADVISORY], 3);
      resetStorageMemory();
    }
    expect(await (await documented("/v1/catalog?tags=ops")).text()).toBe(blocked);
  });

  it.each(ARGUMENT_SETS.filter(([query]) => !query.includes("format=")))(
    "?%s&format=json lists the entries and counts the xml catalog shows",
    async (query) => {
      const xml = await (await documented(`/v1/catalog?${query}`)).text();
      const res = await documented(`/v1/catalog?${query}&format=json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("application/json");
      const json = (await res.json()) as {
        skills: Array<{ name: string; description: string; version: string | null; when_to_use?: string[]; when_not_to_use?: string[] }>;
        shown: number;
        total: number;
        truncated: boolean;
      };
      const names = [...xml.matchAll(/<name>(.*?)<\/name>/g)].map((m) => m[1]);
      expect(json.skills.map((s) => s.name)).toEqual(names);
      const stated = xml.match(/shown="(\d+)" total="(\d+)"/);
      expect({ shown: json.shown, total: json.total }).toEqual(
        stated ? { shown: Number(stated[1]), total: Number(stated[2]) } : { shown: names.length, total: names.length },
      );
      expect(json.truncated).toBe(stated !== null);
      const hints = !/selection_hints=(false|0)/.test(query);
      for (const entry of json.skills) {
        const meta = SERVED.find((m) => m.name === entry.name)!;
        expect(entry).toEqual({
          name: meta.name,
          description: meta.description,
          version: meta.version ?? null,
          ...(hints ? { when_to_use: meta.when_to_use, when_not_to_use: meta.when_not_to_use } : {}),
        });
      }
    },
  );

  it("answers HEAD with the GET's headers and no body", async () => {
    const full = await documented("/v1/catalog?format=markdown");
    const head = await get("/v1/catalog?format=markdown", { method: "HEAD" });
    await expectDocumented("get", "/v1/catalog?format=markdown", head);
    expect(head.status).toBe(200);
    expect(head.headers.get("ETag")).toBe(full.headers.get("ETag"));
    expect(head.headers.get("Content-Length")).toBe(full.headers.get("Content-Length"));
    expect(await head.text()).toBe("");
  });

  it.each([
    ["format=html", "format"],
    ["format=", "format"],
    ["max_chars=-1", "max_chars"],
    ["max_chars=1.5", "max_chars"],
    ["max_chars=abc", "max_chars"],
    [`max_chars=${API_LIMITS.maxCatalogChars + 1}`, "max_chars"],
    ["max_chars=99999999999999999999", "max_chars"],
    ["total=-3", "total"],
    [`total=${API_LIMITS.maxTotal + 1}`, "total"],
    ["selection_hints=maybe", "selection_hints"],
    [`include=${Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `s${i}`).join(",")}`, "include"],
    [`exclude=${Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `s${i}`).join(",")}`, "exclude"],
    ["include=Not_A_Name", "include"],
    ["exclude=../etc", "exclude"],
    [`tags=${Array.from({ length: API_LIMITS.maxTags + 1 }, (_, i) => `t${i}`).join(",")}`, "tags"],
    [`tags=${"x".repeat(API_LIMITS.maxTagChars + 1)}`, "tags"],
  ])("refuses ?%s as invalid_parameter naming %s", async (query, param) => {
    await expectProblem(`/v1/catalog?${query}`, 400, "invalid_parameter", param);
  });

  it("accepts exactly the caps", async () => {
    const names = Array.from({ length: API_LIMITS.maxNames }, (_, i) => `s${i}`).join(",");
    expect((await documented(`/v1/catalog?exclude=${names}`)).status).toBe(200);
    expect((await documented(`/v1/catalog?tags=${"x".repeat(API_LIMITS.maxTagChars)}`)).status).toBe(200);
    expect((await documented(`/v1/catalog?total=${API_LIMITS.maxTotal}`)).status).toBe(200);
  });

  it("answers an unknown include with a 404 naming every unknown skill, a blocked one included", async () => {
    const body = await expectProblem("/v1/catalog?include=zeta,alpha,ghost,bad-skill", 404, "not_found", "include");
    expect(body.skills).toEqual(["bad-skill", "ghost", "zeta"]);
    const json = await expectProblem("/v1/catalog?include=ghost&format=json", 404, "not_found", "include");
    expect(json.skills).toEqual(["ghost"]);
  });

  it("answers a max_chars even the empty catalog exceeds with 422, as the core refuses it", async () => {
    expect(() => renderCatalog(SERVED, { maxChars: 19 })).toThrow(/cannot hold the smallest possible catalog/);
    for (const query of ["max_chars=19", "max_chars=0&format=markdown", "max_chars=5&format=json", "max_chars=20&total=1000"]) {
      const body = await expectProblem(`/v1/catalog?${query}`, 422, "unprocessable", "max_chars");
      expect(body.detail).toMatch(/cannot hold the smallest possible catalog/);
    }
  });

  it("answers 304 to its ETag; equal requests share one ETag, different ones do not", async () => {
    const first = await documented("/v1/catalog?include=gamma,alpha&tags=ops,review");
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"v1-[0-9a-f]{40}"$/);
    const again = await documented("/v1/catalog?tags=review,ops,ops&include=alpha,gamma,alpha", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const etags = new Set([etag]);
    for (const query of [
      "include=alpha,gamma",
      "include=alpha,gamma&tags=ops,review&format=json",
      "include=alpha,gamma&tags=ops,review&format=markdown",
      "tags=&include=alpha,gamma",
    ]) {
      etags.add((await documented(`/v1/catalog?${query}`)).headers.get("ETag")!);
    }
    expect(etags.size).toBe(5);
  });

  it("changes its ETag when the advisories in force change", async () => {
    const before = (await documented("/v1/catalog")).headers.get("ETag");
    await setFixtureAdvisories(env, [BLOCKING_ADVISORY], 7);
    resetStorageMemory();
    const after = (await documented("/v1/catalog")).headers.get("ETag");
    expect(after).not.toBe(before);
  });

  it("serves the same bytes pinned at /g/<generation>/v1/catalog, and 404 for an unknown generation", async () => {
    const current = await (await documented("/v1/catalog?format=markdown&max_chars=500")).text();
    const pinned = await documented(`/g/${shelf.generation}/v1/catalog?format=markdown&max_chars=500`);
    expect(pinned.status).toBe(200);
    expect(await pinned.text()).toBe(current);
    await expectProblem(`/g/${"0".repeat(64)}/v1/catalog`, 404, "not_found");
  });

  describe("on a private shelf", () => {
    const TOKEN = "sk_test_read_0123456789abcdef01234567";
    async function privateBindings(capability: "on" | "off") {
      return { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: capability, READ_TOKEN_SHA256: await sha256Hex(TOKEN) };
    }

    it("refuses a caller without a token (401) and serves a bearer and a capability URL the same bytes", async () => {
      const bindings = await privateBindings("on");
      const refused = await documented("/v1/catalog", {}, bindings);
      expect(refused.status).toBe(401);
      const bearer = await documented("/v1/catalog?format=markdown", { headers: { Authorization: `Bearer ${TOKEN}` } }, bindings);
      expect(bearer.status).toBe(200);
      const capability = await documented(`/c/${TOKEN}/v1/catalog?format=markdown`, {}, bindings);
      expect(capability.status).toBe(200);
      const expected = renderCatalog(SERVED, { format: "markdown" });
      expect(await bearer.text()).toBe(expected);
      expect(await capability.text()).toBe(expected);
      const pinned = await documented(`/c/${TOKEN}/g/${shelf.generation}/v1/fast-path?include=solo`, {}, bindings);
      expect(((await pinned.json()) as { applies: boolean }).applies).toBe(true);
    });
  });
});

/** The body agentskills-core's get_body returns for a fixture skill. */
function bodyOf(name: string): string {
  return parseSkillMd(skillMd(SKILLS.find((s) => s.name === name)!)).body;
}

const SERVED_NAMES = SERVED.map((m) => m.name);

describe("GET /v1/fast-path", () => {
  it.each([
    ["include=solo", { include: ["solo"] }],
    ["include=solo,ghost", { include: ["solo", "ghost"] }],
    ["include=solo&max_tokens=1", { include: ["solo"], maxTokens: 1 }],
    ["include=alpha&max_tokens=100000", { include: ["alpha"], maxTokens: 100_000 }],
    ["", {}],
    ["include=", { include: [] }],
    ["include=ghost", { include: ["ghost"] }],
    ["include=bad-skill", { include: ["bad-skill"] }],
    ["include=alpha,solo", { include: ["alpha", "solo"] }],
  ])("?%s equals the core's resolveFastPath over the servable skills", async (query, options) => {
    const res = await documented(`/v1/fast-path?${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const decision = await resolveFastPath(SERVED_NAMES, bodyOf, options);
    const expected = decision.fastPath
      ? { applies: true, skill_id: decision.fastPath.skill_id, tokens: decision.fastPath.tokens, prompt: decision.fastPath.prompt }
      : { applies: false, reason: decision.reason };
    expect(await res.json()).toEqual(expected);
  });

  it("inlines the one skill's body when it applies (the comparison above is not vacuous)", async () => {
    const res = (await (await documented("/v1/fast-path?include=solo")).json()) as { applies: boolean; prompt: string };
    expect(res.applies).toBe(true);
    expect(res.prompt).toContain('<skill id="solo">\n# Solo\n\nDo the one thing.\n</skill>');
  });

  it("reads one SKILL.md at most: the candidate's, chosen without bodies", async () => {
    const keys: string[] = [];
    const bucket = new Proxy(env.SHELF_BUCKET, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== "get" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
        return (key: string, ...rest: unknown[]) => {
          keys.push(key);
          return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      },
    });
    const bindings = { ...env, SHELF_BUCKET: bucket };
    const blobs = () => keys.filter((k) => k.startsWith(r2Prefix("blob")));
    expect((await documented("/v1/fast-path", {}, bindings)).status).toBe(200);
    expect(blobs()).toEqual([]);
    expect((await documented("/v1/fast-path?include=alpha", {}, bindings)).status).toBe(200);
    expect(blobs()).toEqual([r2Key("blob", shelf.entries.get("alpha")!.skill_md.sha256)]);
    keys.length = 0;
    expect((await documented("/v1/fast-path?include=alpha", {}, bindings)).status).toBe(200);
    expect(keys).toEqual([]);
  });

  it.each([
    ["max_tokens=-1", "max_tokens"],
    [`max_tokens=${API_LIMITS.maxFastPathTokens + 1}`, "max_tokens"],
    ["max_tokens=ten", "max_tokens"],
    ["include=Solo", "include"],
    [`include=${Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `s${i}`).join(",")}`, "include"],
  ])("refuses ?%s as invalid_parameter naming %s", async (query, param) => {
    await expectProblem(`/v1/fast-path?${query}`, 400, "invalid_parameter", param);
  });

  it("answers 304 to its ETag and serves the same answer pinned", async () => {
    const first = await documented("/v1/fast-path?include=solo");
    const etag = first.headers.get("ETag")!;
    expect((await documented("/v1/fast-path?include=solo", { headers: { "If-None-Match": etag } })).status).toBe(304);
    const pinned = await documented(`/g/${shelf.generation}/v1/fast-path?include=solo`);
    expect(await pinned.json()).toEqual(await first.json());
  });
});
