// The admin API contract, defined once: every route's method, path, request and response
// schemas, the size and batch limits, and the error codes, as plain data that the Worker binds
// to routes (src/worker/admin) and the client calls (client.ts). Free of hono on purpose.
import { z } from "zod";
import {
  AdvisoriesRecordSchema,
  GenerationManifestSchema,
  HistoryEntrySchema,
  PointerSchema,
  Sha256Schema,
  ShardSchema,
  SkillRecordSchema,
} from "../generation/manifest.ts";
import type { DocumentKind, ObjectKind } from "../generation/graph.ts";
import { SignaturesDocumentSchema } from "../signing/signatures.ts";
import { SHA256_HEX_RE } from "../skill/hash.ts";
import { AdvisoryEntrySchema } from "../trust/records.ts";

export type { DocumentKind, ObjectKind };

/** Where the admin API is mounted on the Worker. */
export const ADMIN_API_BASE = "/admin/v1";

/** Most hashes one presence query may ask about (one R2 head each). */
export const MAX_PRESENCE_BATCH = 500;
/** Largest blob accepted in one upload (a skill is at most 16 MiB; its archives slightly more). */
export const MAX_BLOB_BYTES = 32 * 1024 * 1024;
/** Largest JSON document accepted (records, shards, manifests). */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/** Largest JSON request body the admin API reads (presence batches, advisories, pointer moves). */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Deepest nesting of arrays and objects accepted in any JSON body or document (413 too_deep past
 * it). A record nests a skill's frontmatter verbatim a few levels down; nothing a build writes
 * comes near this, and the checks after it (canonical form, schemas) recurse, so it bounds them.
 */
export const MAX_JSON_DEPTH = 128;
/** gc's default number of most recent generations (from the history) kept besides the current one. */
export const DEFAULT_GC_KEEP = 5;
/** gc's default grace period: objects younger than this are never deleted. */
export const DEFAULT_GC_GRACE_SECONDS = 24 * 60 * 60;
/**
 * The grace period gc never goes below, whatever `grace_seconds` asks (0 included): an object
 * uploaded within the last hour may belong to a publish in flight that no stored document
 * references yet, so gc keeps it and everything it references. See docs/storage.md.
 */
export const MIN_GC_GRACE_SECONDS = 60 * 60;

/**
 * Every error code the admin API answers, with its one HTTP status. The body is always
 * `{error, message}` (plus `missing` or `current` where noted); clients decide on the code,
 * never on the wording: `pointer_moved` is the only refusal that "rerun to publish on top" answers.
 */
export const ADMIN_ERRORS = {
  /** A path parameter that is not what the route takes (a key that is not a SHA-256). */
  bad_request: 400,
  /** The body is not JSON. */
  malformed_json: 400,
  /** The body is not UTF-8 text, or its JSON holds a lone surrogate (no Unicode text does). */
  invalid_text: 400,
  /** The body ended before its end: the client disconnected mid-body (nothing was stored). */
  incomplete_body: 400,
  unauthorized: 401,
  not_found: 404,
  unknown_generation: 404,
  conflict: 409,
  /** A rollback to a generation the history remembers but gc has collected: republish it. */
  generation_collected: 410,
  /** A pointer move (publish or rollback) lost its compare-and-swap; the body names `current`. */
  pointer_moved: 409,
  too_large: 413,
  batch_too_large: 413,
  gc_too_large: 413,
  /** Arrays and objects nested deeper than MAX_JSON_DEPTH. */
  too_deep: 413,
  /** A well-formed JSON body that breaks the route's schema. */
  invalid_request: 422,
  digest_mismatch: 422,
  not_canonical: 422,
  invalid_document: 422,
  /**
   * A record or shard that describes a skill the build would refuse: a name that is not a skill
   * name, a path outside the skill, twins, duplicates, totals that lie (src/core/skill/tree-rules.ts).
   */
  invalid_skill: 422,
  /** The body lists up to 50 `missing` R2 keys. */
  missing_references: 422,
  invalid_advisories: 422,
  /** Signatures that do not verify, name another generation or skills, or sign other content (src/core/signing). */
  invalid_signatures: 422,
  /**
   * SHELF_REQUIRE_SIGNATURES is on and the generation's skills and generation signature are not
   * all signed by a key the Worker's configuration lists as active: the pointer did not move.
   */
  signatures_required: 422,
  admin_disabled: 503,
  storage_unavailable: 503,
  inconsistent: 503,
  gc_in_progress: 503,
  gc_lease_expiring: 503,
  gc_operation_limit: 503,
} as const;
/** One of the admin API's error codes. */
export type AdminErrorCode = keyof typeof ADMIN_ERRORS;
/** The HTTP status of an admin error. */
export type AdminErrorStatus = (typeof ADMIN_ERRORS)[AdminErrorCode];
/** The codes as a zod enum: `AdminErrorCodeSchema.enum.pointer_moved`. */
export const AdminErrorCodeSchema = z.enum(Object.keys(ADMIN_ERRORS) as [AdminErrorCode, ...AdminErrorCode[]]);

/** The error code of a pointer move that lost its compare-and-swap to another publisher. */
export const POINTER_MOVED = AdminErrorCodeSchema.enum.pointer_moved;

/** Every admin error body. */
export const AdminErrorBodySchema = z.looseObject({
  error: AdminErrorCodeSchema,
  message: z.string(),
  missing: z.array(z.string()).optional(),
  current: Sha256Schema.nullable().optional(),
});
export type AdminErrorBody = z.infer<typeof AdminErrorBodySchema>;

// Request fields carry the exact sentence the API answers when they are wrong; a failed request
// is answered with its first issue (requestRefusal).

function hexList(kind: ObjectKind) {
  const message = `"${kind}" must be a list of 64-character lowercase hex SHA-256 digests`;
  return z.array(z.string({ error: message }).regex(SHA256_HEX_RE, { error: message }), { error: message }).optional();
}

/** `POST /missing`: which of these objects are not stored. Unknown keys are ignored. */
export const PresenceQuerySchema = z.object({ blob: hexList("blob"), record: hexList("record"), shard: hexList("shard"), generation: hexList("generation") });
export type PresenceQuery = z.input<typeof PresenceQuerySchema>;

/** The missing objects of each kind. */
export const PresenceSchema = z.object({
  blob: z.array(Sha256Schema),
  record: z.array(Sha256Schema),
  shard: z.array(Sha256Schema),
  generation: z.array(Sha256Schema),
});
export type Presence = z.infer<typeof PresenceSchema>;

/** An upload's answer: 201 `{stored: true}`, or 200 `{stored: false}` when it was already stored. */
export const StoredSchema = z.object({ stored: z.boolean() });
export type Stored = z.infer<typeof StoredSchema>;

/** `POST /pointer`: make `generation` current if the current one is still `previous` (null: none yet). */
export const PointerMoveSchema = z.object({
  generation: z.string({ error: `"generation" is required.` }).regex(SHA256_HEX_RE, { error: "generation must be a 64-character lowercase hex id" }),
  previous: z
    .string({ error: `"previous" must be a generation id or null.` })
    .regex(SHA256_HEX_RE, { error: "previous must be a generation id or null" })
    .nullable()
    .optional(),
});
export type PointerMove = z.input<typeof PointerMoveSchema>;

/**
 * `POST /rollback`: like a pointer move, to a generation the history remembers. Its id is looked
 * up in the history first, so an id that is not there is 404 `unknown_generation` whatever it looks like.
 */
export const RollbackSchema = z.object({
  generation: z.string({ error: `"generation" is required.` }),
  previous: z.string({ error: `"previous" must be a generation id or null.` }).nullable().optional(),
});
export type Rollback = z.input<typeof RollbackSchema>;

/** The pointer after a move. */
export const PointerMovedSchema = z.object({ pointer: PointerSchema });
export type PointerMoved = z.infer<typeof PointerMovedSchema>;

/** `GET /pointer`: the pointer, or null when nothing has been published. */
export const CurrentPointerSchema = z.object({ pointer: PointerSchema.nullable() });
export type CurrentPointer = z.infer<typeof CurrentPointerSchema>;

/** `GET /history`: the current generation and the pointer's moves, newest first. */
export const HistorySchema = z.object({ current: Sha256Schema.nullable(), seq: z.int().nonnegative(), history: z.array(HistoryEntrySchema) });
export type History = z.infer<typeof HistorySchema>;

/**
 * `POST /advisories`: advisories to merge into the ones in force. The list itself must be a list
 * (400); each entry is checked like advisories.yaml and any bad entry refuses all (422).
 */
export const AdvisoriesMergeSchema = z.object({ advisories: z.array(AdvisoryEntrySchema, { error: `"advisories" must be a list` }) });
export type AdvisoriesMerge = z.input<typeof AdvisoriesMergeSchema>;

/** The advisories in force after a merge, and whether the merge changed them. */
export const AdvisoriesMergedSchema = z.object({ record: AdvisoriesRecordSchema, changed: z.boolean() });
export type AdvisoriesMerged = z.infer<typeof AdvisoriesMergedSchema>;

function wholeNumber(field: string) {
  const valueMessage = `${field} must be a whole number ≥ 0`;
  // A JSON number that is not a safe whole number (1.5, -1, 1e999) is a wrong value, anything else a wrong type.
  return z
    .int({ error: (issue) => (typeof issue.input === "number" ? valueMessage : `"${field}" must be a number.`) })
    .nonnegative({ error: valueMessage })
    .optional();
}

/** `POST /gc`: a dry run unless `apply` is true. */
export const GcRequestSchema = z.object({
  keep: wholeNumber("keep"),
  grace_seconds: wholeNumber("grace_seconds"),
  /** Only `true` deletes; anything else is a dry run. */
  apply: z.unknown().optional().meta({ type: "boolean", description: "true deletes; anything else (or nothing) is a dry run" }),
});
export type GcRequest = z.input<typeof GcRequestSchema>;

const byKind = <T extends z.ZodType>(value: T) => z.object({ generation: value, shard: value, record: value, blob: value });
/** `GET /signatures/{sha}`: the SHA-256 of the stored signatures of a generation, or null when it has none. */
export const StoredSignaturesSchema = z.object({ sha256: Sha256Schema.nullable() });
export type StoredSignatures = z.infer<typeof StoredSignaturesSchema>;

/** gc's answer, dry run or applied. */
export const GcReportSchema = z.object({
  applied: z.boolean(),
  keep: z.int().nonnegative(),
  grace_seconds: z.int().nonnegative(),
  kept_generations: z.array(Sha256Schema),
  deletable: byKind(z.int().nonnegative()),
  deletable_bytes: z.int().nonnegative(),
  deleted: byKind(z.int().nonnegative()),
  /** Up to 20 keys per kind, for the dry-run listing. */
  sample: byKind(z.array(Sha256Schema)),
});
export type GcReport = z.infer<typeof GcReportSchema>;

function shaParams(kind: ObjectKind) {
  return z.object({ sha: z.string().regex(SHA256_HEX_RE, { error: `${kind} key must be a 64-character lowercase hex SHA-256` }) });
}

/** A request body: JSON checked against `json`, or raw bytes (blobs, and documents, whose bytes are hashed). */
export type AdminBody =
  | { readonly type: "json"; readonly json: z.ZodType; readonly maxBytes: number }
  | { readonly type: "bytes"; readonly maxBytes: number; readonly document?: z.ZodType };

/** One admin route: data the Worker binds and the client calls. */
export interface AdminRoute {
  readonly method: "get" | "post" | "put";
  /** Below ADMIN_API_BASE; `{sha}` is a path parameter. */
  readonly path: string;
  readonly summary: string;
  readonly params?: z.ZodObject<{ sha: z.ZodString }>;
  readonly body?: AdminBody;
  /** The success body (200; an upload answers 201 when it stored something new). */
  readonly response: z.ZodType;
}

function upload(kind: DocumentKind, document: z.ZodType) {
  return {
    method: "put",
    path: `/${kind}s/{sha}`,
    summary: `Store a ${kind} (canonical JSON under its SHA-256) once everything it references is stored`,
    params: shaParams(kind),
    body: { type: "bytes", maxBytes: MAX_DOCUMENT_BYTES, document },
    response: StoredSchema,
  } as const satisfies AdminRoute;
}

/** Every admin route. Paths are below ADMIN_API_BASE. */
export const ADMIN_API = {
  missing: {
    method: "post",
    path: "/missing",
    summary: `Which of the given objects are not stored (at most ${MAX_PRESENCE_BATCH} per call)`,
    body: { type: "json", json: PresenceQuerySchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: z.object({ missing: PresenceSchema }),
  },
  putBlob: {
    method: "put",
    path: "/blobs/{sha}",
    summary: "Store a blob whose bytes hash to its key",
    params: shaParams("blob"),
    body: { type: "bytes", maxBytes: MAX_BLOB_BYTES },
    response: StoredSchema,
  },
  putRecord: upload("record", SkillRecordSchema),
  putShard: upload("shard", ShardSchema),
  putGeneration: upload("generation", GenerationManifestSchema),
  signatures: {
    method: "get",
    path: "/signatures/{sha}",
    summary: "The SHA-256 of a generation's stored signatures (null when it has none)",
    params: shaParams("generation"),
    response: StoredSignaturesSchema,
  },
  putSignatures: {
    method: "put",
    path: "/signatures/{sha}",
    summary: "Store (or replace with a verified re-signing) the signatures of a stored generation",
    params: shaParams("generation"),
    body: { type: "bytes", maxBytes: MAX_DOCUMENT_BYTES, document: SignaturesDocumentSchema },
    response: StoredSchema,
  },
  pointer: { method: "get", path: "/pointer", summary: "The pointer to the current generation", response: CurrentPointerSchema },
  movePointer: {
    method: "post",
    path: "/pointer",
    summary: "Make a stored generation current (compare-and-swap on the current one)",
    body: { type: "json", json: PointerMoveSchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: PointerMovedSchema,
  },
  rollback: {
    method: "post",
    path: "/rollback",
    summary: "Make a generation from the history current again (compare-and-swap)",
    body: { type: "json", json: RollbackSchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: PointerMovedSchema,
  },
  history: { method: "get", path: "/history", summary: "The pointer's moves, newest first", response: HistorySchema },
  advisories: { method: "get", path: "/advisories", summary: "The advisories in force", response: AdvisoriesRecordSchema },
  mergeAdvisories: {
    method: "post",
    path: "/advisories",
    summary: "Merge advisories into the ones in force (nothing in force is ever dropped)",
    body: { type: "json", json: AdvisoriesMergeSchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: AdvisoriesMergedSchema,
  },
  gc: {
    method: "post",
    path: "/gc",
    summary: "List (or, with apply, delete) stored objects no kept generation references",
    body: { type: "json", json: GcRequestSchema, maxBytes: MAX_JSON_BODY_BYTES },
    response: GcReportSchema,
  },
} as const satisfies Record<string, AdminRoute>;

/** The upload route of each kind. */
export const UPLOAD_ROUTES = {
  blob: ADMIN_API.putBlob,
  record: ADMIN_API.putRecord,
  shard: ADMIN_API.putShard,
  generation: ADMIN_API.putGeneration,
} as const satisfies Record<ObjectKind, AdminRoute>;

/** How the API answers a request that fails its route's schema (never a 409: see requestRefusal). */
export interface Refusal {
  code: "bad_request" | "invalid_request" | "invalid_advisories";
  message: string;
}

/**
 * The refusal for a request that fails the contract: its first issue, as 422 `invalid_request`
 * for a JSON body (well-formed, wrong shape) or 400 `bad_request` for a path parameter, except
 * advisories that are not valid entries, which are 422 `invalid_advisories` naming every bad
 * entry (as a list of advisories.yaml does).
 * @example requestRefusal(PointerMoveSchema.safeParse(body).error!.issues)
 */
export function requestRefusal(issues: readonly z.core.$ZodIssue[], target: "json" | "param" = "json"): Refusal {
  const entries = new Map<number, string[]>();
  for (const issue of issues) {
    const [field, index] = issue.path;
    if (field !== "advisories" || typeof index !== "number") continue;
    entries.set(index, [...(entries.get(index) ?? []), issue.message]);
  }
  if (entries.size) {
    const problems = [...entries].sort(([a], [b]) => a - b).map(([i, messages]) => `advisory ${i}: ${messages.join("; ")}`);
    return { code: "invalid_advisories", message: `invalid advisories; nothing changed: ${problems.join(" | ")}` };
  }
  return {
    code: target === "param" ? "bad_request" : "invalid_request",
    message: issues[0]?.message ?? "The request does not match the admin API; see docs/storage.md.",
  };
}

/**
 * The object an R2 key in a `missing_references` answer names (`blobs/<sha256>`, …), or null.
 * @example missingObject("records/" + sha) // { kind: "record", sha256: sha }
 */
export function missingObject(key: string): { kind: ObjectKind; sha256: string } | null {
  const m = /^(blob|record|shard|generation)s\/([0-9a-f]{64})$/.exec(key);
  return m ? { kind: m[1] as ObjectKind, sha256: m[2]! } : null;
}
