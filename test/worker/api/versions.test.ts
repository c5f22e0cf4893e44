// The version index through the admin API and the versions routes (issue 17), inside workerd with
// local R2 and KV: publishes, a rollback, a re-publish of an older version, an advisory on one
// version, gc collecting an old version's generation, a reader repairing an index that is
// behind, the rebuild from history, and POST /v1/resolve. Every /v1 answer is checked against
// the served OpenAPI document.
import { env } from "cloudflare:workers";
import { reset } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { VersionIndexSchema } from "../../../src/core/versions/record.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { R2_VERSIONS_KEY } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { BLOCKING_ADVISORY } from "../fixture-shelf.ts";
import { expectDocumented } from "./openapi-check.ts";

const noSleep = async () => {};

function versionedMd(name: string, version: string, extra = ""): string {
  return `---\nname: ${name}\ndescription: Reviews code changes for tests, version ${version}.\nversion: "${version}"\n---\n\n# ${name}\n\nRelease ${version}.${extra}\n`;
}

/** A shelf with code-review at `version` and an unversioned `plain` skill. */
async function shelfAt(version: string, plainBody = "Plain steps.\n"): Promise<BuiltGeneration> {
  return buildGeneration([
    await skillInput("code-review", { "SKILL.md": versionedMd("code-review", version), "references/notes.md": `Notes for ${version}.\n` }),
    await skillInput("plain", { "references/a.md": plainBody }),
  ]);
}

async function publish(built: BuiltGeneration) {
  return publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: noSleep });
}

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return workerFetch(await adminEnv())(adminRequest(method, path, body));
}

/** A cold isolate's GET (or POST) of a read route, checked against the OpenAPI document. */
async function read(path: string, init: RequestInit = {}): Promise<Response> {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  const res = await workerFetch(await adminEnv())(new Request(`${WORKER_URL}${path}`, init));
  if (path.includes("/v1/")) await expectDocumented(init.method ?? "get", path, res);
  return res;
}

async function json<T = Record<string, unknown>>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await read(path, init);
  return { status: res.status, body: (await res.json()) as T };
}

interface Listed {
  version: string | null;
  tree_hash: string;
  generation: string;
  published_at: string;
  first_published_at: string;
  current: boolean;
  trust: { status: string; advisory: { advisory_id: string | null } | null };
  links: { self: string; skill_md: string; archives: { tar_gz: string; zip: string } };
}

async function listed(name = "code-review"): Promise<Listed[]> {
  const { status, body } = await json<{ versions: Listed[] }>(`/v1/skills/${name}/versions`);
  expect(status).toBe(200);
  return body.versions;
}

async function storedIndex() {
  const object = await env.SHELF_BUCKET.get(R2_VERSIONS_KEY);
  return object ? VersionIndexSchema.parse(await object.json()) : null;
}

const enc = encodeURIComponent;

beforeEach(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
});

describe("the version index through publish, rollback, re-publish, an advisory and gc", () => {
  it("keeps every version addressable and never names a collected generation", async () => {
    const v100 = await shelfAt("1.0.0");
    const v110 = await shelfAt("1.1.0");
    const rc = await shelfAt("2.0.0-rc.1");
    await publish(v100);
    await publish(v110);
    await publish(rc);
    expect((await storedIndex())!.pointer_seq).toBe(3);
    // Newest first by precedence; the prerelease is listed, current, but no plain range reaches it.
    let versions = await listed();
    expect(versions.map((v) => [v.version, v.generation, v.current])).toEqual([
      ["2.0.0-rc.1", rc.id, true],
      ["1.1.0", v110.id, false],
      ["1.0.0", v100.id, false],
    ]);
    expect(versions.every((v) => v.trust.status !== "blocked" && v.trust.advisory === null)).toBe(true);
    // The pinned SKILL.md of an old version serves that version's bytes.
    const old = await read(versions[2]!.links.skill_md);
    expect(old.status).toBe(200);
    expect(await old.text()).toBe(versionedMd("code-review", "1.0.0"));
    expect((await read(versions[2]!.links.archives.tar_gz)).status).toBe(200);

    // Resolution: ^1 → 1.1.0 in its own generation, with every URL pinned there.
    const caret = await json<{ version: string; generation: string; tree_hash: string; links: Record<string, unknown> }>(
      `/v1/skills/code-review/versions/${enc("^1")}`,
    );
    expect(caret.status).toBe(200);
    expect([caret.body.version, caret.body.generation]).toEqual(["1.1.0", v110.id]);
    const links = caret.body.links as { self: string; skill_md: { url: string; pinned_url: string }; body: string };
    expect(links.self).toBe(`/g/${v110.id}/v1/skills/code-review`);
    expect(links.skill_md.url).toBe(links.skill_md.pinned_url);
    const body = await read(links.body);
    expect(await body.text()).toContain("Release 1.1.0.");
    // The same through ?version=, and the prerelease only when a range names it.
    expect((await json<{ version: string }>(`/v1/skills/code-review?version=${enc("~1.0.0")}`)).body.version).toBe("1.0.0");
    expect((await json<{ version: string }>(`/v1/skills/code-review/versions/latest`)).body.version).toBe("1.1.0");
    expect((await json<{ version: string }>(`/v1/skills/code-review/versions/${enc(">=2.0.0-rc.0")}`)).body.version).toBe("2.0.0-rc.1");
    expect((await json<{ version: string }>(`/v1/skills/code-review/versions/${enc(`sha256:${versions[2]!.tree_hash}`)}`)).body.version).toBe("1.0.0");

    // Rollback to 1.1.0's generation: current again, its publish time the rollback's.
    const rolled = await admin("POST", "/rollback", { generation: v110.id, previous: rc.id });
    expect(rolled.status).toBe(200);
    versions = await listed();
    const at110 = versions.find((v) => v.version === "1.1.0")!;
    expect(at110.current).toBe(true);
    expect(at110.published_at > at110.first_published_at).toBe(true);

    // Re-publish the older 1.0.0 (the same build: the same generation) on top.
    const again = await publish(await shelfAt("1.0.0"));
    expect(again.generation ?? v100.id).toBe(v100.id);
    versions = await listed();
    expect(versions.find((v) => v.current)?.version).toBe("1.0.0");
    expect((await storedIndex())!.pointer_seq).toBe(5);
    // ^1 still picks the highest release, not the most recent one.
    expect((await json<{ version: string }>(`/v1/skills/code-review/versions/${enc("^1")}`)).body.version).toBe("1.1.0");

    // An advisory on 1.1.0's tree hash: listed as blocked, skipped by ranges, 410 when named exactly.
    const blocked = versions.find((v) => v.version === "1.1.0")!;
    const advised = await admin("POST", "/advisories", {
      advisories: [{ ...BLOCKING_ADVISORY, advisory_id: "ADV-110", name: "code-review", hidden_issue: "1.1.0 leaks tokens", tree_hash: blocked.tree_hash }],
    });
    expect(advised.status).toBe(200);
    versions = await listed();
    expect(versions.find((v) => v.version === "1.1.0")!.trust).toMatchObject({ status: "blocked", advisory: { advisory_id: "ADV-110" } });
    expect(versions.find((v) => v.version === "1.0.0")!.trust.status).not.toBe("blocked");
    expect((await json<{ version: string }>(`/v1/skills/code-review/versions/${enc("^1")}`)).body.version).toBe("1.0.0");
    const gone = await json<{ code: string; advisory: { advisory_id: string } }>(`/v1/skills/code-review/versions/1.1.0`);
    expect([gone.status, gone.body.code, gone.body.advisory.advisory_id]).toEqual([410, "blocked", "ADV-110"]);

    // gc keeping only the current generation collects 1.1.0's and the prerelease's: the index
    // is rewritten first, so it names only the current generation.
    const gc = await pastMinGrace(() => admin("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true }));
    expect(gc.status).toBe(200);
    expect(await env.SHELF_BUCKET.head(`generations/${v110.id}`)).toBeNull();
    const index = (await storedIndex())!;
    expect(new Set(index.moves.map((m) => m.generation))).toEqual(new Set([v100.id]));
    versions = await listed();
    expect(versions.map((v) => v.version)).toEqual(["1.0.0"]);
    const none = await json<{ code: string; versions: string[]; detail: string }>(`/v1/skills/code-review/versions/${enc("^2.0.0-rc.0")}`);
    expect([none.status, none.body.code, none.body.versions]).toEqual([404, "not_found", ["1.0.0"]]);
    expect(none.body.detail).toContain("1.0.0");
    // A rebuild from the history skips the collected generations and finds the same.
    const rebuilt = await admin("POST", "/versions/rebuild", { fresh: true });
    expect(await rebuilt.json()).toMatchObject({ pointer_seq: 5, applied: 5, collected: 3, complete: true });
    expect((await listed()).map((v) => [v.version, v.generation])).toEqual([["1.0.0", v100.id]]);
  }, 60_000);
});

describe("reading and repairing the index", () => {
  it("overlays the current generation on an index that is behind, and rebuilds it from the history", async () => {
    const v1 = await shelfAt("1.0.0");
    const v2 = await shelfAt("1.2.0");
    await publish(v1);
    await publish(v2);
    // As if the index write had failed (or the shelf predates it).
    await env.SHELF_BUCKET.delete(R2_VERSIONS_KEY);
    const { body } = await json<{ index: { repaired: boolean; pointer_seq: number }; versions: Listed[] }>("/v1/skills/code-review/versions");
    expect(body.index).toMatchObject({ repaired: true, pointer_seq: 0 });
    expect(body.versions.map((v) => v.version)).toEqual(["1.2.0"]);

    const rebuilt = await admin("POST", "/versions/rebuild", { fresh: true });
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.json()).toMatchObject({ pointer_seq: 2, current_seq: 2, applied: 2, collected: 0, complete: true });
    const after = await json<{ index: { repaired: boolean }; versions: Listed[] }>("/v1/skills/code-review/versions");
    expect(after.body.index.repaired).toBe(false);
    expect(after.body.versions.map((v) => [v.version, v.generation])).toEqual([
      ["1.2.0", v2.id],
      ["1.0.0", v1.id],
    ]);
    // A pinned request sees the same shelf-wide list.
    const pinned = await json<{ versions: Listed[] }>(`/g/${v1.id}/v1/skills/code-review/versions`);
    expect(pinned.body.versions.map((v) => v.version)).toEqual(["1.2.0", "1.0.0"]);
    // The rebuild route needs the publish token.
    const anonymous = await workerFetch(await adminEnv())(adminRequest("POST", "/versions/rebuild", {}, null));
    expect(anonymous.status).toBe(401);
  }, 60_000);

  it("addresses an unversioned skill by tree hash, and answers bad ranges and unknown skills with problems", async () => {
    const v1 = await shelfAt("1.0.0", "First.\n");
    const v2 = await shelfAt("1.0.0", "Second.\n");
    await publish(v1);
    await publish(v2);
    const plain = await listed("plain");
    expect(plain.map((v) => v.version)).toEqual([null, null]);
    expect(plain[0]!.generation).toBe(v2.id);
    const byTree = await json<{ tree_hash: string; generation: string }>(`/v1/skills/plain/versions/sha256:${plain[1]!.tree_hash}`);
    expect([byTree.status, byTree.body.generation]).toEqual([200, v1.id]);
    // No range reaches it; latest is the most recently current.
    expect((await json<{ code: string }>(`/v1/skills/plain/versions/${enc("^1")}`)).status).toBe(404);
    expect((await json<{ generation: string }>("/v1/skills/plain/versions/latest")).body.generation).toBe(v2.id);

    // Both well-known indexes carry the version as an extra field, only where the skill declares one.
    for (const index of ["/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"]) {
      const listing = (await (await read(index)).json()) as { skills: Array<{ name: string; version?: string }> };
      expect(
        listing.skills.map((s) => [s.name, s.version]),
        index,
      ).toEqual([
        ["code-review", "1.0.0"],
        ["plain", undefined],
      ]);
      expect(Object.hasOwn(listing.skills[1]!, "version")).toBe(false);
    }

    const bad = await json<{ code: string; param: string }>(`/v1/skills/code-review/versions/${enc(">=>=1")}`);
    expect([bad.status, bad.body.code, bad.body.param]).toEqual([400, "invalid_parameter", "range"]);
    const badQuery = await json<{ code: string; param: string }>(`/v1/skills/code-review?version=${enc("not a range")}`);
    expect([badQuery.status, badQuery.body.param]).toEqual([400, "version"]);
    expect((await json<{ code: string }>("/v1/skills/missing-skill/versions")).status).toBe(404);
    expect((await json<{ code: string }>("/v1/skills/missing-skill/versions/latest")).status).toBe(404);
    expect((await json<{ code: string }>("/v1/skills/Bad_Name/versions")).body.code).toBe("invalid_parameter");
  }, 60_000);

  it("checks the stored record's head and the asked skill's entries, not every skill's", async () => {
    await publish(await shelfAt("1.0.0"));
    const stored = (await storedIndex())!;
    const putIndex = (index: unknown) => env.SHELF_BUCKET.put(R2_VERSIONS_KEY, JSON.stringify(index));
    // Another skill's entries broken: this skill's versions still answer; that skill's do not.
    await putIndex({ ...stored, skills: { ...stored.skills, plain: [{ version: 7 }] } });
    expect((await listed()).map((v) => v.version)).toEqual(["1.0.0"]);
    expect((await json("/v1/skills/plain/versions")).status).toBe(503);
    expect((await json("/v1/skills/plain/versions/latest")).status).toBe(503);
    // A broken head (its moves) fails every read of the index.
    await putIndex({ ...stored, moves: [{ seq: "one" }] });
    expect((await json("/v1/skills/code-review/versions")).status).toBe(503);
    // So does a record whose skills are not an object of lists.
    await putIndex({ ...stored, skills: [] });
    expect((await json("/v1/skills/code-review/versions")).status).toBe(503);
    await putIndex(stored);
    expect((await listed()).map((v) => v.version)).toEqual(["1.0.0"]);
  }, 60_000);
});

describe("POST /v1/resolve", () => {
  it("answers pinned URLs and digests of every file, which serve exactly those bytes", async () => {
    const v1 = await shelfAt("1.0.0");
    await publish(v1);
    await publish(await shelfAt("1.1.0"));
    const post = (body: unknown) => ({
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const { status, body } = await json<{
      skills: Record<
        string,
        { version: string | null; generation: string; tree_hash: string; files: { path: string; sha256: string; size: number; url: string }[] }
      >;
    }>("/v1/resolve", post({ skills: { "code-review": "~1.0", plain: "latest" } }));
    expect(status).toBe(200);
    const cr = body.skills["code-review"]!;
    expect([cr.version, cr.generation]).toEqual(["1.0.0", v1.id]);
    for (const file of cr.files) {
      expect(file.url).toBe(`/g/${v1.id}/skills/code-review/${file.path}`);
      const res = await read(file.url);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([bytes.length, await sha256Hex(bytes)]).toEqual([file.size, file.sha256]);
    }
    expect(body.skills.plain!.version).toBeNull();

    const missing = await json<{ code: string; unresolved: { name: string; reason: string; versions?: string[] }[] }>(
      "/v1/resolve",
      post({ skills: { "code-review": "^3", nope: "1.0.0" } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.unresolved).toEqual([
      { name: "code-review", range: "^3", reason: "no_match", versions: ["1.1.0", "1.0.0"] },
      { name: "nope", range: "1.0.0", reason: "not_on_shelf" },
    ]);
    const badRange = await json<{ code: string; param: string }>("/v1/resolve", post({ skills: { "code-review": "~~~" } }));
    expect([badRange.status, badRange.body.code, badRange.body.param]).toEqual([422, "unprocessable", "skills.code-review"]);
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`s${i}`, "latest"]));
    expect((await json<{ code: string }>("/v1/resolve", post({ skills: tooMany }))).body.code).toBe("unprocessable");
    expect((await json<{ code: string }>("/v1/resolve", post({ skills: {} }))).body.code).toBe("unprocessable");
    expect((await json<{ code: string }>("/v1/resolve", post("{not json"))).body.code).toBe("malformed_json");
    expect((await json<{ code: string }>("/v1/resolve", post({ skills: { x: "1" }, pad: "x".repeat(70_000) }))).body.code).toBe("too_large");
  }, 60_000);
});
