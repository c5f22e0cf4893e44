// Integration tests of the read routes over a fixture generation in workerd's local R2: every
// route for a SKILL.md-only skill, nested resources, a binary asset and a script; 304/206/HEAD;
// content types and security headers; traversal; storage failure; a blocked skill; the budget.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import app from "../../../src/worker/index.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, setFixtureAdvisories, type PublishedFixture } from "../fixture-shelf.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00, 0x80]);

let shelf: PublishedFixture;
const BASE = "https://shelf.test";

function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, init, bindings));
}

beforeAll(async () => {
  resetStorageMemory();
  shelf = await publishFixtureShelf(
    env,
    [
      { name: "solo", description: "A skill that is only a SKILL.md." },
      {
        name: "nested",
        description: "A skill with nested resources, a binary asset and a script.",
        files: {
          "references/guide.md": "# Guide\n\nRead me.\n",
          "references/deep/more.md": "# More\n",
          "assets/logo.png": PNG,
          "assets/page.html": "<script>alert(1)</script>\n",
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
        },
      },
      { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
      { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
    ],
    { advisories: [BLOCKING_ADVISORY] },
  );
});

beforeEach(() => resetStorageMemory());

describe("agentskills-http static layout", () => {
  it("lists servable skills in /skills/index.json (blocked one absent)", async () => {
    const res = await get("/skills/index.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(await res.json()).toEqual({ skills: ["nested", "review-me", "solo"] });
  });

  it("serves the per-skill manifest with all three kinds sorted, and the full file list", async () => {
    const res = await get("/skills/nested/index.json");
    expect(await res.json()).toEqual({
      references: ["guide.md"],
      scripts: ["run.sh"],
      assets: ["logo.png", "page.html"],
      files: ["SKILL.md", "assets/logo.png", "assets/page.html", "references/deep/more.md", "references/guide.md", "scripts/run.sh"],
    });
    expect(await (await get("/skills/solo/index.json")).json()).toEqual({ references: [], scripts: [], assets: [], files: ["SKILL.md"] });
    expect(await (await get("/skills/review-me/index.json")).json()).toMatchObject({ references: ["x.md"], requires_review: true });
  });

  it("serves SKILL.md and every file, nested ones at their full path, byte for byte", async () => {
    for (const [path, bytes] of shelf.files.get("nested")!) {
      const res = await get(`/skills/nested/${path}`);
      expect(res.status, path).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer()), path).toEqual(bytes);
      expect(res.headers.get("ETag")).toBe(`"${await sha256Hex(bytes)}"`);
      expect(res.headers.get("Content-Length")).toBe(String(bytes.length));
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=60, must-revalidate, no-transform");
    }
  });

  it("answers 404 for a missing skill and a missing file", async () => {
    expect((await get("/skills/no-such-skill-anywhere/SKILL.md")).status).toBe(404);
    expect((await get("/skills/nested/references/no-such-resource.txt")).status).toBe(404);
    expect((await get("/skills/nested/references/deep")).status).toBe(404);
  });
});

describe("content types and security headers", () => {
  it.each([
    ["SKILL.md", "text/markdown; charset=utf-8"],
    ["references/guide.md", "text/markdown; charset=utf-8"],
    ["assets/logo.png", "image/png"],
    ["assets/page.html", "text/plain; charset=utf-8"],
    ["scripts/run.sh", "text/plain; charset=utf-8"],
  ])("%s is served as %s with nosniff, a sandboxing CSP, CORS and Repr-Digest", async (path, type) => {
    const res = await get(`/skills/nested/${path}`);
    expect(res.headers.get("Content-Type")).toBe(type);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("Repr-Digest");
    const hex = await sha256Hex(shelf.files.get("nested")!.get(path)!);
    const b64 = btoa(String.fromCharCode(...hex.match(/../g)!.map((h) => parseInt(h, 16))));
    expect(res.headers.get("Repr-Digest")).toBe(`sha-256=:${b64}:`);
  });

  it("answers a CORS preflight on a public shelf", async () => {
    const res = await get("/skills/solo/SKILL.md", { method: "OPTIONS", headers: { Origin: "https://x.test", "Access-Control-Request-Method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("GET");
    // A browser resuming a download sends Range with If-Range; both must be allowed.
    const allowed = res.headers
      .get("Access-Control-Allow-Headers")!
      .split(/,\s*/)
      .map((h) => h.toLowerCase());
    for (const h of ["range", "if-range", "if-none-match"]) expect(allowed, h).toContain(h);
  });

  it("allows POST with a JSON body only where a read path takes one (/v1/select, /v1/resolve), also pinned and under a capability prefix", async () => {
    const preflight = (path: string) => get(path, { method: "OPTIONS", headers: { Origin: "https://x.test", "Access-Control-Request-Method": "POST" } });
    for (const path of ["/v1/select", "/v1/resolve", `/g/${shelf.generation}/v1/select`]) {
      const res = await preflight(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Methods"), path).toBe("GET, HEAD, POST, OPTIONS");
      expect(res.headers.get("Access-Control-Allow-Headers"), path).toContain("Content-Type");
    }
    const file = await preflight("/skills/solo/SKILL.md");
    expect(file.headers.get("Access-Control-Allow-Methods")).toBe("GET, HEAD, OPTIONS");
    expect(file.headers.get("Access-Control-Allow-Headers")).not.toContain("Content-Type");
  });
});

describe("conditional requests, ranges, HEAD", () => {
  it("answers If-None-Match (weakly) with 304 and the same ETag, and only when asked", async () => {
    const first = await get("/skills/nested/references/guide.md");
    const etag = first.headers.get("ETag")!;
    const res = await get("/skills/nested/references/guide.md", { headers: { "If-None-Match": `W/${etag}` } });
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(etag);
    expect(await res.text()).toBe("");
    const stale = await get("/skills/nested/references/guide.md", { headers: { "If-None-Match": '"other"' } });
    expect(stale.status).toBe(200);
  });

  it("revalidates indexes by ETag too", async () => {
    const first = await get("/.well-known/agent-skills/index.json");
    const res = await get("/.well-known/agent-skills/index.json", { headers: { "If-None-Match": first.headers.get("ETag")! } });
    expect(res.status).toBe(304);
  });

  it("serves a Range as 206 with Content-Range", async () => {
    const res = await get("/skills/nested/assets/logo.png", { headers: { Range: "bytes=1-3" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe(`bytes 1-3/${PNG.length}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG.slice(1, 4));
  });

  it("answers an unsatisfiable Range with 416", async () => {
    const res = await get("/skills/nested/assets/logo.png", { headers: { Range: "bytes=999-" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("Content-Range")).toBe(`bytes */${PNG.length}`);
  });

  it("answers HEAD with the GET headers and no body", async () => {
    const res = await get("/skills/nested/assets/logo.png", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe(String(PNG.length));
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(await res.text()).toBe("");
    const idx = await get("/.well-known/agent-skills/index.json", { method: "HEAD" });
    expect(idx.status).toBe(200);
    expect(await idx.text()).toBe("");
  });
});

describe("cache policy", () => {
  it("gives generated bodies the short, revalidating policy even under /g/<generation>/ (they change with advisories)", async () => {
    for (const path of [
      "/skills/index.json",
      "/skills/nested/index.json",
      "/.well-known/agent-skills/index.json",
      "/.well-known/skills/index.json",
      "/v1/shelf",
    ]) {
      for (const p of [path, `/g/${shelf.generation}${path}`]) {
        const res = await get(p);
        expect(res.status, p).toBe(200);
        expect(res.headers.get("Cache-Control"), p).toBe("public, max-age=60, must-revalidate, no-transform");
      }
    }
  });

  it("gives pinned file bytes a bounded immutable lifetime (a later block turns them into 410)", async () => {
    for (const path of ["/skills/nested/references/guide.md", "/.well-known/agent-skills/nested.tar.gz", "/.well-known/skills/solo/SKILL.md"]) {
      expect((await get(path)).headers.get("Cache-Control"), path).toBe("public, max-age=60, must-revalidate, no-transform");
      expect((await get(`/g/${shelf.generation}${path}`)).headers.get("Cache-Control"), path).toBe("public, max-age=31536000, immutable, no-transform");
    }
  });
});

describe("well-known discovery v0.2.0", () => {
  it("lists each servable skill with an immutable URL whose bytes match the digest", async () => {
    const res = await get("/.well-known/agent-skills/index.json");
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const index = (await res.json()) as { $schema: string; skills: Array<Record<string, string | boolean>> };
    expect(index.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    expect(index.skills.map((s) => [s.name, s.type])).toEqual([
      ["nested", "archive"],
      ["review-me", "archive"],
      ["solo", "skill-md"],
    ]);
    expect(index.skills.find((s) => s.name === "review-me")!.requires_review).toBe(true);
    for (const entry of index.skills) {
      expect(entry.url).toMatch(new RegExp(`^/g/${shelf.generation}/\\.well-known/agent-skills/`));
      const artifact = await get(entry.url as string);
      expect(artifact.status).toBe(200);
      expect(artifact.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable, no-transform");
      expect(`sha256:${await sha256Hex(new Uint8Array(await artifact.arrayBuffer()))}`).toBe(entry.digest);
      expect(artifact.headers.get("Content-Type")).toBe(entry.type === "archive" ? "application/gzip" : "text/markdown; charset=utf-8");
    }
  });

  it("serves the readable paths: SKILL.md, <name>.tar.gz and <name>.zip", async () => {
    const md = await get("/.well-known/agent-skills/solo/SKILL.md");
    expect(md.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    expect(new Uint8Array(await md.arrayBuffer())).toEqual(shelf.files.get("solo")!.get("SKILL.md"));
    const tgz = await get("/.well-known/agent-skills/nested.tar.gz");
    expect(tgz.headers.get("Content-Type")).toBe("application/gzip");
    expect(new Uint8Array(await tgz.arrayBuffer())).toEqual(shelf.archives.get("nested")!.tarGz);
    const zip = await get("/.well-known/agent-skills/nested.zip");
    expect(zip.headers.get("Content-Type")).toBe("application/zip");
    expect(new Uint8Array(await zip.arrayBuffer())).toEqual(shelf.archives.get("nested")!.zip);
  });

  it("keeps immutable URLs of an older generation working after a new publish", async () => {
    const index = (await (await get("/.well-known/agent-skills/index.json")).json()) as { skills: Array<{ name: string; url: string; digest: string }> };
    const solo = index.skills.find((s) => s.name === "solo")!;
    const other = await publishFixtureShelf({ SHELF_BUCKET: env.SHELF_BUCKET }, [{ name: "solo", description: "Changed." }], {
      advisories: [BLOCKING_ADVISORY],
      seq: 2,
    });
    resetStorageMemory();
    try {
      const res = await get(solo.url);
      expect(res.status).toBe(200);
      expect(`sha256:${await sha256Hex(new Uint8Array(await res.arrayBuffer()))}`).toBe(solo.digest);
      expect((await get(`/g/${"0".repeat(64)}/skills/solo/SKILL.md`)).status).toBe(404);
      expect(other.generation).not.toBe(shelf.generation);
    } finally {
      shelf = await publishFixtureShelf(env, [...rebuildList()], { advisories: [BLOCKING_ADVISORY], seq: 3 });
      resetStorageMemory();
    }
  });
});

function rebuildList() {
  return [...shelf.entries.keys()].map((name) => ({
    name,
    description: shelf.entries.get(name)!.description,
    requiresReview: shelf.entries.get(name)!.trust.requires_review,
    files: Object.fromEntries([...shelf.files.get(name)!].filter(([p]) => p !== "SKILL.md")),
  }));
}

describe("legacy discovery v0.1", () => {
  it("lists files with SKILL.md first and serves each at /.well-known/skills/<name>/<path>", async () => {
    const index = (await (await get("/.well-known/skills/index.json")).json()) as { skills: Array<{ name: string; files: string[] }> };
    expect(index.skills.map((s) => s.name)).toEqual(["nested", "review-me", "solo"]);
    const nested = index.skills.find((s) => s.name === "nested")!;
    expect(nested.files[0]).toBe("SKILL.md");
    expect(new Set(nested.files)).toEqual(new Set(shelf.files.get("nested")!.keys()));
    for (const path of nested.files) {
      const res = await get(`/.well-known/skills/nested/${path}`);
      expect(new Uint8Array(await res.arrayBuffer()), path).toEqual(shelf.files.get("nested")!.get(path));
    }
  });
});

describe("/v1/shelf", () => {
  it("reports the generation, counts, publish time and the advisories in force", async () => {
    const body = (await (await get("/v1/shelf")).json()) as Record<string, unknown>;
    expect(body.generation).toBe(shelf.generation);
    expect(body.published_at).toBe("2026-11-30T10:00:00.000Z");
    expect(body.counts).toMatchObject({ skills: 4, served_skills: 3, blocked_skills: 1, requires_review: 1 });
    expect(body.requires_review).toEqual(["review-me"]);
    expect((body.advisories as { in_force: unknown[] }).in_force).toHaveLength(1);
  });
});

describe("a blocked skill", () => {
  it.each([
    "/skills/bad-skill/SKILL.md",
    "/skills/bad-skill/index.json",
    "/skills/bad-skill/references/y.md",
    "/.well-known/agent-skills/bad-skill/SKILL.md",
    "/.well-known/agent-skills/bad-skill.tar.gz",
    "/.well-known/agent-skills/bad-skill.zip",
    "/.well-known/skills/bad-skill/SKILL.md",
  ])("answers 410 naming the advisory at %s (and at its immutable URL)", async (path) => {
    for (const p of [path, `/g/${shelf.generation}${path}`]) {
      const res = await get(p);
      expect(res.status, p).toBe(410);
      const body = (await res.json()) as { message: string; advisory: { advisory_id: string } };
      expect(body.message).toContain("ADV-2026-001");
      expect(body.advisory.advisory_id).toBe("ADV-2026-001");
    }
  });

  it("is absent from every index", async () => {
    for (const path of ["/skills/index.json", "/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"]) {
      expect(await (await get(path)).text(), path).not.toContain("bad-skill");
    }
  });

  it("comes back once the advisory is withdrawn", async () => {
    await setFixtureAdvisories(env, [{ ...BLOCKING_ADVISORY, status: "withdrawn", withdrawn_reason: "false positive", withdrawn_at: "2026-11-30" }], 2);
    resetStorageMemory();
    try {
      expect((await get("/skills/bad-skill/SKILL.md")).status).toBe(200);
    } finally {
      await setFixtureAdvisories(env, [BLOCKING_ADVISORY], 3);
      resetStorageMemory();
    }
  });
});

describe("traversal and malformed paths", () => {
  // Each of these aims at a target that EXISTS (solo/SKILL.md, nested/references/guide.md,
  // nested/SKILL.md), so a 404 shows the check, not a missing file.
  it.each([
    "/skills/nested/..%2fsolo%2fSKILL.md",
    "/skills/nested%2freferences/guide.md",
    "/skills/nested/references%2fguide.md",
    "/skills/nested/references%2Fguide.md",
    "/skills/nested/references%5cguide.md",
    "/skills/nested/references/%2e%2e%2fSKILL.md",
    "/skills/nested/references/..%5cSKILL.md",
    "/skills/nested/..%5c..%5csolo/SKILL.md",
    "/skills/solo/SKILL.md%00",
    "/skills/Solo/SKILL.md",
    "/.well-known/skills/nested/references%2fguide.md",
    "/.well-known/agent-skills/nested/references%5cguide.md",
    `/g/${"0".repeat(64)}/skills/solo/SKILL.md`,
  ])("%s → 404 although its target exists, never a redirect", async (path) => {
    const res = await get(path);
    expect(res.status, path).toBe(404);
  });

  it.each([
    `/skills/${"a".repeat(65)}/SKILL.md`,
    `/skills/nested/${"a/".repeat(600)}x`,
    "/skills/nested/%ff%fe",
    "/skills/nested/",
    "/skills/nested",
    "/skills/",
    "/.well-known/agent-skills/pointer.json",
    "/g/not-a-generation/skills/index.json",
    `/blobs/${"a".repeat(64)}`,
  ])("%s → 404", async (path) => {
    expect((await get(path)).status, path).toBe(404);
  });

  // Dot segments, literal or percent-encoded, and backslashes (a separator in http(s) URLs) are
  // resolved by the URL parser before the Worker sees the request: in workerd (measured with
  // `curl --path-as-is` against wrangler dev: /x/%2e%2e/healthz answers /healthz) and in the
  // Request constructor used here. The Worker only ever sees the resolved path, which is looked up
  // in the manifest like any other, so nothing escapes it: the answer is exactly the resolved
  // target's (docs/http.md, "Lookup and 404").
  it.each([
    ["/skills/nested/references/%2e%2e/SKILL.md", "/skills/nested/SKILL.md"],
    ["/skills/nested/references/%2E%2E/SKILL.md", "/skills/nested/SKILL.md"],
    ["/skills/nested/references/.%2e/SKILL.md", "/skills/nested/SKILL.md"],
    ["/skills/nested/references\\..\\SKILL.md", "/skills/nested/SKILL.md"],
    ["/.well-known/skills/nested/%2E%2E/%2E%2E/skills/index.json", "/.well-known/skills/index.json"],
    ["/.well-known/agent-skills/../skills/index.json", "/.well-known/skills/index.json"],
    ["/skills/nested/%2e%2e/%2e%2e/pointer.json", "/pointer.json"],
  ])("%s is resolved by the URL parser to %s before the Worker runs", async (path, resolved) => {
    expect(new URL(`${BASE}${path}`).pathname).toBe(resolved);
    const [res, direct] = [await get(path), await get(resolved)];
    expect(res.status, path).toBe(direct.status);
    expect(res.headers.get("ETag"), path).toBe(direct.headers.get("ETag"));
  });
});

describe("paths outside the read surface", () => {
  it("answer the same JSON 404 with the security headers", async () => {
    const res = await get("/nope/at/all");
    expect(res.status).toBe(404);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });
});

describe("CORS on errors", () => {
  it("public-shelf errors (404, 410, 416, 503) carry CORS so a browser can read them and Retry-After", async () => {
    const brokenBucket = new Proxy(env.SHELF_BUCKET, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? () => Promise.reject(new Error("R2 is down")) : value;
      },
    });
    const cases: Array<[string, number, RequestInit, object]> = [
      ["/skills/missing/SKILL.md", 404, {}, env],
      ["/nope/at/all", 404, {}, env],
      ["/skills/bad-skill/SKILL.md", 410, {}, env],
      ["/skills/nested/assets/logo.png", 416, { headers: { Range: "bytes=999-" } }, env],
      ["/skills/index.json", 503, {}, { ...env, SHELF_BUCKET: brokenBucket }],
    ];
    for (const [path, status, init, bindings] of cases) {
      resetStorageMemory();
      const res = await get(path, init, bindings);
      expect(res.status, path).toBe(status);
      expect(res.headers.get("Access-Control-Allow-Origin"), path).toBe("*");
      expect(res.headers.get("Access-Control-Expose-Headers"), path).toContain("Retry-After");
      expect(res.headers.get("Cache-Control"), path).toBe("no-store");
    }
  });

  it("private-shelf errors and admin errors carry none", async () => {
    const res = await get("/skills/solo/SKILL.md", {}, { ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: "0".repeat(64) });
    expect(res.status).toBe(401);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    // A publish token configured here, not by whatever .dev.vars a local `npm start` left in the
    // checkout (wrangler reads it into the test env): without one the admin API answers 503.
    const admin = await get("/admin/v1/pointer", {}, { ...env, PUBLISH_TOKEN_SHA256: "0".repeat(64) });
    expect(admin.status).toBe(401);
    expect(admin.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("storage failure", () => {
  function failingBucket(fail: (method: string, key: string) => boolean): R2Bucket {
    return new Proxy(env.SHELF_BUCKET, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (fail(String(prop), String(args[0]))) return Promise.reject(new Error("R2 is down: internal detail"));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  it.each([
    ["every R2 read fails (cold isolate)", () => true, "/skills/index.json"],
    ["the blob read fails", (_m: string, key: string) => key.startsWith("blobs/"), "/skills/nested/references/guide.md"],
  ])("%s → 503 with Retry-After ≤ 30 s, never a partial 200", async (_label, fail, path) => {
    const res = await get(path, {}, { ...env, SHELF_BUCKET: failingBucket(fail) });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
    expect(await res.text()).not.toContain("internal detail");
  });
});

describe("binding-call budget", () => {
  type Counts = Record<string, number>;
  function counting<T extends object>(target: T, name: string, counts: Counts): T {
    return new Proxy(target, {
      get(t, prop, receiver) {
        const value = Reflect.get(t, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const key = `${name}.${String(prop)}`;
          counts[key] = (counts[key] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  }
  function countedEnv(counts: Counts) {
    return { ...env, SHELF_BUCKET: counting(env.SHELF_BUCKET, "r2", counts), SHELF_KV: counting(env.SHELF_KV, "kv", counts) };
  }

  it("a warm file GET reads one R2 object the first time and none after (kept once checked); a matching conditional GET reads none", async () => {
    const counts: Counts = {};
    const bindings = countedEnv(counts);
    const warm = await get("/skills/nested/references/guide.md", {}, bindings);
    const etag = warm.headers.get("ETag")!;
    const bytes = await warm.text();
    for (const k of Object.keys(counts)) delete counts[k];

    // The same file again: its checked bytes are the isolate's (storage/checked-blobs.ts), twice over.
    for (let i = 0; i < 2; i++) {
      const res = await get("/skills/nested/references/guide.md", {}, bindings);
      expect(await res.text()).toBe(bytes);
      expect(counts).toEqual({});
    }
    // A range of it is cut from the same bytes.
    const range = await get("/skills/nested/references/guide.md", { headers: { Range: "bytes=1-3" } }, bindings);
    expect([range.status, await range.text()]).toEqual([206, bytes.slice(1, 4)]);
    expect(counts).toEqual({});

    // Another file, never served by this isolate: one R2 read.
    const md = await get("/skills/nested/SKILL.md", {}, bindings);
    await md.arrayBuffer();
    expect(counts).toEqual({ "r2.get": 1 });

    for (const k of Object.keys(counts)) delete counts[k];
    const cond = await get("/skills/nested/references/guide.md", { headers: { "If-None-Match": etag } }, bindings);
    expect(cond.status).toBe(304);
    expect(counts).toEqual({});

    // A HEAD heads the blob (no body read), so it answers 503 exactly when a GET would.
    const head = await get("/skills/nested/references/guide.md", { method: "HEAD" }, bindings);
    expect(head.status).toBe(200);
    expect(counts).toEqual({ "r2.head": 1 });
  });

  it("a warm file GET at its immutable /g/<generation> URL reads the bytes the unpinned URL kept", async () => {
    const counts: Counts = {};
    const bindings = countedEnv(counts);
    await (await get("/skills/nested/references/guide.md", {}, bindings)).arrayBuffer();
    for (const k of Object.keys(counts)) delete counts[k];
    const res = await get(`/g/${shelf.generation}/skills/nested/references/guide.md`, {}, bindings);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable, no-transform");
    await res.arrayBuffer();
    // The blob is the same digest: kept once checked, whatever URL served it.
    expect(counts).toEqual({});
  });

  it.each([
    ["/skills/index.json", 0],
    ["/.well-known/agent-skills/index.json", 0],
    ["/.well-known/skills/index.json", 0],
    ["/v1/shelf", 0],
    ["/skills/nested/index.json", 1],
  ])("a conditional GET of %s answers 304 before listing shards or reading records, cold and warm", async (path, shardReads) => {
    const counts: Counts = {};
    const bindings = countedEnv(counts);
    for (const p of [path, `/g/${shelf.generation}${path}`]) {
      // Per URL: /v1/shelf shows published_at only unpinned, so its two bodies (and ETags) differ.
      const etag = (await get(p)).headers.get("ETag")!;
      // Cold: the pointer and advisories (R2), the manifest, and for a per-skill manifest the one
      // shard that holds its entry; no shard listing, no record. (The fixture fills no KV, so each
      // document is a KV miss, then R2.)
      resetStorageMemory();
      for (const k of Object.keys(counts)) delete counts[k];
      const cold = await get(p, { headers: { "If-None-Match": etag } }, bindings);
      expect(cold.status, p).toBe(304);
      expect(cold.headers.get("ETag"), p).toBe(etag);
      expect(counts, p).toEqual({ "r2.get": 3 + shardReads, "kv.get": 1 + shardReads });
      // Warm: no storage at all.
      for (const k of Object.keys(counts)) delete counts[k];
      expect((await get(p, { headers: { "If-None-Match": etag } }, bindings)).status, p).toBe(304);
      expect(counts, p).toEqual({});
    }
  });

  it("a warm index GET reads no storage at all", async () => {
    const counts: Counts = {};
    const bindings = countedEnv(counts);
    await (await get("/.well-known/agent-skills/index.json", {}, bindings)).arrayBuffer();
    for (const k of Object.keys(counts)) delete counts[k];
    await (await get("/.well-known/agent-skills/index.json", {}, bindings)).arrayBuffer();
    await (await get("/skills/index.json", {}, bindings)).arrayBuffer();
    expect(counts).toEqual({});
  });
});

describe("a private shelf", () => {
  const TOKEN = "sk_test_read_0123456789abcdef01234567";
  async function privateBindings(capability: "on" | "off") {
    return { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: capability, READ_TOKEN_SHA256: await sha256Hex(TOKEN) };
  }

  it("answers 401 alike for a present, a missing and a blocked skill without a token", async () => {
    const bindings = await privateBindings("off");
    const bodies = new Set<string>();
    for (const path of ["/skills/solo/SKILL.md", "/skills/no-such/SKILL.md", "/skills/bad-skill/SKILL.md", `/g/${shelf.generation}/skills/solo/SKILL.md`]) {
      const res = await get(path, {}, bindings);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="skillshelf"');
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
  });

  it("serves a bearer-token holder with private caching and no CORS", async () => {
    const res = await get("/skills/solo/SKILL.md", { headers: { Authorization: `Bearer ${TOKEN}` } }, await privateBindings("off"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, max-age=60, must-revalidate, no-transform");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("serves through a capability URL when switched on, with index URLs kept under it", async () => {
    const bindings = await privateBindings("on");
    const res = await get(`/c/${TOKEN}/.well-known/agent-skills/index.json`, {}, bindings);
    expect(res.status).toBe(200);
    const index = (await res.json()) as { skills: Array<{ url: string; digest: string }> };
    for (const entry of index.skills) {
      expect(entry.url.startsWith(`/c/${TOKEN}/g/${shelf.generation}/`)).toBe(true);
      const artifact = await get(entry.url, {}, bindings);
      expect(artifact.status).toBe(200);
      expect(artifact.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable, no-transform");
      expect(`sha256:${await sha256Hex(new Uint8Array(await artifact.arrayBuffer()))}`).toBe(entry.digest);
    }
    expect((await get(`/c/${TOKEN}/skills/bad-skill/SKILL.md`, {}, bindings)).status).toBe(410);
  });

  it("answers 404 for a capability URL when switched off or with a wrong token", async () => {
    expect((await get(`/c/${TOKEN}/skills/index.json`, {}, await privateBindings("off"))).status).toBe(404);
    expect((await get(`/c/${TOKEN}x/skills/index.json`, {}, await privateBindings("on"))).status).toBe(404);
  });
});

describe("SHELF_DISCOVERY", () => {
  it("serves only the legacy v0.1 family when set to v0.1", async () => {
    const bindings = { ...env, SHELF_DISCOVERY: "v0.1" };
    expect((await get("/.well-known/agent-skills/index.json", {}, bindings)).status).toBe(404);
    expect((await get("/.well-known/agent-skills/solo/SKILL.md", {}, bindings)).status).toBe(404);
    expect((await get("/.well-known/skills/index.json", {}, bindings)).status).toBe(200);
    expect((await get("/skills/index.json", {}, bindings)).status).toBe(200);
  });
  it("serves only v0.2 when set to v0.2", async () => {
    const bindings = { ...env, SHELF_DISCOVERY: "v0.2" };
    expect((await get("/.well-known/agent-skills/index.json", {}, bindings)).status).toBe(200);
    expect((await get("/.well-known/skills/index.json", {}, bindings)).status).toBe(404);
  });
});
