// Serving signatures in workerd: /v1/skills/{name} carries the skill's signature and
// /v1/skills/{name}/signature returns it alone, /v1/shelf the generation signature and its payload,
// the v0.2 index a `signature` per entry, /.well-known/skillshelf/keys.json the configured keys;
// every signature verifies with the core over bytes rebuilt here; an unsigned generation (one built
// before signing) keeps serving with none; a private shelf keeps its auth on all of these. On a
// 4-shard shelf: which signature objects each route reads (never the whole document, except for
// generations signed before the per-shard objects, which answer the same bytes from it).
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import vector from "../../goldens/signing/vector.json";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { shardOf, SkillRecordSchema, type SkillRecord } from "../../../src/core/generation/manifest.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { fromBase64, importPublicKey, importSeed, toBase64, verify, type SigningKey } from "../../../src/core/signing/ed25519.ts";
import { contentRevision, generationPayload, snapshotPayload } from "../../../src/core/signing/payloads.ts";
import { signGeneration } from "../../../src/core/signing/signatures.ts";
import { fromHex, sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import {
  generationPayloadKey,
  generationSignatureKey,
  R2_SIGNATURE_SHARDS_PREFIX,
  signatureShardKey,
  signaturesKey,
} from "../../../src/worker/storage/keys.ts";
import app from "../../../src/worker/index.ts";
import { adminEnv, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { expectDocumented } from "./openapi-check.ts";

const ORIGIN = "https://shelf.test";
let key: SigningKey;

async function bindings(extra: Record<string, string> = {}) {
  return {
    ...(await adminEnv()),
    SHELF_SIGNING_ORIGIN: ORIGIN,
    SHELF_SIGNING_KEYS: JSON.stringify([{ key_id: "k1", public_key: toBase64(key.publicKey), status: "active" }]),
    ...extra,
  };
}

function recordsOf(built: BuiltGeneration): (SkillRecord & { sha256: string })[] {
  return built.objects
    .filter((o) => o.kind === "record")
    .map((o) => ({ ...SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))), sha256: o.sha256 }));
}

async function publish(built: BuiltGeneration, signed: boolean) {
  const signatures = signed ? canonicalJson(await signGeneration(built.id, recordsOf(built), key, { origin: ORIGIN, keyId: "k1" })) : null;
  await publishGeneration(
    { ...memorySource(built), signatures },
    { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await bindings()), sleep: async () => {} },
  );
}

async function get(path: string, init: RequestInit = {}, over?: object) {
  const res = await app.request(`https://shelf.test${path}`, init, over ?? (await bindings()));
  if (path.includes("/v1/") && !path.endsWith("/v1/shelf")) await expectDocumented("get", path, res);
  return res;
}

let unsigned: BuiltGeneration;
let signedGen: BuiltGeneration;
beforeEach(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  key = await importSeed(fromHex(vector.seed_hex));
  unsigned = await buildGeneration([await skillInput("alpha")]);
  signedGen = await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/naïve.md": "# Naïve\n" })]);
  await publish(unsigned, false);
  await publish(signedGen, true);
});

describe("skill signatures", () => {
  it("/v1/skills/{name} and /signature carry a signature that verifies over the skill's own files", async () => {
    const detail = (await (await get("/v1/skills/beta")).json()) as {
      signature: Record<string, string | null>;
      files: { path: string; size: number; sha256: string }[];
    };
    const alone = (await (await get("/v1/skills/beta/signature")).json()) as Record<string, string | null>;
    expect(alone).toEqual(detail.signature);
    expect(alone).toMatchObject({ key_id: "k1", origin: ORIGIN, version: null });
    // Rebuilt from the files the detail lists (the Worker's revision is not taken on trust).
    const revision = await contentRevision(detail.files);
    expect(alone.revision).toBe(revision);
    const payload = snapshotPayload({ origin: ORIGIN, skillId: "beta", version: null, revision });
    expect(await verify(await importPublicKey(key.publicKey), fromBase64(alone.signature!)!, payload)).toBe(true);
  });

  it("a generation built before signing keeps serving, pinned, with no signatures", async () => {
    const detail = (await (await get(`/g/${unsigned.id}/v1/skills/alpha`)).json()) as { signature: unknown };
    expect(detail.signature).toBeNull();
    const res = await get(`/g/${unsigned.id}/v1/skills/alpha/signature`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toBe(`Skill 'alpha' has no signature in generation ${unsigned.id}: it was published unsigned.`);
    const index = (await (await get(`/g/${unsigned.id}/.well-known/agent-skills/index.json`)).json()) as { skills: Record<string, unknown>[] };
    expect(index.skills[0]).not.toHaveProperty("signature");
  });

  it("a version lookup answers the resolved generation's signature too", async () => {
    const detail = (await (await get("/v1/skills/beta")).json()) as { tree_hash: string; signature: unknown };
    const resolved = (await (await get(`/v1/skills/beta/versions/sha256:${detail.tree_hash}`)).json()) as { generation: string; signature: unknown };
    expect(resolved.generation).toBe(signedGen.id);
    expect(resolved.signature).toEqual(detail.signature);
    expect(resolved.signature).not.toBeNull();
  });

  it("the v0.2 index entries carry the same signature", async () => {
    const index = (await (await get("/.well-known/agent-skills/index.json")).json()) as { skills: { name: string; signature: unknown }[] };
    const alone = await (await get("/v1/skills/alpha/signature")).json();
    expect(index.skills.find((s) => s.name === "alpha")!.signature).toEqual(alone);
  });
});

describe("reading signatures without the whole document", () => {
  it("one skill reads its shard's signatures; the v0.2 index the signature shards it spans; /v1/shelf the generation signature and payload; older generations fall back to the whole document with the same bytes", async () => {
    const names = ["alpha", ...Array.from({ length: 129 }, (_, i) => `filler-${String(i).padStart(3, "0")}`)];
    const many = await buildGeneration(await Promise.all(names.map((n) => skillInput(n))));
    expect(many.manifest.shard_count).toBe(4);
    expect(new Set(names.map((n) => shardOf(n, 4))).size).toBe(4);
    await publish(many, true);
    const reads: string[] = [];
    const bucket = env.SHELF_BUCKET;
    const counted = {
      ...(await bindings()),
      SHELF_BUCKET: new Proxy(bucket, {
        get(target, prop) {
          if (prop === "get") {
            return (key: string, options?: R2GetOptions) => {
              reads.push(key);
              return target.get(key, options);
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }),
    };
    /** A cold isolate's answer to `path`, with the signature objects it read (sorted: shards are read concurrently). */
    const signatureReads = async (path: string, headers: Record<string, string> = {}) => {
      resetStorageMemory();
      resetComputedCache();
      resetBodyCache();
      reads.length = 0;
      const res = await get(path, { headers }, counted);
      const text = await res.text();
      return { status: res.status, etag: res.headers.get("ETag"), text, reads: reads.filter((k) => k.startsWith("signature")).sort() };
    };
    const { text: detailText } = await signatureReads("/v1/skills/filler-007");
    const treeHash = (JSON.parse(detailText) as { tree_hash: string }).tree_hash;
    const skillPaths = ["/v1/skills/filler-007", "/v1/skills/filler-007/signature", `/v1/skills/filler-007/versions/sha256:${treeHash}`];
    const itsShard = signatureShardKey(many.id, shardOf("filler-007", 4));
    const head = generationSignatureKey(many.id);
    const answers = new Map<string, { etag: string | null; text: string }>();
    for (const path of skillPaths) {
      const { status, etag, text, reads: read } = await signatureReads(path);
      expect(status, path).toBe(200);
      expect(read, path).toEqual([itsShard]);
      answers.set(path, { etag, text });
    }
    expect((JSON.parse(answers.get(skillPaths[0]!)!.text) as { signature: unknown }).signature).toEqual(JSON.parse(answers.get(skillPaths[1]!)!.text));

    // The v0.2 index: the generation signature (its ETag names the document's digest) and the 4 signature shards.
    const index = "/.well-known/agent-skills/index.json";
    const listed = await signatureReads(index);
    expect(listed.status).toBe(200);
    expect(listed.reads).toEqual([head, ...[0, 1, 2, 3].map((n) => signatureShardKey(many.id, n))].sort());
    const entries = (JSON.parse(listed.text) as { skills: { name: string; signature?: { revision: string } }[] }).skills;
    expect(entries).toHaveLength(names.length);
    expect(entries.every((e) => e.signature !== undefined)).toBe(true);
    const wholeDoc = canonicalJson(await signGeneration(many.id, recordsOf(many), key, { origin: ORIGIN, keyId: "k1" }));
    expect(listed.etag).toMatch(new RegExp(`^"v2-${many.id}-.*-${await sha256Hex(wholeDoc)}"$`));
    const revalidated = await signatureReads(index, { "If-None-Match": listed.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.reads).toEqual([head]);
    answers.set(index, { etag: listed.etag, text: listed.text });
    // /v1/shelf: the generation signature and its payload, no signature shard.
    const shelf = await signatureReads("/v1/shelf");
    expect(shelf.status).toBe(200);
    expect(shelf.reads).toEqual([head, generationPayloadKey(many.id)].sort());
    expect(shelf.etag).toContain(`-${await sha256Hex(wholeDoc)}"`);
    answers.set("/v1/shelf", { etag: shelf.etag, text: shelf.text });

    /** The same answers as before; a skill's ETag names the bytes its signature came from (its shard, or the whole document). */
    const sameAnswers = async (listingReads: string[], skillEtagsSame: boolean) => {
      for (const [path, answer] of answers) {
        const { status, etag, text, reads: read } = await signatureReads(path);
        expect(status, path).toBe(200);
        if (skillEtagsSame || !skillPaths.includes(path)) expect(etag, path).toBe(answer.etag);
        // Compared by digest: a failure should not print 60 KB of index.
        expect(await sha256Hex(text), path).toBe(await sha256Hex(answer.text));
        if (!skillPaths.includes(path)) expect(read, path).toEqual(listingReads);
      }
    };
    // As stored by a Worker with signature shards but no generation signature object: the listings read the whole document.
    await bucket.delete([head, generationPayloadKey(many.id)]);
    await sameAnswers([head, signaturesKey(many.id)].sort(), true);
    // As stored by a Worker before signature shards: the whole document only.
    for (const object of (await bucket.list({ prefix: R2_SIGNATURE_SHARDS_PREFIX })).objects) await bucket.delete(object.key);
    await sameAnswers([head, signaturesKey(many.id)].sort(), false);
    for (const path of skillPaths) expect((await signatureReads(path)).reads, path).toEqual([itsShard, signaturesKey(many.id)]);
  });
});

describe("/v1/shelf", () => {
  it("shows the generation signature and the payload it signs, rebuildable from the skills' revisions", async () => {
    const shelf = (await (await get("/v1/shelf")).json()) as {
      signature: { key_id: string; signature: string; origin: string; payload: { generation: string; skills: [string, string][] } };
    };
    expect(shelf.signature.payload.generation).toBe(signedGen.id);
    const revisions = await Promise.all(recordsOf(signedGen).map(async (r) => [r.name, await contentRevision(r.files)] as [string, string]));
    const payload = generationPayload({ origin: ORIGIN, generation: signedGen.id, skills: revisions });
    expect(shelf.signature.payload).toEqual(JSON.parse(new TextDecoder().decode(payload)));
    expect(await verify(await importPublicKey(key.publicKey), fromBase64(shelf.signature.signature)!, payload)).toBe(true);
    const old = (await (await get(`/g/${unsigned.id}/v1/shelf`)).json()) as { signature: unknown };
    expect(old.signature).toBeNull();
  });
});

describe("/.well-known/skillshelf/keys.json", () => {
  it("serves the configured keys, and 404 when the shelf has no origin", async () => {
    const res = await get("/.well-known/skillshelf/keys.json");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ origin: ORIGIN, keys: [{ key_id: "k1", public_key: vector.public_key, status: "active" }] });
    expect((await get("/.well-known/skillshelf/keys.json", {}, env)).status).toBe(404);
  });

  it("a malformed key list: keys.json is a JSON 500 naming the problem, and everything else is served unsigned", async () => {
    const broken = await bindings({ SHELF_SIGNING_KEYS: '[{"key_id":"k1"}]' });
    const res = await get("/.well-known/skillshelf/keys.json", {}, broken);
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(((await res.json()) as { error: string }).error).toBe("signing_misconfigured");
    for (const path of ["/.well-known/agent-skills/index.json", "/v1/shelf", "/v1/skills/beta"]) {
      const answer = await get(path, {}, broken);
      expect(answer.status, path).toBe(200);
      expect(JSON.stringify(await answer.json()), path).not.toContain('"signature":{');
    }
  });

  it("a private shelf keeps its auth on the keys, the signature and /v1/shelf", async () => {
    const token = "sk_read_token_for_signing_tests_0123";
    const over = await bindings({ SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(token) });
    for (const path of ["/.well-known/skillshelf/keys.json", "/v1/skills/beta/signature", "/v1/shelf"]) {
      expect((await app.request(`https://shelf.test${path}`, {}, over)).status, path).toBe(401);
      expect((await app.request(`https://shelf.test${path}`, { headers: { Authorization: `Bearer ${token}` } }, over)).status, path).toBe(200);
    }
  });
});
