// A generation's signatures: one document stored beside its manifest (signatures/<generation id>),
// never inside what it signs, and the Worker's split of it by the manifest's shards (one
// signature shard per records shard, so a route that needs one skill's signature reads one),
// with the generation signature and the payload it signs in objects of their own. Ed25519 is
// deterministic, so an unchanged skill gets the same signature in every generation and
// re-signing an unchanged shelf gives the same bytes (a republish uploads nothing new).
import { z } from "zod";
import { Sha256Schema, shardOf } from "../generation/manifest.ts";
import { compareCodePoints } from "../python-compat/py-text.ts";
import { sign, toBase64, type SigningKey } from "./ed25519.ts";
import { base64Of, KeyIdSchema, type Keyring, refusalMessage, type SignatureRefusal } from "./keys.ts";
import {
  contentRevision,
  GENERATION_CONTRACT,
  type RevisionFile,
  generationPayload,
  generationPayloadValue,
  originProblem,
  SigningError,
  snapshotPayload,
} from "./payloads.ts";

export const SIGNATURES_SCHEMA = "skillshelf.signatures/1";

const RevisionSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a revision is "sha256:" and 64 lowercase hex characters');
const SignatureSchema = base64Of(64, "signature");
const OriginSchema = z
  .string()
  .refine((o) => originProblem(o) === undefined, "origin must be a non-empty string of at most 512 characters without control characters");

/** One skill's detached signature as stored: what it signs (revision, version) and the record it was checked against. */
export const SkillSignatureEntrySchema = z.strictObject({
  name: z.string().min(1),
  /** The SHA-256 of the skill record whose files give `revision` (lets the Worker skip re-checking an unchanged skill). */
  record: Sha256Schema,
  revision: RevisionSchema,
  version: z.string().nullable(),
  key_id: KeyIdSchema,
  signature: SignatureSchema,
});
export type SkillSignatureEntry = z.infer<typeof SkillSignatureEntrySchema>;

/** The generation signature itself: the key and the signature over the generation payload. */
const GenerationSignatureValueSchema = z.strictObject({ key_id: KeyIdSchema, signature: SignatureSchema });

/** The signatures document of one generation. */
export const SignaturesDocumentSchema = z.strictObject({
  schema: z.literal(SIGNATURES_SCHEMA),
  generation: Sha256Schema,
  origin: OriginSchema,
  generation_signature: GenerationSignatureValueSchema,
  /** Every skill of the generation, names in code-point order. */
  skills: z.array(SkillSignatureEntrySchema),
});
export type SignaturesDocument = z.infer<typeof SignaturesDocumentSchema>;

export const SIGNATURE_SHARD_SCHEMA = "skillshelf.signature-shard/1";

/**
 * The signatures of one shard's skills (those `shardOf(name, shard_count)` puts in shard `shard`),
 * cut by the Worker from a verified signatures document: what a route that needs one skill's
 * signature reads. Never uploaded; the generation signature has its own object (GenerationSignature).
 */
export const SignatureShardSchema = z.strictObject({
  schema: z.literal(SIGNATURE_SHARD_SCHEMA),
  generation: Sha256Schema,
  origin: OriginSchema,
  shard: z.number().int().nonnegative(),
  /** The shard's skills, names in code-point order (as in the whole document). */
  skills: z.array(SkillSignatureEntrySchema),
});
export type SignatureShard = z.infer<typeof SignatureShardSchema>;

export const GENERATION_SIGNATURE_SCHEMA = "skillshelf.generation-signature/1";

/**
 * The generation signature of a signatures document with the SHA-256 of the document's stored
 * bytes (what ETags name), stored by the Worker beside the signature shards: what a route that
 * shows the generation's signature, or names the signatures in an ETag, reads instead of the
 * whole document. Never uploaded.
 */
export const GenerationSignatureSchema = z.strictObject({
  schema: z.literal(GENERATION_SIGNATURE_SCHEMA),
  generation: Sha256Schema,
  origin: OriginSchema,
  generation_signature: GenerationSignatureValueSchema,
  /** The SHA-256 of the whole signatures document's canonical bytes. */
  signatures_sha256: Sha256Schema,
});
export type GenerationSignature = z.infer<typeof GenerationSignatureSchema>;

/**
 * The skillshelf-generation-v1 payload a document's generation signature signs, as JSON (what
 * /v1/shelf shows beside the signature): stored by the Worker so /v1/shelf need not read the
 * whole document. Its skills are every skill's [name, revision], names in code-point order.
 */
export const GenerationPayloadSchema = z.strictObject({
  contract: z.literal(GENERATION_CONTRACT),
  generation: Sha256Schema,
  origin: OriginSchema,
  skills: z.array(z.tuple([z.string().min(1), RevisionSchema])),
});
export type GenerationPayload = z.infer<typeof GenerationPayloadSchema>;

/** The generation signature of a verified document, with the SHA-256 of its stored bytes. */
export function generationSignatureOf(doc: SignaturesDocument, signaturesSha256: string): GenerationSignature {
  return {
    schema: GENERATION_SIGNATURE_SCHEMA,
    generation: doc.generation,
    origin: doc.origin,
    generation_signature: doc.generation_signature,
    signatures_sha256: signaturesSha256,
  };
}

/**
 * A signatures document cut by the manifest's shards: one signature shard per shard that holds a
 * skill, by shard index. Pure; the entries keep the document's order.
 * @example signatureShards(doc, manifest.shard_count).get(shardOf("code-review", manifest.shard_count))
 */
export function signatureShards(doc: SignaturesDocument, shardCount: number): Map<number, SignatureShard> {
  const out = new Map<number, SignatureShard>();
  for (const entry of doc.skills) {
    const index = shardOf(entry.name, shardCount);
    let shard = out.get(index);
    if (!shard) {
      shard = { schema: SIGNATURE_SHARD_SCHEMA, generation: doc.generation, origin: doc.origin, shard: index, skills: [] };
      out.set(index, shard);
    }
    shard.skills.push(entry);
  }
  return out;
}

/** A skill signature as served (`/v1/skills/{name}/signature`): agentskills-core's DetachedSignature plus what it covers. */
export const SkillSignatureSchema = z
  .strictObject({ key_id: KeyIdSchema, signature: SignatureSchema, origin: OriginSchema, revision: RevisionSchema, version: z.string().nullable() })
  .meta({ id: "SkillSignature" });
export type SkillSignature = z.infer<typeof SkillSignatureSchema>;

/** The served form of one stored entry. */
export function servedSignature(doc: Pick<SignaturesDocument, "origin">, entry: SkillSignatureEntry): SkillSignature {
  return { key_id: entry.key_id, signature: entry.signature, origin: doc.origin, revision: entry.revision, version: entry.version };
}

/** The revision of a stored skill record (its files' paths, sizes and digests). */
export function recordRevision(record: { files: readonly RevisionFile[] }): Promise<string> {
  return contentRevision(record.files);
}

/** The snapshot payload a stored entry claims to sign. Throws SigningError for a bad origin or version. */
export function entryPayload(origin: string, entry: Pick<SkillSignatureEntry, "name" | "version" | "revision">): Uint8Array {
  return snapshotPayload({ origin, skillId: entry.name, version: entry.version, revision: entry.revision });
}

/** The generation payload a document claims to sign. */
export function documentGenerationPayload(doc: Pick<SignaturesDocument, "origin" | "generation" | "skills">): Uint8Array {
  return generationPayload({ origin: doc.origin, generation: doc.generation, skills: doc.skills.map((s) => [s.name, s.revision] as const) });
}

/** The generation payload as JSON (what /v1/shelf shows beside the signature). */
export function documentGenerationPayloadValue(doc: Pick<SignaturesDocument, "origin" | "generation" | "skills">) {
  return generationPayloadValue({ origin: doc.origin, generation: doc.generation, skills: doc.skills.map((s) => [s.name, s.revision] as const) });
}

/** What signing needs from each record. */
export interface SignableRecord {
  name: string;
  files: readonly RevisionFile[];
  version: string | null;
  /** The record's SHA-256. */
  sha256: string;
}

/**
 * Signs every skill of a generation and the generation itself.
 * @example const doc = await signGeneration(built.id, records, key, { origin: "https://shelf.example", keyId: "2026-01" })
 */
export async function signGeneration(
  generation: string,
  records: readonly SignableRecord[],
  key: SigningKey,
  options: { origin: string; keyId: string },
): Promise<SignaturesDocument> {
  const keyId = KeyIdSchema.safeParse(options.keyId);
  if (!keyId.success) throw new SigningError(`key id ${JSON.stringify(options.keyId)}: ${keyId.error.issues[0]!.message}`);
  const skills: SkillSignatureEntry[] = [];
  for (const record of [...records].sort((a, b) => compareCodePoints(a.name, b.name))) {
    const revision = await recordRevision(record);
    const payload = snapshotPayload({ origin: options.origin, skillId: record.name, version: record.version, revision });
    skills.push({
      name: record.name,
      record: record.sha256,
      revision,
      version: record.version,
      key_id: options.keyId,
      signature: toBase64(await sign(key, payload)),
    });
  }
  const doc = { schema: SIGNATURES_SCHEMA, generation, origin: options.origin, skills } as const;
  const generationSignature = toBase64(await sign(key, documentGenerationPayload(doc)));
  return SignaturesDocumentSchema.parse({ ...doc, generation_signature: { key_id: options.keyId, signature: generationSignature } });
}

/** One signature that did not hold: the skill (null for the generation's), the key it names, and why. */
export interface SignatureFailure {
  skill: string | null;
  keyId: string;
  refusal: SignatureRefusal | "invalid_payload";
  message: string;
}

/**
 * Checks every signature of a document against a keyring; [] when all hold. Revoked keys verify
 * nothing; with `activeOnly` retired keys do not count either (the edge's policy for a pointer move).
 */
export async function verifySignaturesDocument(doc: SignaturesDocument, ring: Keyring, options: { activeOnly?: boolean } = {}): Promise<SignatureFailure[]> {
  const failures: SignatureFailure[] = [];
  const check = async (skill: string | null, keyId: string, signature: string, payload: () => Uint8Array) => {
    let bytes: Uint8Array;
    try {
      bytes = payload();
    } catch (error) {
      if (!(error instanceof SigningError)) throw error;
      failures.push({ skill, keyId, refusal: "invalid_payload", message: error.message });
      return;
    }
    const refusal = await ring.check(keyId, signature, bytes, options);
    if (refusal) failures.push({ skill, keyId, refusal, message: refusalMessage(refusal, keyId) });
  };
  for (const entry of doc.skills) await check(entry.name, entry.key_id, entry.signature, () => entryPayload(doc.origin, entry));
  await check(null, doc.generation_signature.key_id, doc.generation_signature.signature, () => documentGenerationPayload(doc));
  return failures;
}
