// The ClawHub v1 read API (src/worker/views/clawhub) inside workerd with local R2 and KV: the
// answers the `clawhub` 0.23.3 CLI validates, versions from the version index (named, listed,
// opened, downloaded as the generation's zip), resolve by the CLI's fingerprint, the review and
// blocked mappings, discovery, whoami on public and private shelves, and the 405 for publishing.
// Every GET answer is checked against the served OpenAPI document.
import { reset } from "cloudflare:test";
import { unzipSync } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { clawhubFingerprint } from "../../../src/core/api/clawhub.ts";
import { assembleGeneration, type SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { LIFECYCLE_SCHEMA } from "../../../src/core/changes/lifecycle.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { expectDocumented } from "../api/openapi-check.ts";
import { BLOCKING_ADVISORY } from "../fixture-shelf.ts";

const READ_TOKEN = "sk_clawhub_read_token_0123456789abcdef";
const noSleep = async () => {};
const decoder = new TextDecoder();

function versionedMd(name: string, version: string): string {
  return `---\nname: ${name}\ndescription: Reviews code changes for tests and naming, version ${version}.\nversion: "${version}"\n---\n\n# ${name}\n\nRelease ${version}.\n`;
}

/** A skill input whose build verdict attaches (no review), as a first-party record would make it. */
function attachable(input: SkillBuildInput): SkillBuildInput {
  const verdict = { ...input.record.trust.verdict, level: "first_party" as const, requires_review: false, attachable: true, reasons: [] };
  return { ...input, record: { ...input.record, trust: { ...input.record.trust, verdict } } };
}

/** code-review at `version` (attachable, with a reference), `plain` (unversioned, attachable) and `held` (requires review). */
async function shelfAt(version: string, plainBody = "Plain steps.\n") {
  return buildGeneration([
    attachable(await skillInput("code-review", { "SKILL.md": versionedMd("code-review", version), "references/notes.md": `Notes for ${version}.\n` })),
    attachable(await skillInput("plain", { "references/a.md": plainBody })),
    await skillInput("held", { "scripts/run.sh": "#!/bin/sh\necho hi\n" }),
  ]);
}

async function publish(built: Awaited<ReturnType<typeof shelfAt>>) {
  return publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
}

/** A cold isolate's request, on a public shelf or (with `vars`) another configuration. */
async function read(path: string, init: RequestInit = {}, vars: Record<string, string> = {}): Promise<Response> {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  const res = await workerFetch({ ...(await adminEnv()), ...vars })(new Request(`${WORKER_URL}${path}`, init));
  // Every GET answer of the ClawHub API is what the OpenAPI document says (status, media type, schema).
  if ((init.method ?? "GET") === "GET" && /^(\/c\/[^/]+)?\/(api\/v1\/|\.well-known\/clawhub\.json)/.test(path)) await expectDocumented("get", path, res);
  return res;
}

async function json<T = Record<string, unknown>>(path: string, init: RequestInit = {}, vars: Record<string, string> = {}): Promise<T> {
  const res = await read(path, init, vars);
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return (await res.json()) as T;
}

interface Detail {
  skill: { slug: string; summary: string; tags: { latest: string }; createdAt: number; updatedAt: number };
  latestVersion: { version: string; createdAt: number; changelog: string };
  owner: { handle: null; displayName: string };
  moderation: { isSuspicious: boolean; isMalwareBlocked: boolean; verdict: string; reasonCodes: string[] };
  metadata?: unknown;
}

interface VersionDetail {
  version: { version: string; files: Array<{ path: string; size: number; sha256: string; contentType: string }> };
  skill: { slug: string };
}

beforeEach(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
});

describe("the ClawHub read API over the version index", () => {
  it("answers search, detail, versions, one version, file, download and resolve as the CLI reads them", async () => {
    const v100 = await shelfAt("1.0.0");
    await publish(v100);
    const v110 = await shelfAt("1.1.0");
    await publish(v110);

    const found = await json<{ results: Array<{ slug: string; version: string; score: number; owner: { displayName: string } }> }>(
      "/api/v1/search?q=reviews%20code%20changes&limit=25",
    );
    expect(found.results[0]).toMatchObject({ slug: "code-review", version: "1.1.0", owner: { displayName: "shelf.test" } });
    expect(typeof found.results[0]!.score).toBe("number");
    const exact = await json<{ results: Array<{ slug: string }> }>("/api/v1/search?q=plain&mode=exact");
    expect(exact.results.map((r) => r.slug)).toEqual(["plain"]);

    const detail = await json<Detail>("/api/v1/skills/code-review");
    expect(detail.metadata).toBeUndefined();
    expect(detail.skill).toMatchObject({ slug: "code-review", tags: { latest: "1.1.0" } });
    expect(detail.latestVersion).toMatchObject({ version: "1.1.0", changelog: "" });
    expect(detail.owner.handle).toBeNull();
    expect(detail.moderation).toMatchObject({ isSuspicious: false, isMalwareBlocked: false, verdict: "clean" });
    expect(detail.skill.createdAt).toBeLessThanOrEqual(detail.skill.updatedAt);

    const listed = await json<{ items: Array<{ version: string }>; nextCursor: string | null }>("/api/v1/skills/code-review/versions?limit=25");
    expect(listed.items.map((v) => v.version)).toEqual(["1.1.0", "1.0.0"]);
    const paged = await json<{ items: Array<{ version: string }>; nextCursor: string | null }>("/api/v1/skills/code-review/versions?limit=1");
    expect([paged.items.map((v) => v.version), paged.nextCursor]).toEqual([["1.1.0"], "1"]);
    const next = await json<{ items: Array<{ version: string }>; nextCursor: string | null }>("/api/v1/skills/code-review/versions?limit=1&cursor=1");
    expect([next.items.map((v) => v.version), next.nextCursor]).toEqual([["1.0.0"], null]);

    // One older version: its files with the sizes and digests of that generation's record.
    const old = await json<VersionDetail>("/api/v1/skills/code-review/versions/1.0.0");
    const record = [...v100.objects].map((o) => o).find((o) => o.kind === "record" && decoder.decode(o.bytes).includes('"version":"1.0.0"'));
    expect(record).toBeDefined();
    const files = (JSON.parse(decoder.decode(record!.bytes)) as { files: Array<{ path: string; size: number; sha256: string }> }).files;
    expect(old.version.files.map(({ path, size, sha256 }) => ({ path, size, sha256 }))).toEqual(
      files.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
    );
    expect(old.version.files.find((f) => f.path === "SKILL.md")!.sha256).toBe(await sha256Hex(versionedMd("code-review", "1.0.0")));
    expect((await read("/api/v1/skills/code-review/versions/9.9.9")).status).toBe(404);

    const file = await read("/api/v1/skills/code-review/file?path=references/notes.md&version=1.0.0");
    expect([file.status, await file.text()]).toEqual([200, "Notes for 1.0.0.\n"]);
    expect(await (await read("/api/v1/skills/code-review/file?path=SKILL.md")).text()).toBe(versionedMd("code-review", "1.1.0"));

    // The download is the generation's own zip, files at the root.
    const zip = await read("/api/v1/download?slug=code-review&version=1.0.0");
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    expect(zip.headers.get("content-disposition")).toBe('attachment; filename="code-review-1.0.0.zip"');
    const bytes = new Uint8Array(await zip.arrayBuffer());
    const entry = (await json<{ versions: Array<{ version: string; links: { archives: { zip: string } } }> }>("/v1/skills/code-review/versions")).versions.find(
      (v) => v.version === "1.0.0",
    )!;
    const pinnedZip = new Uint8Array(await (await read(entry.links.archives.zip)).arrayBuffer());
    expect(bytes).toEqual(pinnedZip);
    const unzipped = unzipSync(bytes);
    expect(Object.keys(unzipped).sort()).toEqual(["SKILL.md", "references/notes.md"]);
    expect(decoder.decode(unzipped["SKILL.md"]!)).toBe(versionedMd("code-review", "1.0.0"));
    const latestZip = unzipSync(new Uint8Array(await (await read("/api/v1/download?slug=code-review")).arrayBuffer()));
    expect(decoder.decode(latestZip["SKILL.md"]!)).toBe(versionedMd("code-review", "1.1.0"));

    // resolve: the folder fingerprint the CLI computes (localeCompare order) names the version.
    const fingerprint = await clawhubFingerprint(old.version.files);
    const resolved = await json<{ match: { version: string } | null; latestVersion: { version: string } }>(
      `/api/v1/resolve?slug=code-review&hash=${fingerprint}`,
    );
    expect(resolved).toMatchObject({ match: { version: "1.0.0" }, latestVersion: { version: "1.1.0" } });
    const unknown = await json<{ match: unknown }>(`/api/v1/resolve?slug=code-review&hash=${"0".repeat(64)}`);
    expect(unknown.match).toBeNull();
    const bad = await read("/api/v1/resolve?slug=code-review&hash=nope");
    expect([bad.status, bad.headers.get("content-type")]).toEqual([400, "text/plain; charset=utf-8"]);
    expect(await bad.text()).toContain("hash");

    // The list (explore, search --prefix), by name, paged by cursor.
    const list = await json<{ items: Array<{ slug: string; latestVersion: { version: string } }>; nextCursor: string | null }>("/api/v1/skills?limit=2");
    expect([list.items.map((i) => i.slug), list.nextCursor]).toEqual([["code-review", "held"], "held"]);
    const rest = await json<{ items: Array<{ slug: string }>; nextCursor: string | null }>("/api/v1/skills?limit=2&cursor=held");
    expect([rest.items.map((i) => i.slug), rest.nextCursor]).toEqual([["plain"], null]);
    const prefixed = await json<{ items: Array<{ slug: string }> }>("/api/v1/skills?prefix=co");
    expect(prefixed.items.map((i) => i.slug)).toEqual(["code-review"]);
  }, 60_000);

  it("names an unversioned skill's versions by seq and tree hash, and finds them again after the seq moved", async () => {
    await publish(await shelfAt("1.0.0", "First.\n"));
    const first = (await json<Detail>("/api/v1/skills/plain")).latestVersion.version;
    expect(first).toMatch(/^0\.0\.0-1\.t[0-9a-f]{12}$/);
    await publish(await shelfAt("1.0.0", "Second.\n"));
    const second = (await json<Detail>("/api/v1/skills/plain")).latestVersion.version;
    expect(second).toMatch(/^0\.0\.0-2\.t[0-9a-f]{12}$/);
    // The same tree published again keeps its name's tree part; the seq only orders.
    await publish(await shelfAt("1.0.1", "Second.\n"));
    const listed = await json<{ items: Array<{ version: string }> }>("/api/v1/skills/plain/versions");
    expect(listed.items.map((v) => v.version)).toEqual([second.replace("-2.", "-3."), first]);
    // An older name, even with the seq it had when installed, still finds its version.
    const old = await read(`/api/v1/download?slug=plain&version=${first}`);
    expect(old.status).toBe(200);
    expect(decoder.decode(unzipSync(new Uint8Array(await old.arrayBuffer()))["references/a.md"]!)).toBe("First.\n");
    const moved = await json<VersionDetail>(`/api/v1/skills/plain/versions/${second}`);
    expect(moved.version.version).toBe(second.replace("-2.", "-3."));
  }, 60_000);
});

describe("trust in ClawHub's terms", () => {
  it("marks a skill held for review as suspicious, and leaves blocked skills out", async () => {
    await publish(await shelfAt("1.0.0"));
    const held = await json<Detail>("/api/v1/skills/held");
    expect(held.moderation).toMatchObject({ isSuspicious: true, isMalwareBlocked: false, verdict: "suspicious", reasonCodes: ["skillshelf.requires_review"] });

    // An advisory on plain's exact bytes blocks it.
    const { tree_hash } = await json<{ tree_hash: string }>("/v1/skills/plain");
    const advisory = { ...BLOCKING_ADVISORY, advisory_id: "ADV-PLAIN", name: "plain", tree_hash };
    const advised = await workerFetch(await adminEnv())(adminRequest("POST", "/advisories", { advisories: [advisory] }));
    expect(advised.status).toBe(200);
    for (const path of ["/api/v1/skills/plain", "/api/v1/skills/plain/versions", "/api/v1/download?slug=plain", "/api/v1/skills/missing"]) {
      const res = await read(path);
      expect([path, res.status, await res.text()]).toEqual([path, 404, "Skill not found"]);
    }
    const search = await json<{ results: Array<{ slug: string }> }>("/api/v1/search?q=plain&mode=exact");
    expect(search.results).toEqual([]);
    const list = await json<{ items: Array<{ slug: string }> }>("/api/v1/skills");
    expect(list.items.map((i) => i.slug)).toEqual(["code-review", "held"]);
  });
});

describe("lifecycle in ClawHub's terms", () => {
  it("says a deprecation where the CLI prints text (display name, summary) and in `deprecation`; other skills unchanged", async () => {
    const skills = [
      attachable(await skillInput("code-review", { "SKILL.md": versionedMd("code-review", "1.0.0") })),
      attachable(await skillInput("plain", { "references/a.md": "Plain steps.\n" })),
    ];
    const records = { validations: null, advisories: null, guidance: null, catalog: null };
    await publish(await buildGeneration(skills));
    const before = await json<Detail>("/api/v1/skills/plain");
    const lifecycle = { schema: LIFECYCLE_SCHEMA, skills: { plain: { deprecated: "Folded into code-review", replaced_by: "code-review" } } } as const;
    await publish(await assembleGeneration(skills, { catalogVersion: null, recordDigests: records, advisories: null, lifecycle }));

    const note = "Deprecated: Folded into code-review. Use code-review instead.";
    const detail = await json<Detail & { skill: { displayName: string; deprecation?: unknown } }>("/api/v1/skills/plain");
    expect(detail.skill.displayName).toBe("plain (deprecated)");
    expect(detail.skill.summary).toBe(`${note} ${before.skill.summary}`);
    expect(detail.skill.deprecation).toEqual({ reason: "Folded into code-review", replacedBy: "code-review" });
    // Still installable as it was: a deprecation is not a review hold.
    expect(detail.moderation).toMatchObject({ isSuspicious: false, verdict: "clean" });
    // The same bytes: an unversioned skill's derived version keeps its tree part (its seq is the pointer's).
    expect(detail.latestVersion.version.split(".t")[1]).toBe(before.latestVersion.version.split(".t")[1]);

    const list = await json<{ items: Array<{ slug: string; displayName: string; summary: string; deprecation?: unknown }> }>("/api/v1/skills");
    expect(list.items.map((i) => [i.slug, i.displayName, i.summary.startsWith(note), i.deprecation !== undefined])).toEqual([
      ["code-review", "code-review", false, false],
      ["plain", "plain (deprecated)", true, true],
    ]);
    const search = await json<{ results: Array<{ slug: string; displayName: string; summary: string }> }>("/api/v1/search?q=plain&mode=exact");
    expect(search.results.map((r) => [r.slug, r.displayName, r.summary.startsWith(note)])).toEqual([["plain", "plain (deprecated)", true]]);
    const review = await json<Detail & { skill: { displayName: string; deprecation?: unknown } }>("/api/v1/skills/code-review");
    expect([review.skill.displayName, review.skill.deprecation]).toEqual(["code-review", undefined]);
  });
});

describe("discovery, login and publishing", () => {
  it("serves discovery at the root, refuses whoami on a public shelf, and answers 405 to publishing", async () => {
    await publish(await shelfAt("1.0.0"));
    expect(await json("/.well-known/clawhub.json")).toEqual({ apiBase: WORKER_URL, registry: WORKER_URL });
    const whoami = await read("/api/v1/whoami", { headers: { Authorization: `Bearer ${READ_TOKEN}` } });
    expect(whoami.status).toBe(401);
    expect(await whoami.text()).toContain("public");
    for (const [method, path] of [
      ["POST", "/api/v1/skills"],
      ["POST", "/api/v1/skills/-/upload-url"],
      ["DELETE", "/api/v1/skills/code-review"],
    ] as const) {
      const res = await read(path, { method, headers: { "Content-Type": "application/json" }, body: method === "POST" ? "{}" : undefined });
      expect([method, path, res.status, res.headers.get("allow")]).toEqual([method, path, 405, "GET, HEAD"]);
      expect(await res.text()).toContain("skillshelf publish");
    }
    // A ClawHub route this shelf does not serve (not in the document): a plain 404.
    const unknown = await workerFetch(await adminEnv())(new Request(`${WORKER_URL}/api/v1/skills/code-review/install`));
    expect(unknown.status).toBe(404);
  });

  it("on a private shelf: discovery stays readable, everything else needs the read token, whoami names the reader", async () => {
    await publish(await shelfAt("1.0.0"));
    const vars = { SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN), SHELF_CAPABILITY_URLS: "on" };
    const auth = { headers: { Authorization: `Bearer ${READ_TOKEN}` } };
    expect(await json("/.well-known/clawhub.json", {}, vars)).toEqual({ apiBase: WORKER_URL, registry: WORKER_URL });
    for (const path of ["/api/v1/whoami", "/api/v1/search?q=code", "/api/v1/skills/code-review", "/api/v1/download?slug=code-review"]) {
      expect([path, (await read(path, {}, vars)).status]).toEqual([path, 401]);
      expect([path, (await read(path, { headers: { Authorization: "Bearer sk_not_the_token_0123456789" } }, vars)).status]).toEqual([path, 401]);
    }
    expect(await json("/api/v1/whoami", auth, vars)).toEqual({
      user: { handle: "shelf-reader", displayName: "Read token for shelf.test", image: null, role: null },
    });
    expect((await json<Detail>("/api/v1/skills/code-review", auth, vars)).latestVersion.version).toBe("1.0.0");
    expect((await read("/api/v1/download?slug=code-review", auth, vars)).status).toBe(200);
    // The capability form: the registry URL carries the token.
    expect((await json<Detail>(`/c/${READ_TOKEN}/api/v1/skills/code-review`, {}, vars)).latestVersion.version).toBe("1.0.0");
    expect((await read("/c/sk_wrong_token_0123456789abcdef/api/v1/skills/code-review", {}, vars)).status).toBe(404);
  });
});
