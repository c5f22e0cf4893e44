// Signatures through the admin API: storing a generation's signatures beside its manifest once
// they verify against the Worker's configured keys and the stored content, and the policy a
// pointer move meets when SHELF_REQUIRE_SIGNATURES is on. Keys come only from configuration.
// Storing one reads the manifest and its shards and writes one object per shard plus three, so
// its storage operations grow with the shard count (≤ 256), not the skill count.
import { canonicalJson } from "../../core/generation/canonical-json.ts";
import {
  GenerationManifestSchema,
  ShardReferencesSchema,
  ShardSchema,
  SkillRecordSchema,
  type GenerationManifest,
  type SkillEntry,
} from "../../core/generation/manifest.ts";
import { mapLimit } from "../../core/publish/map-limit.ts";
import { readJsonText } from "../../core/publish/json-text.ts";
import { contentRevision } from "../../core/signing/payloads.ts";
import {
  documentGenerationPayloadValue,
  generationSignatureOf,
  recordRevision,
  SignaturesDocumentSchema,
  signatureShards,
  verifySignaturesDocument,
  type SignaturesDocument,
} from "../../core/signing/signatures.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { generationPayloadKey, generationSignatureKey, r2Key, signatureShardKey, signaturesKey } from "../storage/keys.ts";
import { resetSignaturesCache } from "../storage/signatures.ts";
import { signingConfig, SigningConfigError, type SigningBindings, type SigningConfig } from "../shelf/signing.ts";
import type { Clock } from "../storage/index.ts";
import { adminError } from "./errors.ts";
import type { ShelfError } from "../errors.ts";
import { assertNoGcRunning } from "./gc-lease.ts";
import { readPointer } from "./pointer.ts";
import { HEAD_CONCURRENCY, NOTHING_CHANGED, type AdminStorage } from "./storage.ts";

const NOT_STORED = "R2 did not answer; nothing was stored. Retry shortly";

function invalid(message: string): ShelfError {
  return adminError("invalid_signatures", `${message}; nothing was stored`);
}

/** The configuration, or 503 admin_disabled naming the var that is wrong. */
function configOf(env: SigningBindings): SigningConfig {
  try {
    return signingConfig(env);
  } catch (error) {
    if (error instanceof SigningConfigError) throw adminError("admin_disabled", `the Worker's signing configuration is invalid: ${error.message}`);
    throw error;
  }
}

/** The SHA-256 of the stored signatures of `generation`, or null. */
export async function storedSignaturesSha(storage: AdminStorage, generation: string): Promise<string | null> {
  const stored = await storage.getJson(signaturesKey(generation));
  return stored ? sha256Hex(canonicalJson(stored.json)) : null;
}

async function readManifest(storage: AdminStorage, generation: string, failure: string): Promise<GenerationManifest | null> {
  const stored = await storage.getJson(r2Key("generation", generation), { failure });
  return stored ? GenerationManifestSchema.parse(stored.json) : null;
}

/** What the stored shards say of one skill: its record, and (from an entry with listing fields) its revision and version. */
interface ShardSkill {
  record: string;
  /** Null when the entry predates listing fields: the record has to be read for it. */
  known: { revision: string; version: string | null } | null;
}

/**
 * The revision of an entry's files, from the paths, digests and sizes it carries: the Worker
 * checked them against the record when the shard was stored, so they are the record's.
 */
function entryRevision(entry: SkillEntry): Promise<string> | null {
  const listing = entry.listing;
  if (!listing || listing.file_sha256.length !== entry.paths.length || listing.file_sizes.length !== entry.paths.length) return null;
  return contentRevision(entry.paths.map((path, i) => ({ path, size: listing.file_sizes[i]!, sha256: listing.file_sha256[i]! })));
}

/**
 * Every skill of a manifest (one read per shard): name → record SHA-256 and, where the shard
 * entry carries the file list, revision and version. Each shard is reduced as it is read, so a
 * 10,000-skill shelf's shards are never all in memory at once.
 */
async function skillsOf(storage: AdminStorage, manifest: GenerationManifest, failure: string): Promise<Map<string, ShardSkill>> {
  const shards = await mapLimit(manifest.shards, HEAD_CONCURRENCY, async (ref) => {
    const stored = await storage.getJson(r2Key("shard", ref.sha256), { failure });
    if (!stored) throw adminError("missing_references", `shard ${ref.sha256} of the generation is not stored`, { missing: [r2Key("shard", ref.sha256)] });
    const full = ShardSchema.safeParse(stored.json);
    if (full.success) {
      return Promise.all(
        full.data.skills.map(async (entry): Promise<[string, ShardSkill]> => {
          const revision = await entryRevision(entry);
          return [entry.name, { record: entry.record.sha256, known: revision === null ? null : { revision, version: entry.version } }];
        }),
      );
    }
    // An older shard schema: names and records only.
    const skills = ShardReferencesSchema.parse(stored.json).skills as { name?: unknown; record: { sha256: string } }[];
    return skills.map((s): [string, ShardSkill] => [String(s.name), { record: s.record.sha256, known: null }]);
  });
  return new Map(shards.flat());
}

/**
 * Stores the signatures of a stored generation after checking them: canonical JSON of the
 * schema, naming this generation and exactly its skills and records, each revision and version
 * what the record's files and frontmatter give (taken from the shard entries, which the Worker
 * checked against the records when it stored the shards; a record is read only for an entry
 * without its file list, as older builds wrote, and then only where the current generation's
 * signatures have not already vouched for the same record, revision and version), the
 * configured origin, and every signature verifying under a configured key that is not revoked
 * (with SHELF_REQUIRE_SIGNATURES, an active one). Replacing differing signatures is a re-signing.
 * Stored as the document cut by the manifest's shards (what a route that needs some skills'
 * signatures reads), the generation payload and the generation signature with the document's
 * digest (what /v1/shelf and the ETags read), then the whole document (what this API reads, and
 * what marks the upload complete), in that order.
 */
export async function putSignatures(
  storage: AdminStorage,
  clock: Clock,
  env: SigningBindings,
  generation: string,
  bytes: Uint8Array,
): Promise<{ stored: boolean }> {
  const config = configOf(env);
  const read = readJsonText(bytes, "signatures");
  if (!read.ok) throw adminError(read.code, `${read.message}; nothing was stored`);
  const json = read.value;
  const canonical = canonicalJson(json);
  if (canonical.length !== bytes.length || canonical.some((b, i) => b !== bytes[i])) {
    throw adminError("not_canonical", "the signatures are not canonical JSON (RFC 8785); nothing was stored");
  }
  const parsed = SignaturesDocumentSchema.safeParse(json);
  if (!parsed.success) throw invalid(`not a signatures document: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  const doc = parsed.data;
  if (doc.generation !== generation) throw invalid(`the signatures are for generation ${doc.generation}, not ${generation}`);
  if (config.origin === null) {
    throw invalid("this shelf has no SHELF_SIGNING_ORIGIN, so it serves no signatures; set it (and SHELF_SIGNING_KEYS) in the Worker's configuration first");
  }
  if (doc.origin !== config.origin) throw invalid(`the signatures bind origin ${doc.origin}; this shelf's origin is ${config.origin}`);

  const manifest = await readManifest(storage, generation, NOT_STORED);
  if (!manifest)
    throw adminError("missing_references", `generation ${generation} is not stored; upload it first`, { missing: [r2Key("generation", generation)] });
  const skills = await skillsOf(storage, manifest, NOT_STORED);
  const named = new Set(doc.skills.map((s) => s.name));
  const unsigned = [...skills.keys()].filter((name) => !named.has(name));
  const foreign = doc.skills.filter((s) => skills.get(s.name)?.record !== s.record);
  if (unsigned.length) throw invalid(`${unsigned.length} skill(s) of the generation have no signature (${unsigned.slice(0, 5).join(", ")})`);
  if (foreign.length)
    throw invalid(
      `${foreign
        .map((s) => s.name)
        .slice(0, 5)
        .join(", ")}: not a skill of the generation with that record`,
    );

  // Revisions and versions from the shard entries; from the stored records only for entries
  // without a file list, except where the current generation's signatures already checked the
  // same record, revision and version (a republish re-reads only what changed).
  const mismatch = (name: string, revision: string, version: string | null, s: SignaturesDocument["skills"][number]) => {
    if (revision !== s.revision) return `${name}: the revision is not that of the skill's files`;
    if (version !== s.version) return `${name}: the version is ${JSON.stringify(s.version)}, the skill's is ${JSON.stringify(version)}`;
    return null;
  };
  const wrong: string[] = [];
  const unknown: SignaturesDocument["skills"] = [];
  for (const s of doc.skills) {
    const known = skills.get(s.name)!.known;
    if (known === null) unknown.push(s);
    else {
      const problem = mismatch(s.name, known.revision, known.version, s);
      if (problem) wrong.push(problem);
    }
  }
  const vouched = new Set<string>();
  const current = unknown.length ? await readPointer(storage) : null;
  if (current && current.pointer.generation !== generation) {
    const prior = await storage.getJson(signaturesKey(current.pointer.generation), { failure: NOT_STORED });
    const priorDoc = prior ? SignaturesDocumentSchema.safeParse(prior.json) : null;
    for (const s of priorDoc?.success ? priorDoc.data.skills : []) vouched.add(`${s.record} ${s.revision} ${s.version}`);
  }
  const toCheck = unknown.filter((s) => !vouched.has(`${s.record} ${s.revision} ${s.version}`));
  wrong.push(
    ...(
      await mapLimit(toCheck, HEAD_CONCURRENCY, async (s) => {
        const stored = await storage.getJson(r2Key("record", s.record), { failure: NOT_STORED });
        if (!stored) return `${s.name}: its record is not stored`;
        const record = SkillRecordSchema.parse(stored.json);
        return mismatch(s.name, await recordRevision(record), record.version, s);
      })
    ).filter((w): w is string => w !== null),
  );
  if (wrong.length) throw invalid(wrong.slice(0, 5).join("; "));

  // Every signature must verify under a key this shelf lists and has not revoked, whether or not
  // signatures are required: a signed generation served with a key id keys.json does not name
  // would tell clients two different stories (unsigned generations stay accepted when not required).
  const failures = await verifySignaturesDocument(doc, config.ring, { activeOnly: config.require });
  const unlisted = [...new Set(failures.filter((f) => f.refusal === "unknown_key").map((f) => f.keyId))];
  if (unlisted.length) {
    const listed = config.keys.length ? config.keys.map((k) => `${k.key_id} (${k.status})`).join(", ") : "none";
    throw invalid(
      `the generation is signed by key ${unlisted.slice(0, 3).join(", ")}, which this shelf's SHELF_SIGNING_KEYS does not list (it lists ${listed}); ` +
        "sign with a listed active key, or add the key's public half to SHELF_SIGNING_KEYS (skillshelf keygen prints it) and deploy, then publish again",
    );
  }
  if (failures.length)
    throw invalid(
      failures
        .slice(0, 5)
        .map((f) => `${f.skill ?? "the generation signature"}: ${f.message}`)
        .join("; "),
    );

  const key = signaturesKey(generation);
  const existing = await storage.getJson(key, { failure: NOT_STORED });
  if (existing && (await sha256Hex(canonicalJson(existing.json))) === (await sha256Hex(bytes))) return { stored: false };
  await assertNoGcRunning(storage, clock);
  const asJson = { httpMetadata: { contentType: "application/json" } };
  // Readers take the generation signature's presence to mean the shards and payload are stored,
  // and this API takes the whole document's to mean everything is: each written after what it implies.
  await mapLimit([...signatureShards(doc, manifest.shard_count).values()], HEAD_CONCURRENCY, (shard) =>
    storage.put(signatureShardKey(generation, shard.shard), canonicalJson(shard), asJson, NOT_STORED),
  );
  await storage.put(generationPayloadKey(generation), canonicalJson(documentGenerationPayloadValue(doc)), asJson, NOT_STORED);
  await storage.put(generationSignatureKey(generation), canonicalJson(generationSignatureOf(doc, await sha256Hex(bytes))), asJson, NOT_STORED);
  await storage.put(key, bytes, asJson, NOT_STORED);
  resetSignaturesCache();
  return { stored: true };
}

/**
 * With SHELF_REQUIRE_SIGNATURES on, refuses (422 signatures_required) a pointer move to a
 * generation whose skills and generation signature are not all signed by an active configured
 * key for the configured origin. Reads the generation's signatures and checks every signature:
 * the keys may have changed since they were stored. A no-op when the var is off.
 */
export async function enforceSignaturePolicy(storage: AdminStorage, env: SigningBindings, generation: string): Promise<void> {
  const config = configOf(env);
  if (!config.require) return;
  const stored = await storage.getJson(signaturesKey(generation), { failure: NOTHING_CHANGED });
  if (!stored) {
    throw adminError(
      "signatures_required",
      `this shelf requires signatures and generation ${generation} has none; build with --sign-key and --origin ${config.origin} and publish again. The pointer did not move`,
    );
  }
  const parsed = SignaturesDocumentSchema.safeParse(stored.json);
  if (!parsed.success || parsed.data.generation !== generation)
    throw adminError("inconsistent", `${signaturesKey(generation)} is not a signatures document of this generation`);
  const doc: SignaturesDocument = parsed.data;
  const problems: string[] = [];
  if (doc.origin !== config.origin) problems.push(`the signatures bind origin ${doc.origin}, not ${config.origin}`);
  for (const f of await verifySignaturesDocument(doc, config.ring, { activeOnly: true }))
    problems.push(`${f.skill ?? "the generation signature"}: ${f.message}`);
  if (problems.length) {
    throw adminError(
      "signatures_required",
      `this shelf requires every skill and the generation to be signed by an active key; generation ${generation} is not: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}. The pointer did not move`,
    );
  }
}
