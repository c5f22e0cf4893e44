// The admin API applies the build's own rules (src/core/skill/tree-rules.ts) to every record and
// shard it is asked to store (issue 11, item 8): with the publish token, a skill named
// `../../evil`, a path outside the skill, a file or a skill listed twice, twins, totals that lie,
// are each 422 invalid_skill, nothing is stored, and a publish built around them fails.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import type { SkillRecord } from "../../../src/core/generation/manifest.ts";
import { PublishError, publishGeneration } from "../../../src/core/publish/client.ts";
import { ADMIN_ERRORS } from "../../../src/core/publish/contract.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, bucketKeys, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const decoder = new TextDecoder();

beforeEach(async () => {
  await reset();
  resetStorageMemory();
});

/** PUTs a document as canonical JSON under its SHA-256; answers the status and the body. */
async function putDocument(kind: "record" | "shard", document: unknown): Promise<{ status: number; body: { error: string; message: string } }> {
  const bytes = canonicalJson(document);
  const call = workerFetch(await adminEnv());
  const res = await call(
    new Request(`${WORKER_URL}/admin/v1/${kind}s/${await sha256Hex(bytes)}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${TOKEN}` },
      body: bytes as BodyInit,
    }),
  );
  return { status: res.status, body: (await res.json()) as { error: string; message: string } };
}

/** A record of a skill the build accepts (SKILL.md and one reference), as parsed JSON. */
async function validRecord(): Promise<SkillRecord> {
  const built = await buildGeneration([await skillInput("alpha", { "references/guide.md": "# Guide\n" })]);
  const record = built.objects.find((o) => o.kind === "record")!;
  return JSON.parse(decoder.decode(record.bytes)) as SkillRecord;
}

describe("records the build would refuse", () => {
  it("is a code of the contract, answered 422", () => {
    expect(ADMIN_ERRORS.invalid_skill).toBe(422);
  });

  const forgeries: [string, (r: SkillRecord) => void, RegExp][] = [
    ["a skill named ../../evil", (r) => void (r.name = "../../evil"), /skill name "\.\.\/\.\.\/evil" is not a skill name/],
    [
      "a file outside the skill",
      (r) => {
        r.files.unshift({ path: "../../../../outside.txt", size: 1, sha256: "0".repeat(64), media_type: "text/plain; charset=utf-8" });
        r.total_bytes += 1;
      },
      /path "\.\.\/\.\.\/\.\.\/\.\.\/outside\.txt" contains "\.\."/,
    ],
    [
      "an absolute path",
      (r) => {
        r.files.unshift({ path: "/etc/passwd", size: 1, sha256: "0".repeat(64), media_type: "application/octet-stream" });
        r.total_bytes += 1;
      },
      /path "\/etc\/passwd" is absolute/,
    ],
    [
      "the same file twice",
      (r) => {
        r.files.splice(1, 0, { ...r.files[0]! });
        r.total_bytes += r.files[0]!.size;
      },
      /path "SKILL\.md" is listed 2 times/,
    ],
    [
      "NFC and NFD twins",
      (r) => {
        const f = r.files[1]!;
        r.files.push({ ...f, path: "references/caf\u00e9.md" }, { ...f, path: "references/cafe\u0301.md" });
        r.files.sort((a, b) => (a.path < b.path ? -1 : 1));
        r.total_bytes += 2 * f.size;
      },
      /differ only in Unicode normalization/,
    ],
    ["totals that lie", (r) => void (r.total_bytes += 1000), /total_bytes is \d+, but the files add up to \d+/],
    ["has_scripts that lies", (r) => void (r.has_scripts = true), /has_scripts is true, but the file list says false/],
    ["another media type", (r) => void (r.files[0]!.media_type = "text/html; charset=utf-8"), /file "SKILL\.md" has media_type "text\/html; charset=utf-8"/],
    // Issue 25: the hashes are recomputed from the listed files (whose digests and sizes the blobs' uploads verified).
    ["a tree_hash that is not its files'", (r) => void (r.tree_hash = "f".repeat(64)), /tree_hash is f{64}, but the files hash to [0-9a-f]{64}/],
    ["a content_hash that is not SKILL.md's", (r) => void (r.content_hash = "e".repeat(64)), /content_hash is e{64}, but SKILL\.md's SHA-256 is [0-9a-f]{64}/],
  ];
  for (const [label, forge, message] of forgeries) {
    it(label, async () => {
      const record = await validRecord();
      forge(record);
      const answer = await putDocument("record", record);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.error).toBe("invalid_skill");
      expect(answer.body.message).toMatch(message);
      expect(answer.body.message).toMatch(/nothing was stored$/);
      expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
    });
  }

  it("accepts the record the build wrote (up to its missing blobs)", async () => {
    const answer = await putDocument("record", await validRecord());
    expect(answer.body.error).toBe("missing_references");
  });
});

describe("shards the build would refuse", () => {
  it("a skill listed twice, or skills out of order", async () => {
    const built = await buildGeneration([await skillInput("alpha"), await skillInput("beta")]);
    const shard = JSON.parse(decoder.decode(built.objects.find((o) => o.kind === "shard")!.bytes)) as { skills: { name: string }[] };
    const twice = { ...shard, skills: [shard.skills[0], ...shard.skills] };
    const answer = await putDocument("shard", twice);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ error: "invalid_skill", message: expect.stringMatching(/skill "alpha" is listed twice/) });
    const reversed = await putDocument("shard", { ...shard, skills: [...shard.skills].reverse() });
    expect(reversed.body).toMatchObject({ error: "invalid_skill", message: expect.stringMatching(/the skills are not sorted by name/) });
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});

describe("a publish built around a refused skill", () => {
  it("fails with invalid_skill and leaves no pointer and no record behind", async () => {
    const evil = await skillInput("evil");
    evil.record.name = "../../evil";
    const built = await buildGeneration([await skillInput("alpha"), evil]);
    const error = await publishGeneration(memorySource(built), {
      url: WORKER_URL,
      token: TOKEN,
      fetch: workerFetch(await adminEnv()),
      sleep: async () => {},
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).code).toBe("invalid_skill");
    const keys = await bucketKeys(env.SHELF_BUCKET);
    expect(keys.filter((k) => !k.startsWith("blobs/") && !k.startsWith("records/"))).toEqual([]);
    const evilRecord = built.objects.find((o) => o.kind === "record" && decoder.decode(o.bytes).includes('"name":"../../evil"'))!;
    expect(keys).not.toContain(`records/${evilRecord.sha256}`);
  });
});
