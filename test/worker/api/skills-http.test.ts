// The skills group of /v1 as HTTP: every refusal (unknown skill, section, path and format,
// bad limit and cursor, too many names, blocked → 410), 304s from the ETag, HEAD, ranges, the
// pinned and capability forms, and the storage each answer costs (counted binding calls). Every
// answer is checked against the served OpenAPI document.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../src/core/api/contract.ts";
import { RESOURCE_TEXT_MAX_BYTES } from "../../../src/core/api/skills.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { BLOCKING_ADVISORY, setFixtureAdvisories, type PublishedFixture } from "../fixture-shelf.ts";
import { expectDocumented } from "./openapi-check.ts";
import { ADVISORIES, bodyOf, get, publishSkillsFixture } from "./skills-fixture.ts";

let shelf: PublishedFixture;

/** A request, checked against the OpenAPI document. */
async function documented(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await get(path, init, bindings);
  await expectDocumented(init.method ?? "get", path, res);
  return res;
}

interface ProblemBody {
  type: string;
  status: number;
  code: string;
  param?: string;
  detail: string;
  [member: string]: unknown;
}

/** Asserts a problem answer and returns its body. */
async function expectProblem(path: string, status: number, code: string, param?: string): Promise<ProblemBody> {
  const res = await documented(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("Content-Type"), path).toBe("application/problem+json");
  expect(res.headers.get("Cache-Control"), path).toBe("no-store");
  const body = (await res.json()) as ProblemBody;
  expect(body, path).toMatchObject({ type: "about:blank", status, code });
  if (param !== undefined) expect(body.param, path).toBe(param);
  return body;
}

const PER_SKILL = [
  "",
  "/body",
  "/outline",
  "/outline?format=text",
  "/sections/setup",
  "/resources",
  "/resources/references/y.md",
  "/resources/references/y.md?as=text",
];

beforeAll(async () => {
  resetStorageMemory();
  shelf = await publishSkillsFixture();
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

describe("refusals", () => {
  it.each(PER_SKILL)("an unknown skill is a 404 problem at /v1/skills/no-such%s", async (rest) => {
    const body = await expectProblem(`/v1/skills/no-such${rest}`, 404, "not_found");
    expect(body.detail).toContain("no-such");
  });

  it.each(PER_SKILL)("a blocked skill is a 410 problem naming the advisory at /v1/skills/bad-skill%s (also pinned)", async (rest) => {
    for (const path of [`/v1/skills/bad-skill${rest}`, `/g/${shelf.generation}/v1/skills/bad-skill${rest}`]) {
      const body = await expectProblem(path, 410, "blocked");
      expect(body.advisory, path).toMatchObject({ advisory_id: BLOCKING_ADVISORY.advisory_id, severity: "critical" });
      expect(body.detail).toContain(BLOCKING_ADVISORY.advisory_id);
    }
  });

  it("leaves a blocked skill out of the list, and an include naming it is a 404 listing the names not served", async () => {
    const list = (await (await documented("/v1/skills")).json()) as { skills: Array<{ name: string }> };
    expect(list.skills.map((s) => s.name)).not.toContain("bad-skill");
    const body = await expectProblem("/v1/skills?include=atlas,bad-skill,zzz-missing", 404, "not_found", "include");
    expect(body.skills).toEqual(["bad-skill", "zzz-missing"]);
  });

  it("comes back once the advisory is withdrawn (the advisories seq re-keys every answer)", async () => {
    const etag = (await get("/v1/skills")).headers.get("ETag")!;
    await setFixtureAdvisories(env, [{ ...BLOCKING_ADVISORY, status: "withdrawn", withdrawn_reason: "false positive", withdrawn_at: "2026-11-30" }], 2);
    resetStorageMemory();
    try {
      const res = await documented("/v1/skills", { headers: { "If-None-Match": etag } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { skills: Array<{ name: string }> }).skills.map((s) => s.name)).toContain("bad-skill");
      expect((await documented("/v1/skills/bad-skill/body")).status).toBe(200);
    } finally {
      await setFixtureAdvisories(env, ADVISORIES, 3);
      resetStorageMemory();
    }
  });

  it.each([
    ["/v1/skills/Not_A_Name", "name"],
    ["/v1/skills/-x/body", "name"],
    [`/v1/skills/${"a".repeat(65)}/outline`, "name"],
    ["/v1/skills?limit=0", "limit"],
    [`/v1/skills?limit=${API_LIMITS.maxPageSize + 1}`, "limit"],
    ["/v1/skills?limit=-1", "limit"],
    ["/v1/skills?limit=ten", "limit"],
    ["/v1/skills?cursor=!!", "cursor"],
    [`/v1/skills?cursor=${"a".repeat(API_LIMITS.maxCursorChars + 1)}`, "cursor"],
    // Well-formed base64url that holds no skill name.
    [`/v1/skills?cursor=${btoa("Not A Name").replace(/=+$/, "")}`, "cursor"],
    ["/v1/skills?cursor=a", "cursor"],
    [`/v1/skills?include=${Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `s${i}`).join(",")}`, "include"],
    [`/v1/skills?exclude=${Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `s${i}`).join(",")}`, "exclude"],
    [`/v1/skills?tags=${Array.from({ length: API_LIMITS.maxTags + 1 }, (_, i) => `t${i}`).join(",")}`, "tags"],
    [`/v1/skills?tags=${"t".repeat(API_LIMITS.maxTagChars + 1)}`, "tags"],
    ["/v1/skills?include=Bad_Name", "include"],
    ["/v1/skills/atlas/outline?format=xml", "format"],
    ["/v1/skills/atlas/resources/assets/logo.png?as=base64", "as"],
    [`/v1/skills/atlas/sections/${"k".repeat(API_LIMITS.maxKeyChars + 1)}`, "key"],
    [`/v1/skills/atlas/resources/references/${"p".repeat(API_LIMITS.maxKeyChars)}`, "path"],
  ])("%s is a 400 invalid_parameter naming %s", async (path, param) => {
    await expectProblem(path, 400, "invalid_parameter", param);
  });

  it.each([
    "/v1/skills/atlas/resources/references/missing.md",
    "/v1/skills/atlas/resources/SKILL.md",
    "/v1/skills/atlas/resources/evals/cases.md",
    "/v1/skills/atlas/resources/references",
    "/v1/skills/atlas/resources/references/",
    "/v1/skills/atlas/resources/references/deep",
    "/v1/skills/atlas/resources/references/missing.md?as=text",
    "/v1/skills/atlas/resources/evals/cases.md?as=text",
  ])("%s is a 404 problem (resources are the files under references/, scripts/, assets/)", async (path) => {
    await expectProblem(path, 404, "not_found");
  });

  it("refuses as=text past its size cap with a 422 problem, while the bytes stay available", async () => {
    const body = await expectProblem("/v1/skills/solo/resources/assets/big.txt?as=text", 422, "unprocessable", "as");
    expect(body.detail).toContain(String(RESOURCE_TEXT_MAX_BYTES));
    const raw = await documented("/v1/skills/solo/resources/assets/big.txt");
    expect(raw.status).toBe(200);
    expect((await raw.arrayBuffer()).byteLength).toBe(RESOURCE_TEXT_MAX_BYTES + 1);
  });

  it("answers an unknown pinned generation with a 404 problem", async () => {
    await expectProblem(`/g/${"0".repeat(64)}/v1/skills/atlas/body`, 404, "not_found");
  });

  it("answers a raw resource whose blob read fails with the 503 problem and Retry-After", async () => {
    const failing = new Proxy(env.SHELF_BUCKET, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          String(args[0]).startsWith("blobs/") ? Promise.reject(new Error("R2 is down")) : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    for (const path of ["/v1/skills/atlas/resources/references/guide.md", "/v1/skills/atlas/body", "/v1/skills/atlas/resources/references/guide.md?as=text"]) {
      const res = await documented(path, {}, { ...env, SHELF_BUCKET: failing });
      expect(res.status, path).toBe(503);
      expect(res.headers.get("Content-Type"), path).toBe("application/problem+json");
      expect(Number(res.headers.get("Retry-After")), path).toBeGreaterThan(0);
    }
  });
});

const COMPUTED = [
  "/v1/skills",
  "/v1/skills?limit=1&tags=docs,ops",
  "/v1/skills/atlas",
  "/v1/skills/atlas/body",
  "/v1/skills/atlas/outline",
  "/v1/skills/atlas/outline?format=text",
  "/v1/skills/atlas/sections/steps-2",
  "/v1/skills/atlas/resources",
  "/v1/skills/atlas/resources/assets/logo.png?as=text",
];

describe("conditional requests, HEAD and ranges", () => {
  it.each(COMPUTED)("%s answers 304 to its ETag, and HEAD with the GET's headers and no body", async (path) => {
    const res = await documented(path);
    expect(res.status).toBe(200);
    const etag = res.headers.get("ETag")!;
    expect(etag).toMatch(/^"v1-[0-9a-f]{40}"$/);
    const bytes = (await res.arrayBuffer()).byteLength;
    const again = await documented(path, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(etag);
    const head = await documented(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("ETag")).toBe(etag);
    expect(head.headers.get("Content-Length")).toBe(String(bytes));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("gives distinct ETags to distinct answers (another skill, format, key or page)", async () => {
    const etags = new Set<string>();
    for (const path of [...COMPUTED, "/v1/skills/beacon/body", "/v1/skills/atlas/sections/steps", "/v1/skills?limit=2"]) {
      etags.add((await get(path)).headers.get("ETag")!);
    }
    expect(etags.size).toBe(COMPUTED.length + 3);
  });

  it("serves a raw resource's 304 from its digest, HEAD, a 206 range and a 416", async () => {
    const path = "/v1/skills/atlas/resources/assets/logo.png";
    const bytes = shelf.files.get("atlas")!.get("assets/logo.png")!;
    const etag = `"${await sha256Hex(bytes)}"`;
    const res = await documented(path);
    expect(res.headers.get("ETag")).toBe(etag);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=60, must-revalidate, no-transform");
    expect((await documented(path, { headers: { "If-None-Match": etag } })).status).toBe(304);
    const head = await documented(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Content-Length")).toBe(String(bytes.byteLength));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const partial = await documented(path, { headers: { Range: "bytes=2-5" } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get("Content-Range")).toBe(`bytes 2-5/${bytes.byteLength}`);
    expect(new Uint8Array(await partial.arrayBuffer())).toEqual(bytes.slice(2, 6));
    const refused = await documented(path, { headers: { Range: "bytes=999-" } });
    expect(refused.status).toBe(416);
    expect(refused.headers.get("Content-Range")).toBe(`bytes */${bytes.byteLength}`);
  });
});

describe("pinned and capability forms", () => {
  it("answers the same bodies under /g/<generation>/v1, with immutable raw bytes", async () => {
    for (const path of ["/v1/skills/atlas/body", "/v1/skills/atlas/outline?format=text", "/v1/skills/atlas/sections/setup"]) {
      const pinned = await documented(`/g/${shelf.generation}${path}`);
      expect(pinned.status, path).toBe(200);
      expect(await pinned.text(), path).toBe(await (await get(path)).text());
    }
    const raw = await documented(`/g/${shelf.generation}/v1/skills/atlas/resources/references/guide.md`);
    expect(raw.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable, no-transform");
    const list = (await (await documented(`/g/${shelf.generation}/v1/skills`)).json()) as { generation: string };
    expect(list.generation).toBe(shelf.generation);
    expect(await (await get(`/g/${shelf.generation}/v1/skills/atlas/body`)).text()).toBe(bodyOf(shelf, "atlas"));
  });

  it("keeps every link under a capability URL's prefix, and a bearer holder's links bare", async () => {
    const TOKEN = "sk_test_read_0123456789abcdef01234567";
    const bindings = { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: await sha256Hex(TOKEN) };
    const prefix = `/c/${TOKEN}`;
    const list = await documented(`${prefix}/v1/skills?include=atlas`, {}, bindings);
    expect(list.status).toBe(200);
    expect(list.headers.get("Cache-Control")).toBe("private, max-age=60, must-revalidate, no-transform");
    const text = await list.text();
    const urls = [...text.matchAll(/"(?:url|pinned_url|self)":"([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.startsWith(`${prefix}/`), url).toBe(true);
      expect((await get(url, {}, bindings)).status, url).toBe(200);
    }
    const resources = await (await documented(`${prefix}/v1/skills/atlas/resources`, {}, bindings)).json();
    expect(JSON.stringify(resources)).toContain(`"url":"${prefix}/v1/skills/atlas/resources/scripts/run.sh"`);
    const bearer = await get("/v1/skills?include=atlas", { headers: { Authorization: `Bearer ${TOKEN}` } }, bindings);
    expect(bearer.status).toBe(200);
    const bearerText = await bearer.text();
    expect(bearerText).not.toContain("/c/");
    expect(bearer.headers.get("ETag")).not.toBe(list.headers.get("ETag"));
  });
});

describe("storage per request (binding calls counted)", () => {
  type Counts = Record<string, number>;
  function counting<T extends object>(target: T, label: string, counts: Counts, keys: string[]): T {
    return new Proxy(target, {
      get(t, prop, receiver) {
        const value = Reflect.get(t, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const name = `${label}.${String(prop)}`;
          counts[name] = (counts[name] ?? 0) + 1;
          keys.push(`${name} ${String(args[0])}`);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  }
  function countedEnv() {
    const counts: Counts = {};
    const keys: string[] = [];
    const bindings = { ...env, SHELF_BUCKET: counting(env.SHELF_BUCKET, "r2", counts, keys), SHELF_KV: counting(env.SHELF_KV, "kv", counts, keys) };
    const clear = () => {
      for (const k of Object.keys(counts)) delete counts[k];
      keys.length = 0;
    };
    return { counts, keys, bindings, clear };
  }

  it.each(COMPUTED)("a repeated %s computes nothing and touches no storage", async (path) => {
    const { counts, bindings, clear } = countedEnv();
    const first = await get(path, {}, bindings);
    const body = await first.text();
    clear();
    const again = await get(path, {}, bindings);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("ETag")).toBe(first.headers.get("ETag"));
    expect(counts).toEqual({});
  });

  it.each([
    ["/v1/skills/atlas/body", true],
    ["/v1/skills/atlas/sections/steps", true],
    ["/v1/skills/atlas/outline?format=text", false],
  ] as const)("a cold %s reads SKILL.md's blob at most once beyond the documents (read body: %s)", async (path, readsBody) => {
    const { keys, bindings, clear } = countedEnv();
    const blobKey = r2Key("blob", shelf.entries.get("atlas")!.skill_md.sha256);
    const blobReads = () => keys.filter((k) => k.startsWith("r2.") && k.includes(" blobs/"));
    expect((await get(path, {}, bindings)).status).toBe(200);
    expect(blobReads(), keys.join("\n")).toEqual(readsBody ? [`r2.get ${blobKey}`] : []);
    // Only documents besides: the pointer, advisories, manifest, the shard and the record.
    expect(keys.filter((k) => k.startsWith("r2.") && !k.includes(" blobs/")).length, keys.join("\n")).toBeLessThanOrEqual(5);
    clear();
    // Another section of the same body: once an isolate holds the body, it reads no blob again.
    expect((await get("/v1/skills/atlas/sections/setup", {}, bindings)).status).toBe(200);
    expect(blobReads(), keys.join("\n")).toEqual(readsBody ? [] : [`r2.get ${blobKey}`]);
    clear();
    expect((await get("/v1/skills/atlas/sections/steps-2", {}, bindings)).status).toBe(200);
    expect(keys).toEqual([]);
  });

  it("answers an unknown section key from the stored outline, reading no blob", async () => {
    const { keys, bindings } = countedEnv();
    expect((await get("/v1/skills/atlas/sections/nope", {}, bindings)).status).toBe(404);
    expect(keys.filter((k) => k.includes(" blobs/"))).toEqual([]);
  });

  it("answers a 304 for the detail without reading the record again on a warm isolate", async () => {
    const { counts, bindings, clear } = countedEnv();
    const etag = (await get("/v1/skills/atlas", {}, bindings)).headers.get("ETag")!;
    clear();
    expect((await get("/v1/skills/atlas", { headers: { "If-None-Match": etag } }, bindings)).status).toBe(304);
    expect(counts).toEqual({});
  });
});
