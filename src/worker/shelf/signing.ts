// The Worker's signing configuration and what it serves from it. The keys a shelf accepts live
// only in its configuration (SHELF_SIGNING_KEYS, per environment), never in an uploaded
// generation, so the holder of the publish token cannot supply both key and signature, and a
// rollback cannot un-revoke a key. See docs/signing.md.
import { Keyring, type KeysDocument, parseKeyList, type PublicKeyEntry } from "../../core/signing/keys.ts";
import { originProblem, SigningError } from "../../core/signing/payloads.ts";
import { shardOf } from "../../core/generation/manifest.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { documentGenerationPayloadValue, type GenerationSignature, servedSignature, type SkillSignature } from "../../core/signing/signatures.ts";
import type { StorageBindings } from "../storage/index.ts";
import {
  readGenerationPayload,
  readGenerationSignature,
  readSignatures,
  readSignatureShard,
  readSkillSignature,
  type StoredSignatures,
} from "../storage/signatures.ts";

/** Signature shards read at once by a listing (R2 reads in flight stay well under the platform's limit). */
const SIGNATURE_SHARD_READS_AT_ONCE = 8;

/** The vars signing reads (wrangler.toml [vars] per environment; public keys are not secrets). */
export interface SigningBindings {
  /** The shelf's stable identity signatures bind to, e.g. https://skills.example.com. */
  SHELF_SIGNING_ORIGIN?: string;
  /** JSON [{key_id, public_key (standard base64 of 32 raw bytes), status: active|retired|revoked}]. */
  SHELF_SIGNING_KEYS?: string;
  /** "on": the admin API moves the pointer only to generations signed throughout by an active key. */
  SHELF_REQUIRE_SIGNATURES?: string;
}

/** The configuration, parsed. */
export interface SigningConfig {
  origin: string | null;
  keys: PublicKeyEntry[];
  ring: Keyring;
  require: boolean;
}

/** A var that is set but malformed: the deployment is misconfigured (500 on reads, 503 on the admin API). */
export class SigningConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningConfigError";
  }
}

// Parsing and importing keys once per isolate per configuration text.
let cached: { text: string; config: SigningConfig } | null = null;

/**
 * The signing configuration of this environment. Throws SigningConfigError naming the var that is wrong.
 * @example const { ring, origin } = signingConfig(c.env)
 */
export function signingConfig(env: SigningBindings): SigningConfig {
  const originVar = env.SHELF_SIGNING_ORIGIN?.trim() ?? "";
  const text = `${originVar}\n${env.SHELF_SIGNING_KEYS ?? ""}\n${env.SHELF_REQUIRE_SIGNATURES ?? ""}`;
  if (cached?.text === text) return cached.config;
  const requireVar = (env.SHELF_REQUIRE_SIGNATURES ?? "off").trim();
  if (requireVar !== "on" && requireVar !== "off" && requireVar !== "")
    throw new SigningConfigError(`SHELF_REQUIRE_SIGNATURES must be "on" or "off", not ${JSON.stringify(requireVar)}`);
  const origin = originVar === "" ? null : originVar;
  if (origin !== null && originProblem(origin)) throw new SigningConfigError(`SHELF_SIGNING_ORIGIN: ${originProblem(origin)}`);
  let keys: PublicKeyEntry[];
  let ring: Keyring;
  try {
    keys = parseKeyList(env.SHELF_SIGNING_KEYS);
    ring = new Keyring(keys);
  } catch (error) {
    if (error instanceof SigningError) throw new SigningConfigError(`SHELF_SIGNING_KEYS: ${error.message}`);
    throw error;
  }
  const require = requireVar === "on";
  if (require && (origin === null || !keys.some((k) => k.status === "active"))) {
    throw new SigningConfigError("SHELF_REQUIRE_SIGNATURES is on, so SHELF_SIGNING_ORIGIN and an active key in SHELF_SIGNING_KEYS must be set");
  }
  const config = { origin, keys, ring, require };
  cached = { text, config };
  return config;
}

/** `/.well-known/skillshelf/keys.json`, or null when the shelf has no origin configured (it does not sign). */
export function keysDocument(env: SigningBindings): KeysDocument | null {
  const config = signingConfig(env);
  return config.origin === null ? null : { origin: config.origin, keys: config.keys };
}

/** The configured origin, or null when the shelf serves no signatures (none configured, or a malformed configuration, logged). */
function servingOrigin(env: SigningBindings): string | null {
  try {
    return signingConfig(env).origin;
  } catch (error) {
    if (!(error instanceof SigningConfigError)) throw error;
    console.error("signing configuration invalid; serving no signatures", error);
    return null;
  }
}

/**
 * Where a generation's signatures are read from: its generation signature object (with the
 * digest of the whole document, for ETags), or for a generation signed before those existed, the
 * whole document.
 */
export type GenerationSigning = { sha256: string } & ({ head: GenerationSignature; whole?: never } | { whole: StoredSignatures; head?: never });

/**
 * A generation's signing: null for one built before signing or published unsigned, and on a
 * shelf with no SHELF_SIGNING_ORIGIN, which serves none (and so reads no storage for them). A
 * malformed signing configuration serves none either (logged): the indexes and skills keep
 * answering, clients that require signatures refuse what they get, and keys.json says why.
 * One small read (the generation signature); the whole document only for a generation signed
 * before the Worker stored that.
 */
export async function generationSigning(env: StorageBindings & SigningBindings, generation: string): Promise<GenerationSigning | null> {
  if (servingOrigin(env) === null) return null;
  const head = await readGenerationSignature(env, generation);
  if (head !== null) return { sha256: head.signatures_sha256, head };
  const whole = await readSignatures(env, generation);
  return whole === null ? null : { sha256: whole.sha256, whole };
}

/** One skill's signature as served, with the SHA-256 of the stored document it came from (for ETags). */
export interface SkillSigning {
  /** Null when the generation is signed but carries no signature for the skill. */
  signature: SkillSignature | null;
  sha256: string;
}

/**
 * One skill's signature in a generation, read from its shard's signatures (one small read, never
 * the whole shelf's); null where generationSignatures would be null.
 * @example const signed = await skillSigning(env, generation.id, shardOf(name, generation.manifest.shard_count), name)
 */
export async function skillSigning(env: StorageBindings & SigningBindings, generation: string, shard: number, name: string): Promise<SkillSigning | null> {
  if (servingOrigin(env) === null) return null;
  const stored = await readSkillSignature(env, generation, shard, name);
  if (stored === null) return null;
  return { signature: stored.entry === null ? null : servedSignature(stored, stored.entry), sha256: stored.sha256 };
}

// Each whole document's entries by name, built once (the v0.2 index asks for every skill's).
const byName = new WeakMap<StoredSignatures, Map<string, SkillSignature>>();

function wholeSignatures(signed: StoredSignatures): Map<string, SkillSignature> {
  let map = byName.get(signed);
  if (!map) {
    map = new Map(signed.doc.skills.map((entry) => [entry.name, servedSignature(signed.doc, entry)]));
    byName.set(signed, map);
  }
  return map;
}

/**
 * The signatures of `names` (skills of generation `generation`, cut into `shardCount` shards), as
 * served: a listing reads the signature shards its skills span, through the isolate's cache,
 * never the whole document (unless the generation was signed before signature shards, or one is
 * missing). A name with no signature maps to nothing.
 * @example const signatures = await skillSignatures(env, generation.id, manifest.shard_count, signing, names)
 */
export async function skillSignatures(
  env: StorageBindings,
  generation: string,
  shardCount: number,
  signing: GenerationSigning | null,
  names: readonly string[],
): Promise<Map<string, SkillSignature>> {
  if (signing === null) return new Map();
  if (signing.whole) return wholeSignatures(signing.whole);
  const byShard = new Map<number, string[]>();
  for (const name of names) {
    const index = shardOf(name, shardCount);
    const list = byShard.get(index);
    if (list) list.push(name);
    else byShard.set(index, [name]);
  }
  const shards = await mapLimit([...byShard.keys()], SIGNATURE_SHARD_READS_AT_ONCE, (index) => readSignatureShard(env, generation, index));
  const out = new Map<string, SkillSignature>();
  for (const shard of shards) {
    // Written before the generation signature, so missing only if storage lost it: the whole document still answers.
    if (shard === null) {
      const whole = await readSignatures(env, generation);
      return whole === null ? out : wholeSignatures(whole);
    }
    for (const entry of shard.shard.skills) out.set(entry.name, servedSignature(shard.shard, entry));
  }
  return out;
}

/**
 * The generation signature and the payload it signs, as /v1/shelf shows them: the payload from
 * its own stored object (or the whole document, for a generation signed before it).
 */
export async function shelfSignature(env: StorageBindings, generation: string, signing: GenerationSigning | null) {
  if (signing === null) return null;
  if (signing.whole) {
    const doc = signing.whole.doc;
    return { ...doc.generation_signature, origin: doc.origin, payload: documentGenerationPayloadValue(doc) };
  }
  const payload = await readGenerationPayload(env, generation);
  return {
    ...signing.head.generation_signature,
    origin: signing.head.origin,
    payload: { contract: payload.contract, generation: payload.generation, origin: payload.origin, skills: payload.skills },
  };
}
