// verifyShelf (src/core/signing/verify-shelf.ts, what `skillshelf verify` runs) against the Worker in
// workerd: a signed shelf verifies; a flipped byte, a wrong origin, a revoked key, an unknown key id
// and an unsigned shelf are each refused, naming the skill, the file where one is at fault, and why.
import { reset } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import vector from "../../goldens/signing/vector.json";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { SkillRecordSchema } from "../../../src/core/generation/manifest.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { generateSigningKey, importSeed, toBase64, type SigningKey } from "../../../src/core/signing/ed25519.ts";
import type { PublicKeyEntry } from "../../../src/core/signing/keys.ts";
import { signGeneration } from "../../../src/core/signing/signatures.ts";
import { ShelfFetchError, verifyShelf } from "../../../src/core/signing/verify-shelf.ts";
import { fromHex } from "../../../src/core/skill/hash.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";

const ORIGIN = WORKER_URL;
let key: SigningKey;
let workerEnv: object;

async function publish(built: BuiltGeneration, signed: boolean) {
  const records = built.objects
    .filter((o) => o.kind === "record")
    .map((o) => ({ ...SkillRecordSchema.parse(JSON.parse(new TextDecoder().decode(o.bytes))), sha256: o.sha256 }));
  const signatures = signed ? canonicalJson(await signGeneration(built.id, records, key, { origin: ORIGIN, keyId: "k1" })) : null;
  await publishGeneration({ ...memorySource(built), signatures }, { url: WORKER_URL, token: TOKEN, fetch: workerFetch(workerEnv), sleep: async () => {} });
}

/** The Worker as fetch, optionally rewriting one answer's bytes on the way (a tampering proxy). */
function shelfFetch(tamper?: (url: string, bytes: Uint8Array) => Uint8Array): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const res = await workerFetch(workerEnv)(request);
    if (!tamper || !res.ok) return res;
    return new Response(tamper(request.url, new Uint8Array(await res.arrayBuffer())), { status: res.status, headers: res.headers });
  }) as typeof fetch;
}

const trusted = (status: PublicKeyEntry["status"] = "active", keyId = "k1", k = key): PublicKeyEntry[] => [
  { key_id: keyId, public_key: toBase64(k.publicKey), status },
];

beforeEach(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
  key = await importSeed(fromHex(vector.seed_hex));
  workerEnv = {
    ...(await adminEnv()),
    SHELF_SIGNING_ORIGIN: ORIGIN,
    SHELF_SIGNING_KEYS: JSON.stringify(trusted()),
  };
  await publish(
    await buildGeneration([await skillInput("alpha"), await skillInput("beta", { "references/naïve notes.md": "# Naïve\n", "scripts/run.py": "print(1)\n" })]),
    true,
  );
});

describe("verifyShelf", () => {
  it("verifies every skill and the generation against the trusted key", async () => {
    const report = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted(), fetch: shelfFetch() });
    expect(report.failures).toEqual([]);
    expect(report.verified).toEqual(["alpha", "beta"]);
    expect(report.generationSignature).toBe("verified");
  });

  it("a flipped byte names the skill and the file, and the signature no longer covers the files", async () => {
    const fetchImpl = shelfFetch((url, bytes) => {
      if (!url.endsWith("/scripts/run.py")) return bytes;
      const out = bytes.slice();
      out[0]! ^= 1;
      return out;
    });
    const report = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted(), fetch: fetchImpl });
    expect(report.verified).toEqual(["alpha"]);
    expect(report.failures).toContainEqual(
      expect.objectContaining({ skill: "beta", file: "scripts/run.py", reason: expect.stringContaining("are not the listed ones") }),
    );
    expect(report.failures).toContainEqual({ skill: "beta", file: null, reason: "the tree hash of the downloaded files is not the listed one" });
    expect(report.failures).toContainEqual(expect.objectContaining({ skill: "beta", reason: expect.stringContaining("the signature covers other content") }));
    expect(report.generationSignature).toBe("failed");
  });

  it("a wrong origin, a revoked key and an unknown key id verify nothing", async () => {
    const wrongOrigin = await verifyShelf({ url: WORKER_URL, origin: "https://elsewhere.test", keys: trusted(), fetch: shelfFetch() });
    expect(wrongOrigin.verified).toEqual([]);
    expect(wrongOrigin.failures[0]!.reason).toBe("the signature does not verify under key k1 for origin https://elsewhere.test over the downloaded files");
    const revoked = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted("revoked"), fetch: shelfFetch() });
    expect(revoked.failures.map((f) => f.reason)).toEqual([
      "key k1 is revoked and verifies nothing",
      "key k1 is revoked and verifies nothing",
      "generation signature: key k1 is revoked and verifies nothing",
    ]);
    const other = await generateSigningKey();
    const unknown = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted("active", "k2", other), fetch: shelfFetch() });
    expect(unknown.failures[0]!.reason).toBe("key k1 is not a trusted key");
    // The right id with another key's bytes: the signature itself fails.
    const impostor = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted("active", "k1", other), fetch: shelfFetch() });
    expect(impostor.failures[0]!.reason).toContain("does not verify under key k1");
  });

  it("an unsigned generation has nothing to verify", async () => {
    await publish(await buildGeneration([await skillInput("gamma")]), false);
    const report = await verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted(), fetch: shelfFetch() });
    expect(report.failures).toEqual([
      { skill: "gamma", file: null, reason: "no signature: the shelf published this skill unsigned" },
      { skill: null, file: null, reason: "no generation signature: the shelf published this generation unsigned" },
    ]);
  });

  it("a shelf it cannot read is an error, not a verdict", async () => {
    const fetchImpl = (async () => new Response("nope", { status: 503 })) as unknown as typeof fetch;
    await expect(verifyShelf({ url: WORKER_URL, origin: ORIGIN, keys: trusted(), fetch: fetchImpl })).rejects.toThrow(ShelfFetchError);
  });
});
