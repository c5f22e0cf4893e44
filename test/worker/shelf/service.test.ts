// The shelf service on its own, over a fixture generation in workerd's local R2: which skills it
// serves and with which verdict, its typed errors (not on the shelf, blocked with the advisory,
// storage unavailable), pinned generations, and what each lookup costs in storage reads.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NotOnShelfError, SkillBlockedError } from "../../../src/worker/shelf/errors.ts";
import { ShelfService } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory, StorageUnavailableError } from "../../../src/worker/storage/index.ts";
import { countingEnv, noOps } from "../budget/storage-ops.ts";
import { publishFixtureShelf, type PublishedFixture, SOLO_AND_NESTED } from "../fixture-shelf.ts";

const ADVISORY = {
  source: "first-party",
  official_intent: "does a thing",
  reference: "https://example.test/adv",
  tree_hash: null,
  discovered_at: "2026-11-01",
  status: "active",
  withdrawn_reason: null,
  withdrawn_at: null,
};
const BLOCKING = { ...ADVISORY, name: "bad-skill", hidden_issue: "exfiltrates secrets", severity: "critical", advisory_id: "ADV-1" };
const REVIEW_ONLY = { ...ADVISORY, name: "watched", hidden_issue: "phones home sometimes", severity: "low", advisory_id: "ADV-2" };

let shelf: PublishedFixture;
let older = "";

beforeAll(async () => {
  resetStorageMemory();
  older = (await publishFixtureShelf(env, [{ name: "solo", description: "The first version." }])).generation;
  shelf = await publishFixtureShelf(
    env,
    [...SOLO_AND_NESTED, { name: "watched", description: "Matched by a low advisory." }, { name: "bad-skill", description: "Blocked after the build." }],
    { advisories: [BLOCKING, REVIEW_ONLY] as never, seq: 2, publishedAt: "2026-11-30T11:00:00.000Z" },
  );
});

beforeEach(() => resetStorageMemory());

describe("skills()", () => {
  it("lists every servable skill, blocked ones absent, requires_review re-decided at the edge", async () => {
    const skills = await new ShelfService(env).skills();
    expect(skills.map((s) => s.name)).toEqual(["nested", "solo", "watched"]);
    expect(skills.find((s) => s.name === "watched")!.trust.requires_review).toBe(true);
    expect(skills.find((s) => s.name === "solo")!.trust.requires_review).toBe(false);
  });
});

describe("skill()", () => {
  it("answers the entry of a servable skill", async () => {
    const skill = await new ShelfService(env).skill("nested");
    expect(skill.record.sha256).toBe(shelf.entries.get("nested")!.record.sha256);
  });

  it("throws NotOnShelfError for a skill the shelf does not have", async () => {
    const err = await new ShelfService(env).skill("missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotOnShelfError);
    expect((err as NotOnShelfError).kind).toBe("skill");
    expect((err as NotOnShelfError).subject).toBe("Skill 'missing'");
  });

  it("throws NotOnShelfError for a name no skill can have, without reading storage", async () => {
    const ops = noOps();
    await expect(new ShelfService(countingEnv(env, ops)).skill("../pointer.json")).rejects.toBeInstanceOf(NotOnShelfError);
    expect([ops.r2, ops.kv]).toEqual([{}, {}]);
  });

  it("throws SkillBlockedError carrying the advisory in force", async () => {
    const err = await new ShelfService(env).skill("bad-skill").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SkillBlockedError);
    expect((err as SkillBlockedError).advisory.advisory_id).toBe("ADV-1");
    expect((err as SkillBlockedError).message).toContain("exfiltrates secrets");
  });
});

describe("file() and archive()", () => {
  it("serves SKILL.md from the entry without reading the record", async () => {
    const warm = new ShelfService(env);
    await warm.skill("nested"); // pointer, advisories, manifest and shard now in memory
    const ops = noOps();
    const file = await new ShelfService(countingEnv(env, ops)).file("nested", "SKILL.md");
    expect([ops.r2, ops.kv]).toEqual([{}, {}]);
    expect(file.sha256).toBe(shelf.entries.get("nested")!.skill_md.sha256);
    expect(await new Response((await file.open()).body).text()).toContain("name: nested");
    expect([ops.r2, ops.kv]).toEqual([{ get: 1 }, {}]);
  });

  it("looks any other file up in the record, by exact path, and opens a range", async () => {
    const file = await new ShelfService(env).file("nested", "references/guide.md");
    expect(file.size).toBe(8);
    const range = await file.open({ offset: 2, length: 5 });
    expect(await new Response(range.body).text()).toBe("Guide");
    // A range still carries what R2 says of the whole object: the checksum the admin upload gave it.
    expect({ size: range.size, sha256: range.sha256 }).toEqual({ size: 8, sha256: file.sha256 });
    const err = await new ShelfService(env).file("nested", "references/nope.md").catch((e: unknown) => e);
    expect((err as NotOnShelfError).kind).toBe("file");
    expect((err as NotOnShelfError).subject).toBe("File 'references/nope.md' of skill 'nested'");
  });

  it("refuses a file of a blocked skill", async () => {
    await expect(new ShelfService(env).file("bad-skill", "SKILL.md")).rejects.toBeInstanceOf(SkillBlockedError);
  });

  it("serves a skill's archives by their digests", async () => {
    const service = new ShelfService(env);
    const zip = await service.archive("nested", "zip");
    expect(zip.path).toBe("nested.zip");
    expect(zip.sha256).toBe(shelf.entries.get("nested")!.archives.zip.sha256);
    expect(new Uint8Array(await new Response((await zip.open()).body).arrayBuffer())).toEqual(shelf.archives.get("nested")!.zip);
  });

  it("throws StorageUnavailableError when a blob the record lists is not stored", async () => {
    const withoutBlobs = new Proxy(env.SHELF_BUCKET, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          prop === "get" && String(args[0]).startsWith("blobs/") ? Promise.resolve(null) : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    const file = await new ShelfService({ SHELF_BUCKET: withoutBlobs, SHELF_KV: env.SHELF_KV }).file("solo", "SKILL.md");
    await expect(file.open()).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe("status()", () => {
  it("counts served, blocked and reviewed skills and names the advisories in force", async () => {
    const status = await new ShelfService(env).status();
    expect(status.generation).toBe(shelf.generation);
    expect(status.published_at).toBe("2026-11-30T11:00:00.000Z");
    expect(status.counts).toMatchObject({ skills: 4, served_skills: 3, blocked_skills: 1, requires_review: 1 });
    expect(status.requires_review).toEqual(["watched"]);
    expect(status.blocked.map((b) => [b.name, b.advisory.advisory_id])).toEqual([["bad-skill", "ADV-1"]]);
    expect(status.advisories.in_force).toHaveLength(2);
  });
});

describe("generation()", () => {
  it("opens a pinned generation by id, not tied to the pointer (no seq, no publish time)", async () => {
    const pinned = new ShelfService(env, { generation: older });
    expect(pinned.pinned).toBe(true);
    const generation = await pinned.generation();
    expect([generation.id, generation.seq, generation.publishedAt]).toEqual([older, null, null]);
    expect((await pinned.skills()).map((s) => s.name)).toEqual(["solo"]);
  });

  it("treats the current id, pinned, as pinned", async () => {
    const status = await new ShelfService(env, { generation: shelf.generation }).status();
    expect(status.published_at).toBeNull();
  });

  it.each([
    ["an unknown id", "f".repeat(64), "generation", `Generation ${"f".repeat(64)}`],
    ["a malformed id", "not-a-generation", "path", "This path"],
  ])("throws NotOnShelfError for %s", async (_label, id, kind, subject) => {
    const err = await new ShelfService(env, { generation: id }).generation().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotOnShelfError);
    expect([(err as NotOnShelfError).kind, (err as NotOnShelfError).subject]).toEqual([kind, subject]);
  });

  it("throws NotOnShelfError when nothing is published", async () => {
    const empty = { SHELF_BUCKET: { get: async () => null, head: async () => null } as unknown as R2Bucket, SHELF_KV: env.SHELF_KV };
    const err = await new ShelfService(empty).skills().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotOnShelfError);
    expect((err as NotOnShelfError).subject).toBe("This shelf has nothing published yet, so this path");
  });

  it("throws StorageUnavailableError when R2 fails", async () => {
    const broken = { SHELF_BUCKET: { get: async () => Promise.reject(new Error("down")) } as unknown as R2Bucket, SHELF_KV: env.SHELF_KV };
    await expect(new ShelfService(broken).skill("solo")).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it("opens the generation once per request", async () => {
    const ops = noOps();
    const service = new ShelfService(countingEnv(env, ops));
    await Promise.all([service.generation(), service.generation(), service.skill("solo")]);
    await service.skills();
    await service.status();
    await service.skill("nested");
    expect(ops.r2.get).toBe(3 + 1); // pointer, advisories and manifest once; the one shard
  });
});
