// Signatures through the admin API in workerd: a signed publish stores them beside the manifest
// and a republish sends nothing; uploads that do not verify (flipped byte, wrong origin, revoked
// or unknown key, another generation's skills, a revision of other files) are refused; with
// SHELF_REQUIRE_SIGNATURES a pointer move or rollback to a generation not signed throughout by an
// active configured key is refused with signatures_required; gc takes signatures (and their
// signature shards) with their generation.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import vector from "../../goldens/signing/vector.json";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { canonicalDocument, canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { type GenerationManifest, type Shard, SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { AdminClient, PublishError, publishGeneration } from "../../../src/core/publish/client.ts";
import { generateSigningKey, importSeed, toBase64, type SigningKey } from "../../../src/core/signing/ed25519.ts";
import { signatureShards, signGeneration, type SignaturesDocument } from "../../../src/core/signing/signatures.ts";
import { fromHex, sha256Hex } from "../../../src/core/skill/hash.ts";
import { generationPayload } from "../../../src/core/signing/payloads.ts";
import {
  generationPayloadKey,
  generationSignatureKey,
  r2Key,
  R2_SIGNATURE_SHARDS_PREFIX,
  signatureShardKey,
  signaturesKey,
} from "../../../src/worker/storage/keys.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, pastMinGrace, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const ORIGIN = "https://shelf.test";
const noSleep = async () => {};

async function shelf(version = "1") {
  return buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/café.md": `# Café ${version}\n` })]);
}

function recordsOf(built: BuiltGeneration) {
  return built.objects
    .filter((o) => o.kind === "record")
    .map((o) => ({ ...SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))), sha256: o.sha256 }));
}

async function sign(built: BuiltGeneration, key: SigningKey, keyId = "k1", origin = ORIGIN): Promise<SignaturesDocument> {
  return signGeneration(built.id, recordsOf(built), key, { origin, keyId });
}

type KeyStatus = "active" | "retired" | "revoked";
async function signingEnv(keys: { id: string; key: SigningKey; status: KeyStatus }[], require = false) {
  return {
    ...(await adminEnv()),
    SHELF_SIGNING_ORIGIN: ORIGIN,
    SHELF_SIGNING_KEYS: JSON.stringify(keys.map((k) => ({ key_id: k.id, public_key: toBase64(k.key.publicKey), status: k.status }))),
    SHELF_REQUIRE_SIGNATURES: require ? "on" : "off",
  };
}

function publish(built: BuiltGeneration, workerEnv: object, signatures?: SignaturesDocument) {
  const source = { ...memorySource(built), signatures: signatures ? canonicalJson(signatures) : null };
  return publishGeneration(source, { url: WORKER_URL, token: TOKEN, fetch: workerFetch(workerEnv), sleep: noSleep });
}

async function putSignatures(workerEnv: object, generation: string, doc: unknown) {
  const res = await workerFetch(workerEnv)(
    new Request(`${WORKER_URL}/admin/v1/signatures/${generation}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/octet-stream" },
      body: canonicalJson(doc),
    }),
  );
  return { status: res.status, body: (await res.json()) as { error?: string; message?: string; stored?: boolean } };
}

let key: SigningKey;
beforeEach(async () => {
  await reset();
  resetStorageMemory();
  key = await importSeed(fromHex(vector.seed_hex));
});

describe("a signed publish", () => {
  it("stores the signatures beside the manifest, and a republish uploads nothing", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }], true);
    const built = await shelf();
    const doc = await sign(built, key);
    const first = await publish(built, workerEnv, doc);
    expect(first.signaturesUploaded).toBe(true);
    const stored = await env.SHELF_BUCKET.get(signaturesKey(built.id));
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(canonicalJson(doc));
    // And cut by the manifest's shards, one signature shard per shard with a skill, for the per-skill routes.
    const shards = signatureShards(doc, built.manifest.shard_count);
    const listed = (await env.SHELF_BUCKET.list({ prefix: R2_SIGNATURE_SHARDS_PREFIX })).objects.map((o) => o.key);
    // And the generation signature with the document's digest, and the payload it signs, for /v1/shelf and the listings' ETags.
    expect(listed.sort()).toEqual(
      [...[...shards.keys()].map((i) => signatureShardKey(built.id, i)), generationSignatureKey(built.id), generationPayloadKey(built.id)].sort(),
    );
    for (const [index, shard] of shards) {
      const part = await env.SHELF_BUCKET.get(signatureShardKey(built.id, index));
      expect(new Uint8Array(await part!.arrayBuffer())).toEqual(canonicalJson(shard));
    }
    const head = JSON.parse(await (await env.SHELF_BUCKET.get(generationSignatureKey(built.id)))!.text()) as Record<string, unknown>;
    expect(head).toEqual({
      schema: "skillshelf.generation-signature/1",
      generation: built.id,
      origin: ORIGIN,
      generation_signature: doc.generation_signature,
      signatures_sha256: await sha256Hex(canonicalJson(doc)),
    });
    const payload = await (await env.SHELF_BUCKET.get(generationPayloadKey(built.id)))!.arrayBuffer();
    // The bytes the generation signature signs, as canonical JSON (both sort keys; names are ASCII here).
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(
      JSON.parse(
        new TextDecoder().decode(generationPayload({ origin: ORIGIN, generation: built.id, skills: doc.skills.map((e) => [e.name, e.revision] as const) })),
      ),
    );
    const again = await publish(built, workerEnv, await sign(built, key));
    expect(again).toMatchObject({ alreadyCurrent: true, signaturesUploaded: false, bytesUploaded: 0 });
    // The admin API names the stored document by its SHA-256, so the client asks before it sends.
    expect(await new AdminClient({ url: WORKER_URL, token: TOKEN, fetch: workerFetch(workerEnv) }).storedSignatures(built.id)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("an unchanged skill keeps its signature in the next generation", async () => {
    const v1 = await shelf("1");
    const v2 = await shelf("2");
    const [d1, d2] = [await sign(v1, key), await sign(v2, key)];
    expect(d2.skills.find((s) => s.name === "alpha")).toEqual(d1.skills.find((s) => s.name === "alpha"));
    expect(d2.skills.find((s) => s.name === "beta")!.signature).not.toBe(d1.skills.find((s) => s.name === "beta")!.signature);
  });

  it("a shelf with no origin configured refuses signatures, naming the var", async () => {
    const built = await shelf();
    await publish(built, await adminEnv());
    const res = await putSignatures(await adminEnv(), built.id, await sign(built, key));
    expect([res.status, res.body.error]).toEqual([422, "invalid_signatures"]);
    expect(res.body.message).toContain("this shelf has no SHELF_SIGNING_ORIGIN");
  });

  it("an unsigned shelf keeps working when signatures are not required", async () => {
    const result = await publish(await shelf(), await signingEnv([{ id: "k1", key, status: "active" }]));
    expect(result.signaturesUploaded).toBe(false);
    expect(result.uploaded.generation).toBe(1);
  });
});

describe("uploads that do not hold are refused", () => {
  async function stored(workerEnv: object) {
    const built = await shelf();
    await publish(built, workerEnv);
    return { built, doc: await sign(built, key) };
  }

  it("a flipped byte in a signature", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }]);
    const { built, doc } = await stored(workerEnv);
    const bytes = Uint8Array.from(atob(doc.skills[0]!.signature), (c) => c.charCodeAt(0));
    bytes[10]! ^= 1;
    doc.skills[0]!.signature = toBase64(bytes);
    const res = await putSignatures(workerEnv, built.id, doc);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("invalid_signatures");
    expect(res.body.message).toContain("alpha: the signature does not verify under key k1");
    expect(await env.SHELF_BUCKET.head(signaturesKey(built.id))).toBeNull();
  });

  it("a wrong origin, a revoked key, an unknown key on a requiring shelf, and a revision of other files", async () => {
    const other = await generateSigningKey();
    const workerEnv = await signingEnv([
      { id: "k1", key, status: "active" },
      { id: "old", key: other, status: "revoked" },
    ]);
    const { built } = await stored(workerEnv);
    const wrongOrigin = await putSignatures(workerEnv, built.id, await sign(built, key, "k1", "https://elsewhere.test"));
    expect(wrongOrigin.body.message).toContain("this shelf's origin is https://shelf.test");
    const revoked = await putSignatures(workerEnv, built.id, await sign(built, other, "old"));
    expect(revoked.body.message).toContain("key old is revoked and verifies nothing");
    const requiring = await signingEnv([{ id: "k1", key, status: "active" }], true);
    const unknown = await putSignatures(requiring, built.id, await sign(built, other, "stranger"));
    expect(unknown.body.message).toContain("signed by key stranger, which this shelf's SHELF_SIGNING_KEYS does not list (it lists k1 (active))");
    const doc = await sign(built, key);
    doc.skills[1]!.revision = doc.skills[0]!.revision;
    const lying = await putSignatures(workerEnv, built.id, doc);
    expect(lying.body.message).toContain("beta: the revision is not that of the skill's files");
    for (const res of [wrongOrigin, revoked, unknown, lying]) expect([res.status, res.body.error]).toEqual([422, "invalid_signatures"]);
  });

  it("a key the Worker does not list, even when signatures are not required: 422 naming the listed keys, and the pointer stays", async () => {
    const workerEnv = await signingEnv([
      { id: "k1", key, status: "active" },
      { id: "old", key: await generateSigningKey(), status: "revoked" },
    ]);
    const { built } = await stored(workerEnv);
    const stranger = await generateSigningKey();
    const res = await putSignatures(workerEnv, built.id, await sign(built, stranger, "stranger"));
    expect([res.status, res.body.error]).toEqual([422, "invalid_signatures"]);
    expect(res.body.message).toContain("signed by key stranger, which this shelf's SHELF_SIGNING_KEYS does not list (it lists k1 (active), old (revoked))");
    expect(res.body.message).toContain("sign with a listed active key, or add the key's public half to SHELF_SIGNING_KEYS (skillshelf keygen prints it)");
    expect(await env.SHELF_BUCKET.head(signaturesKey(built.id))).toBeNull();
    // Through the publish client: refused before the pointer moves.
    const next = await shelf("2");
    const before = await env.SHELF_BUCKET.get("pointer.json").then((o) => o?.text());
    const error = await publish(next, workerEnv, await sign(next, stranger, "stranger")).catch((e: unknown) => e);
    expect((error as PublishError).code).toBe("invalid_signatures");
    expect(await env.SHELF_BUCKET.get("pointer.json").then((o) => o?.text())).toBe(before);
  });

  it("signatures of another generation, or missing a skill", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }]);
    const { built, doc } = await stored(workerEnv);
    const other = await shelf("2");
    expect((await putSignatures(workerEnv, other.id, doc)).body.message).toContain(`the signatures are for generation ${built.id}`);
    const partial = await sign(built, key);
    partial.skills.pop();
    expect((await putSignatures(workerEnv, built.id, partial)).body.message).toMatch(/schema|generation signature|no signature/);
  });
});

describe("the storage operations of storing signatures", () => {
  /** PUT /signatures with R2's gets and puts recorded by key (the gets' prefixes are what matters). */
  async function countedPut(workerEnv: object, generation: string, doc: SignaturesDocument) {
    const gets: string[] = [];
    const puts: string[] = [];
    const bucket = env.SHELF_BUCKET;
    const counted = {
      ...workerEnv,
      SHELF_BUCKET: new Proxy(bucket, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            if (prop === "get") gets.push(String(args[0]));
            if (prop === "put") puts.push(String(args[0]));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
    };
    resetStorageMemory();
    const res = await putSignatures(counted, generation, doc);
    return { ...res, gets, puts };
  }

  it("revisions come from the shard entries: no record is read (one read per shard, not per skill); entries without a file list read their records", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }]);
    const built = await shelf();
    await publish(built, workerEnv);

    // The same generation as a build before `listing` wrote it (not current, and the current one
    // unsigned, so nothing vouches for its records): its shards' entries carry no file digests, so
    // the revisions are checked against the records, and still refused when wrong.
    const manifest = JSON.parse(new TextDecoder().decode(built.manifestBytes)) as GenerationManifest;
    for (const ref of manifest.shards) {
      const shard = (await (await env.SHELF_BUCKET.get(r2Key("shard", ref.sha256)))!.json()) as Shard;
      for (const entry of shard.skills) delete entry.listing;
      const doc = await canonicalDocument(shard);
      await env.SHELF_BUCKET.put(r2Key("shard", doc.sha256), doc.bytes);
      Object.assign(ref, { sha256: doc.sha256, size: doc.size });
    }
    const legacy = await canonicalDocument(manifest);
    await env.SHELF_BUCKET.put(r2Key("generation", legacy.sha256), legacy.bytes);
    const legacyDoc = await signGeneration(legacy.sha256, recordsOf(built), key, { origin: ORIGIN, keyId: "k1" });
    const lying = structuredClone(legacyDoc);
    lying.skills[1]!.revision = lying.skills[0]!.revision;
    expect((await countedPut(workerEnv, legacy.sha256, lying)).body.message).toContain("beta: the revision is not that of the skill's files");
    const old = await countedPut(workerEnv, legacy.sha256, legacyDoc);
    expect([old.status, old.body.stored]).toEqual([201, true]);
    expect(old.gets.filter((k) => k.startsWith("records/"))).toHaveLength(2);

    // A build with file lists in its entries: shards only.
    const lyingToo = await sign(built, key);
    lyingToo.skills[1]!.revision = lyingToo.skills[0]!.revision;
    const refused = await countedPut(workerEnv, built.id, lyingToo);
    expect(refused.body.message).toContain("beta: the revision is not that of the skill's files");
    expect(refused.puts).toEqual([]);
    const first = await countedPut(workerEnv, built.id, await sign(built, key));
    expect([first.status, first.body.stored]).toEqual([201, true]);
    expect(first.gets.filter((k) => k.startsWith("records/"))).toEqual([]);
    expect(first.gets.filter((k) => k.startsWith("shards/"))).toHaveLength(built.manifest.shards.length);
    // Every get: the manifest, the shards, the stored document (is it these bytes already?). At
    // 256 shards that is 258 gets, the gc lease's head and 259 puts: under 1,000 at any skill count.
    expect(first.gets.sort()).toEqual(
      [r2Key("generation", built.id), ...built.manifest.shards.map((ref) => r2Key("shard", ref.sha256)), signaturesKey(built.id)].sort(),
    );
    // One put per signature shard, then the payload, the generation signature, and the document last.
    expect(first.puts).toHaveLength(built.manifest.shards.length + 3);
    expect(first.puts.slice(-3)).toEqual([generationPayloadKey(built.id), generationSignatureKey(built.id), signaturesKey(built.id)]);
  });
});

describe("SHELF_REQUIRE_SIGNATURES", () => {
  it("refuses to make an unsigned generation current, naming what to do", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }], true);
    const error = await publish(await shelf(), workerEnv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).code).toBe("signatures_required");
    expect((error as PublishError).message).toContain("has none; build with --sign-key and --origin https://shelf.test");
    expect(await env.SHELF_BUCKET.head("pointer.json")).toBeNull();
  });

  it("a revoked key verifies nothing: a rollback to a generation it signed is refused", async () => {
    const newer = await generateSigningKey();
    const before = await signingEnv([{ id: "k1", key, status: "active" }], true);
    const v1 = await shelf("1");
    await publish(v1, before, await sign(v1, key));
    const after = await signingEnv(
      [
        { id: "k1", key, status: "revoked" },
        { id: "k2", key: newer, status: "active" },
      ],
      true,
    );
    const v2 = await shelf("2");
    await publish(v2, after, await sign(v2, newer, "k2"));
    const res = await workerFetch(after)(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }));
    const body = (await res.json()) as { error: string; message: string };
    expect([res.status, body.error]).toEqual([422, "signatures_required"]);
    expect(body.message).toContain("key k1 is revoked and verifies nothing");
    // Retired keys still verify old generations for clients, but a move under the policy needs an active one.
    const retired = await signingEnv(
      [
        { id: "k1", key, status: "retired" },
        { id: "k2", key: newer, status: "active" },
      ],
      true,
    );
    const again = await workerFetch(retired)(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }));
    expect(((await again.json()) as { message: string }).message).toContain("key k1 is retired, not active");
  });

  it("a misconfigured require is refused with the var's name", async () => {
    const workerEnv = { ...(await adminEnv()), SHELF_REQUIRE_SIGNATURES: "on" };
    const built = await shelf();
    const res = await putSignatures(workerEnv, built.id, await sign(built, key));
    expect([res.status, res.body.error]).toEqual([503, "admin_disabled"]);
    expect(res.body.message).toContain("SHELF_REQUIRE_SIGNATURES is on, so SHELF_SIGNING_ORIGIN and an active key");
  });
});

describe("gc", () => {
  it("deletes the signatures of the generations it collects and keeps the current one's", async () => {
    const workerEnv = await signingEnv([{ id: "k1", key, status: "active" }]);
    const v1 = await shelf("1");
    const v2 = await shelf("2");
    await publish(v1, workerEnv, await sign(v1, key));
    await publish(v2, workerEnv, await sign(v2, key));
    const res = await pastMinGrace(() => workerFetch(workerEnv)(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })));
    expect(res.status).toBe(200);
    expect(await env.SHELF_BUCKET.head(signaturesKey(v1.id))).toBeNull();
    expect(await env.SHELF_BUCKET.head(signaturesKey(v2.id))).not.toBeNull();
    // Their signature shards go with them.
    const shards = (await env.SHELF_BUCKET.list({ prefix: R2_SIGNATURE_SHARDS_PREFIX })).objects.map((o) => o.key);
    expect(shards.length).toBeGreaterThan(0);
    expect(shards.every((k) => k.startsWith(`${R2_SIGNATURE_SHARDS_PREFIX}${v2.id}/`))).toBe(true);
  });
});
