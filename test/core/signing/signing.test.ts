// Signing in workerd (src/core/signing): revisions, payloads and signatures against goldens from
// agentskills-core 0.7.0 (scripts/refs/gen-signing-goldens.py, including the reference note's test
// vector and non-ASCII paths), key round trips, and each refusal with its message.
import { describe, expect, it } from "vitest";
import generations from "../../goldens/signing/generations.json";
import snapshots from "../../goldens/signing/snapshots.json";
import vector from "../../goldens/signing/vector.json";
import { compareCodePoints } from "../../../src/core/python-compat/py-text.ts";
import { asciiJson } from "../../../src/core/signing/ascii-json.ts";
import {
  exportPkcs8Pem,
  fromBase64,
  generateSigningKey,
  importPkcs8Pem,
  importPublicKey,
  importSeed,
  sign,
  toBase64,
  verify,
} from "../../../src/core/signing/ed25519.ts";
import { Keyring, parseKeyList } from "../../../src/core/signing/keys.ts";
import { contentRevision, generationPayload, SigningError, snapshotPayload } from "../../../src/core/signing/payloads.ts";
import { SignatureShardSchema, signatureShards, signGeneration, verifySignaturesDocument } from "../../../src/core/signing/signatures.ts";
import { shardOf } from "../../../src/core/generation/manifest.ts";
import { fromHex, sha256Hex } from "../../../src/core/skill/hash.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const testKey = () => importSeed(fromHex(vector.seed_hex));

async function filesOf(snapshot: (typeof snapshots.snapshots)[number]) {
  return Promise.all(
    snapshot.files.map(async (f) => {
      const bytes = fromBase64(f.data_base64)!;
      return { path: f.path, size: bytes.length, sha256: await sha256Hex(bytes) };
    }),
  );
}

describe("goldens from agentskills-core 0.7.0", () => {
  it("the reference test vector: the seed's public key and the note's signature", async () => {
    const key = await testKey();
    expect(toBase64(key.publicKey)).toBe(vector.public_key);
    const payload = new TextEncoder().encode(vector.payload);
    expect(toBase64(await sign(key, payload))).toBe(vector.signature);
    expect(await verify(await importPublicKey(key.publicKey), fromBase64(vector.signature)!, payload)).toBe(true);
  });

  it.each(snapshots.snapshots.map((s) => [`${s.skill_id} (${s.files.length} files)`, s] as const))(
    "%s: revision, payload and signature",
    async (_, snapshot) => {
      const files = await filesOf(snapshot);
      const revision = await contentRevision(files);
      expect(revision).toBe(snapshot.revision);
      // The version as agentskills-core reads it from the frontmatter is in the golden payload.
      const version = (JSON.parse(snapshot.payload) as { version: string | null }).version;
      const payload = snapshotPayload({ origin: snapshot.origin, skillId: snapshot.skill_id, version, revision });
      expect(text(payload)).toBe(snapshot.payload);
      expect(toBase64(await sign(await testKey(), payload))).toBe(snapshot.signature);
    },
  );

  it("the revision does not depend on the order files are given in", async () => {
    const files = await filesOf(snapshots.snapshots[2]!);
    expect(await contentRevision([...files].reverse())).toBe(snapshots.snapshots[2]!.revision);
  });

  it.each(generations.generations.map((g) => [g.skills.length, g] as const))("generation payload with %i skills", async (_, g) => {
    const payload = generationPayload({ origin: g.origin, generation: g.generation, skills: g.skills as [string, string][] });
    expect(text(payload)).toBe(g.payload);
    expect(toBase64(await sign(await testKey(), payload))).toBe(g.signature);
  });

  it("a version that is not a string is refused, as the reference refuses it", () => {
    expect(snapshots.non_string_versions[0]!.error).toBe("Signed content version must be a string");
    for (const version of [1, 1.5, true, {}, ["1.0"]]) {
      expect(() => snapshotPayload({ origin: "https://o.test", skillId: "s", version, revision: "sha256:x" })).toThrow(/version of s is not a string/);
    }
  });
});

describe("ASCII JSON", () => {
  it("escapes as Python's ensure_ascii does and orders keys by code point", () => {
    expect(asciiJson({ b: 'é\u007f\n"\\', a: [1, null, "😀"] }, { sortKeys: true })).toBe('{"a":[1,null,"\\ud83d\\ude00"],"b":"\\u00e9\\u007f\\n\\"\\\\"}');
    expect(compareCodePoints("\uff5e", "😀")).toBeLessThan(0); // UTF-16 order would say the opposite
    expect("\uff5e" < "😀").toBe(false);
    expect(() => asciiJson(1.5)).toThrow(/safe integers/);
  });
});

describe("keys", () => {
  it("round-trip through PKCS#8 PEM and sign what the public key verifies", async () => {
    const key = await generateSigningKey();
    const pem = await exportPkcs8Pem(key.privateKey);
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const again = await importPkcs8Pem(pem);
    expect(again.publicKey).toEqual(key.publicKey);
    const message = new TextEncoder().encode("hello");
    const signature = await sign(again, message);
    expect(await verify(await importPublicKey(key.publicKey), signature, message)).toBe(true);
    const flipped = signature.slice();
    flipped[0]! ^= 1;
    expect(await verify(await importPublicKey(key.publicKey), flipped, message)).toBe(false);
  });

  it("refuse what is not an Ed25519 PKCS#8 key", async () => {
    await expect(importPkcs8Pem("ssh-ed25519 AAAA")).rejects.toThrow(SigningError);
    await expect(importPkcs8Pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")).rejects.toThrow(/not an Ed25519 private key/);
    await expect(importPublicKey(new Uint8Array(31))).rejects.toThrow(/32 bytes/);
  });

  it("base64 is strict: padding, alphabet and canonical trailing bits", () => {
    expect(fromBase64("AA==")).toEqual(new Uint8Array([0]));
    expect(fromBase64("AA")).toBeNull();
    expect(fromBase64("AB==")).toBeNull();
    expect(fromBase64("A-_=")).toBeNull();
  });

  it("key lists name what is wrong", () => {
    expect(parseKeyList(undefined)).toEqual([]);
    expect(() => parseKeyList("{")).toThrow(/not JSON/);
    expect(() => parseKeyList('[{"key_id":"k","public_key":"AA==","status":"active"}]')).toThrow(/0\.public_key/);
    const k = { key_id: "k", public_key: vector.public_key, status: "active" };
    expect(() => parseKeyList(JSON.stringify([k, k]))).toThrow(/once/);
    expect(() => parseKeyList(JSON.stringify([{ ...k, status: "expired" }]))).toThrow(/status/);
  });
});

describe("a signed generation", () => {
  const records = [
    { name: "beta", sha256: "b".repeat(64), version: "1.0.0", files: [{ path: "SKILL.md", size: 3, sha256: "1".repeat(64) }] },
    { name: "alpha", sha256: "a".repeat(64), version: null, files: [{ path: "SKILL.md", size: 4, sha256: "2".repeat(64) }] },
  ];
  const ringOf = (status: string, keyId = "k1") => new Keyring(parseKeyList(JSON.stringify([{ key_id: keyId, public_key: vector.public_key, status }])));

  it("verifies under its active or retired key and is deterministic", async () => {
    const doc = await signGeneration("c".repeat(64), records, await testKey(), { origin: "https://o.test", keyId: "k1" });
    expect(doc.skills.map((s) => s.name)).toEqual(["alpha", "beta"]);
    expect(await verifySignaturesDocument(doc, ringOf("active"))).toEqual([]);
    expect(await verifySignaturesDocument(doc, ringOf("retired"))).toEqual([]);
    expect(await signGeneration("c".repeat(64), [...records].reverse(), await testKey(), { origin: "https://o.test", keyId: "k1" })).toEqual(doc);
  });

  it("refuses a revoked key, a retired one where active is required, an unknown key id, a flipped byte and a wrong origin", async () => {
    const doc = await signGeneration("c".repeat(64), records, await testKey(), { origin: "https://o.test", keyId: "k1" });
    const revoked = await verifySignaturesDocument(doc, ringOf("revoked"));
    expect(revoked.map((f) => [f.skill, f.refusal])).toEqual([
      ["alpha", "revoked_key"],
      ["beta", "revoked_key"],
      [null, "revoked_key"],
    ]);
    expect(revoked[0]!.message).toBe("key k1 is revoked and verifies nothing");
    expect((await verifySignaturesDocument(doc, ringOf("retired"), { activeOnly: true }))[0]!.refusal).toBe("retired_key");
    expect((await verifySignaturesDocument(doc, ringOf("active", "other")))[0]!.message).toBe("key k1 is not a trusted key");

    const flipped = structuredClone(doc);
    flipped.skills[1]!.revision = `sha256:${"0".repeat(64)}`;
    const failures = await verifySignaturesDocument(flipped, ringOf("active"));
    expect(failures.map((f) => [f.skill, f.refusal])).toEqual([
      ["beta", "bad_signature"],
      [null, "bad_signature"],
    ]);
    const moved = { ...doc, origin: "https://elsewhere.test" };
    expect((await verifySignaturesDocument(moved, ringOf("active"))).length).toBe(3);
  });

  it("refuses a bad origin and a bad key id when signing", async () => {
    const key = await testKey();
    await expect(signGeneration("c".repeat(64), records, key, { origin: "", keyId: "k1" })).rejects.toThrow(/origin must be a non-empty string/);
    await expect(signGeneration("c".repeat(64), records, key, { origin: "https://o\n", keyId: "k1" })).rejects.toThrow(/control characters/);
    await expect(signGeneration("c".repeat(64), records, key, { origin: "https://o", keyId: "has space" })).rejects.toThrow(/key id/);
  });
});

describe("signature shards", () => {
  const names = Array.from({ length: 40 }, (_, i) => `skill-${i}`);
  const records = names.map((name, i) => ({
    name,
    sha256: i.toString(16).padStart(64, "0"),
    version: null,
    files: [{ path: "SKILL.md", size: 1, sha256: "1".repeat(64) }],
  }));

  it("cut a document by the manifest's shards: each skill's entry in the shard shardOf names, none lost or repeated", async () => {
    const doc = await signGeneration("c".repeat(64), records, await testKey(), { origin: "https://o.test", keyId: "k1" });
    const shards = signatureShards(doc, 8);
    expect(shards.size).toBeGreaterThan(1);
    for (const [index, shard] of shards) {
      expect(SignatureShardSchema.parse(shard)).toEqual(shard);
      expect(shard).toMatchObject({ generation: doc.generation, origin: doc.origin, shard: index });
      for (const entry of shard.skills) expect(shardOf(entry.name, 8), entry.name).toBe(index);
    }
    const all = [...shards.values()].flatMap((s) => s.skills);
    expect([...all].sort((a, b) => compareCodePoints(a.name, b.name))).toEqual(doc.skills);
    expect([...signatureShards(doc, 1).values()].map((s) => s.skills)).toEqual([doc.skills]);
  });
});
