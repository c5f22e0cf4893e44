// The publish protocol, client side: ask the Worker what is missing from the top of the tree
// down (a present object is complete, so an unchanged shard prunes all its skills), upload the
// missing objects from the bottom up, merge the build's advisories, then move the pointer with a
// compare-and-swap on the generation we saw. The admin client has one method per route of the
// contract (contract.ts). Web APIs only (fetch), so the CLI and the workerd tests run the same
// code; rerunning after any failure simply continues, and an object gc collects mid-publish is
// uploaded again.
import type { z } from "zod";
import { walkGeneration, type ObjectKind } from "../generation/graph.ts";
import { mapLimit } from "./map-limit.ts";
import { sha256Hex } from "../skill/hash.ts";
import type { AdvisoriesRecord, GenerationManifest, Pointer } from "../generation/manifest.ts";
import {
  ADMIN_API,
  ADMIN_API_BASE,
  MAX_PRESENCE_BATCH,
  missingObject,
  POINTER_MOVED,
  UPLOAD_ROUTES,
  type AdminRoute,
  type AdvisoriesMerge,
  type AdvisoriesMerged,
  type GcReport,
  type GcRequest,
  type History,
  type PointerMove,
  type PointerMoved,
  type Presence,
  type PresenceQuery,
  type Rollback,
  type Stored,
} from "./contract.ts";

export type { GcReport, ObjectKind };
export { POINTER_MOVED };

/** Where the objects of a built generation are read from (a build folder, or memory in tests). */
export interface PublishSource {
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
  /** The build's signatures (canonical JSON), or null/absent for an unsigned build. */
  signatures?: Uint8Array | null;
  read(kind: "blob" | "record" | "shard", sha256: string): Promise<Uint8Array>;
}

/** Progress of the upload phase, for a progress line. */
export interface PublishProgress {
  phase: "checking" | "uploading" | "finishing";
  objectsDone: number;
  objectsTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** Options for {@link publishGeneration}. */
export interface PublishOptions {
  /** The Worker's base URL, e.g. https://shelf.example.com (the admin API is at /admin/v1). */
  url: string;
  token: string;
  /** Defaults to globalThis.fetch; tests pass the Worker's own fetch. */
  fetch?: (request: Request) => Promise<Response>;
  onProgress?: (progress: PublishProgress) => void;
  /** One line per retry or notable step. */
  onLog?: (line: string) => void;
  /** Waits between retries; tests pass a no-op. */
  sleep?: (ms: number) => Promise<void>;
  /** Attempts per request for transient failures (network, 429, 5xx). */
  attempts?: number;
  /** Parallel uploads. */
  concurrency?: number;
}

/** What a publish did. */
export interface PublishResult {
  generation: string;
  previous: string | null;
  alreadyCurrent: boolean;
  uploaded: { blob: number; record: number; shard: number; generation: number };
  bytesUploaded: number;
  requests: number;
  advisoriesChanged: boolean;
  /** True when the build's signatures were uploaded (false: unsigned, or the Worker had these exact ones). */
  signaturesUploaded: boolean;
  /** Objects uploaded again because gc collected them after the Worker said they were stored. */
  reuploaded: number;
}

/** A refusal or failure from the admin API, with the HTTP status and the server's message. */
export class PublishError extends Error {
  readonly status: number;
  /** The contract's error code (AdminErrorCode), or "unavailable" when retries ran out, "not_https" for https:// to a plain-http server, "error" when the body had none. */
  readonly code: string;
  /** What a `missing_references` refusal lists: the R2 keys of the objects that are not stored. */
  readonly missing: readonly string[];
  constructor(status: number, code: string, message: string, missing: readonly string[] = []) {
    super(message);
    this.name = "PublishError";
    this.status = status;
    this.code = code;
    this.missing = missing;
  }
}

const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

/** TLS errors that mean the port answered, but not in TLS: an https:// URL for a plain-http server. */
const NOT_TLS = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "EPROTO"]);

/**
 * What to say when a fetch of an https:// URL failed because the server speaks plain http (read
 * from the error's cause code, so no node: import), or undefined for any other failure; retrying
 * cannot help, so callers stop at once.
 * @example notHttpsMessage(error, "https://127.0.0.1:8787") // => "https://127.0.0.1:8787 does not speak https (…)…"
 */
export function notHttpsMessage(error: unknown, url: string): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code;
  if (typeof code !== "string" || !NOT_TLS.has(code)) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") return undefined;
  const plain = `http://${parsed.host}`;
  return `${parsed.origin} does not speak https (${code}): use ${plain} for a local shelf, or check the port`;
}

/** What calling `route` takes: its `{sha}` parameter, and its JSON body or raw bytes. */
export type RouteInput<R extends AdminRoute> = (R extends { params: z.ZodType } ? { sha: string } : unknown) &
  (R extends { body: { type: "json"; json: infer S extends z.ZodType } } ? { json: z.input<S> } : unknown) &
  (R extends { body: { type: "bytes" } } ? { bytes: Uint8Array } : unknown);

/** What `route` answers on success. */
export type RouteOutput<R extends AdminRoute> = z.output<R["response"]>;

/** The routes whose 409 may be a retry conflicting with its own earlier, lost, success. */
const POINTER_MOVES: ReadonlySet<AdminRoute> = new Set([ADMIN_API.movePointer, ADMIN_API.rollback]);

/**
 * The admin API client: one method per route of the contract, bearer token, retries of
 * transient failures with exponential backoff (or the server's Retry-After).
 * @example await new AdminClient({ url, token }).history()
 */
export class AdminClient {
  readonly #base: string;
  readonly #token: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #attempts: number;
  readonly #log: (line: string) => void;
  requests = 0;

  constructor(options: Pick<PublishOptions, "url" | "token" | "fetch" | "sleep" | "attempts" | "onLog">) {
    this.#base = `${options.url.replace(/\/+$/, "")}${ADMIN_API_BASE}`;
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#attempts = options.attempts ?? 5;
    this.#log = options.onLog ?? (() => {});
  }

  /**
   * Calls one route (retrying transient failures) and returns its status and parsed JSON body;
   * a refusal throws PublishError with the server's code and message.
   * @example await client.request(ADMIN_API.rollback, { json: { generation, previous } })
   */
  async request<R extends AdminRoute>(route: R, input: RouteInput<R>): Promise<{ status: number; body: RouteOutput<R> }> {
    const { sha, json, bytes } = input as { sha?: string; json?: unknown; bytes?: Uint8Array };
    const method = route.method.toUpperCase();
    const path = sha === undefined ? route.path : route.path.replace("{sha}", sha);
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers({ Authorization: `Bearer ${this.#token}` });
      let payload: Uint8Array<ArrayBuffer> | string | undefined;
      if (bytes !== undefined) {
        headers.set("Content-Type", "application/octet-stream");
        payload = bytes as Uint8Array<ArrayBuffer>;
      } else if (json !== undefined) {
        headers.set("Content-Type", "application/json");
        payload = JSON.stringify(json);
      }
      let response: Response | undefined;
      let failure: string;
      try {
        this.requests++;
        response = await this.#fetch(new Request(`${this.#base}${path}`, { method, headers, body: payload }));
        if (!TRANSIENT.has(response.status)) {
          const text = await response.text();
          let parsed: Record<string, unknown> = {};
          try {
            parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            parsed = { message: text.slice(0, 200) };
          }
          if (response.status === 409 && POINTER_MOVES.has(route)) {
            // A retried move whose first response was lost finds its own move done and conflicts;
            // what the caller wanted (this generation current) has happened, so report success.
            const target = (json as { generation?: unknown } | undefined)?.generation;
            const pointer = typeof target === "string" ? await this.pointer() : null;
            if (pointer && pointer.generation === target) return { status: 200, body: { pointer } as RouteOutput<R> };
          }
          if (response.status >= 400) {
            const missing = Array.isArray(parsed.missing) ? parsed.missing.filter((k): k is string => typeof k === "string") : [];
            throw new PublishError(
              response.status,
              String(parsed.error ?? "error"),
              `${method} ${path}: ${response.status} ${String(parsed.message ?? response.statusText)}`,
              missing,
            );
          }
          return { status: response.status, body: parsed as RouteOutput<R> };
        }
        failure = `${response.status}`;
        await response.body?.cancel();
      } catch (error) {
        if (error instanceof PublishError) throw error;
        const notHttps = notHttpsMessage(error, this.#base);
        if (notHttps !== undefined) throw new PublishError(0, "not_https", notHttps);
        failure = (error as Error).message;
      }
      if (attempt >= this.#attempts)
        throw new PublishError(
          response?.status ?? 0,
          "unavailable",
          `${method} ${path} failed ${attempt} times (last: ${failure}); rerun the command to continue`,
        );
      const retryAfter = Number(response?.headers.get("Retry-After"));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : Math.min(500 * 2 ** (attempt - 1), 8000);
      this.#log(`retrying ${method} ${path} in ${delay} ms (attempt ${attempt} of ${this.#attempts} failed: ${failure})`);
      await this.#sleep(delay);
    }
  }

  /** `POST /missing`: which of the given objects are not stored (at most MAX_PRESENCE_BATCH). */
  async presence(query: PresenceQuery): Promise<Presence> {
    return (await this.request(ADMIN_API.missing, { json: query })).body.missing;
  }

  /** The hashes among `shas` the Worker does not have, asked in batches. */
  async missing(kind: ObjectKind, shas: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const unique = [...new Set(shas)];
    for (let i = 0; i < unique.length; i += MAX_PRESENCE_BATCH) {
      const missing = await this.presence({ [kind]: unique.slice(i, i + MAX_PRESENCE_BATCH) });
      for (const sha of missing[kind] ?? []) out.add(sha);
    }
    return out;
  }

  /** `PUT /{kind}s/{sha}`: stores one object (the Worker verifies it first). */
  async upload(kind: ObjectKind, sha: string, bytes: Uint8Array): Promise<Stored> {
    return (await this.request(UPLOAD_ROUTES[kind], { sha, bytes })).body;
  }

  /** `GET /signatures/{sha}`: the SHA-256 of a generation's stored signatures, or null. */
  async storedSignatures(generation: string): Promise<string | null> {
    return (await this.request(ADMIN_API.signatures, { sha: generation })).body.sha256;
  }

  /** `PUT /signatures/{sha}`: stores a generation's signatures (the Worker verifies them first). */
  async uploadSignatures(generation: string, bytes: Uint8Array): Promise<Stored> {
    return (await this.request(ADMIN_API.putSignatures, { sha: generation, bytes })).body;
  }

  /** `GET /pointer`: the pointer, or null when nothing has been published. */
  async pointer(): Promise<Pointer | null> {
    return (await this.request(ADMIN_API.pointer, {})).body.pointer;
  }

  /** The current generation id, or null when nothing has been published. */
  async current(): Promise<string | null> {
    return (await this.pointer())?.generation ?? null;
  }

  /** `POST /pointer`: makes a stored generation current if `previous` still is (409 `pointer_moved` otherwise). */
  async movePointer(move: PointerMove): Promise<PointerMoved> {
    return (await this.request(ADMIN_API.movePointer, { json: move })).body;
  }

  /** `POST /rollback`: makes a generation from the history current again. */
  async rollback(move: Rollback): Promise<PointerMoved> {
    return (await this.request(ADMIN_API.rollback, { json: move })).body;
  }

  /** `GET /history`: the current generation and the pointer's moves, newest first. */
  async history(): Promise<History> {
    return (await this.request(ADMIN_API.history, {})).body;
  }

  /** `GET /advisories`: the advisories in force. */
  async advisories(): Promise<AdvisoriesRecord> {
    return (await this.request(ADMIN_API.advisories, {})).body;
  }

  /** `POST /advisories`: merges advisories (their stored form) into the ones in force. */
  async mergeAdvisories(advisories: AdvisoriesMerge["advisories"]): Promise<AdvisoriesMerged> {
    return (await this.request(ADMIN_API.mergeAdvisories, { json: { advisories } })).body;
  }

  /** `POST /gc`: a dry run unless `apply` is true. */
  async gc(request: GcRequest): Promise<GcReport> {
    return (await this.request(ADMIN_API.gc, { json: request })).body;
  }
}

/**
 * Publishes a built generation and makes it current. Uploads only what the Worker lacks;
 * an unchanged republish uploads nothing. Throws PublishError (409: another publish won).
 * @example await publishGeneration(source, { url: "http://127.0.0.1:8787", token })
 */
export async function publishGeneration(source: PublishSource, options: PublishOptions): Promise<PublishResult> {
  const client = new AdminClient(options);
  const progress = options.onProgress ?? (() => {});
  const decoder = new TextDecoder();
  const result: PublishResult = {
    generation: source.id,
    previous: null,
    alreadyCurrent: false,
    uploaded: { blob: 0, record: 0, shard: 0, generation: 0 },
    bytesUploaded: 0,
    requests: 0,
    advisoriesChanged: false,
    signaturesUploaded: false,
    reuploaded: 0,
  };
  // Signatures go beside a stored manifest, before the pointer moves (a shelf may require them),
  // and only when the Worker lacks these exact bytes: a republish of a signed shelf sends nothing.
  const syncSignatures = async () => {
    if (!source.signatures) return;
    if ((await client.storedSignatures(source.id)) === (await sha256Hex(source.signatures))) return;
    // One request the Worker answers only after checking every signature (seconds at 10,000 skills): say so first.
    options.onLog?.(`uploading the signatures (${Math.ceil(source.signatures.length / 1024)} KiB); the shelf checks each before storing them`);
    await client.uploadSignatures(source.id, source.signatures);
    result.signaturesUploaded = true;
  };
  const finish = () => ({ ...result, requests: client.requests });
  // Uploads again what gc collected under a publish in flight: objects of this build only (an
  // object the build does not hold is not ours to restore), children before parents.
  const repair = async (keys: readonly string[], depth = 0): Promise<boolean> => {
    const objects = keys.map(missingObject);
    if (!objects.length || depth > 3 || objects.some((o) => o === null)) return false;
    options.onLog?.(`re-uploading ${objects.length} object(s) that gc collected during this publish`);
    for (const o of objects as { kind: ObjectKind; sha256: string }[]) {
      let bytes: Uint8Array;
      try {
        bytes = await objectBytes(source, o.kind, o.sha256);
      } catch {
        return false;
      }
      await repairing(
        () => client.upload(o.kind, o.sha256, bytes),
        (more) => repair(more, depth + 1),
      );
      result.reuploaded++;
    }
    return true;
  };

  progress({ phase: "checking", objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0 });
  result.previous = await client.current();
  if (result.previous === source.id) {
    result.alreadyCurrent = true;
    await syncSignatures();
    return finish();
  }

  // Top-down: what is missing, pruned by what is present (present implies complete): the
  // missing shards of a missing manifest, the missing records of those, the missing blobs of those.
  const walk = await walkGeneration({
    roots: { generation: [source.id] },
    select: (kind, shas) => client.missing(kind, shas),
    read: async (kind, sha) => (kind === "generation" ? source.manifest : JSON.parse(decoder.decode(await source.read(kind, sha)))),
  });
  const uploads: { kind: ObjectKind; sha: string; size: number }[] = [];
  for (const kind of ["blob", "record", "shard"] as const)
    for (const sha of walk.selected[kind]) uploads.push({ kind, sha, size: walk.reached[kind].get(sha) ?? 0 });
  if (walk.selected.generation.length) uploads.push({ kind: "generation", sha: source.id, size: source.manifestBytes.length });

  // Bottom-up: blobs, then records, then shards, then the manifest; each level only after the
  // one below it is complete, because the Worker verifies children before storing a parent.
  const bytesTotal = uploads.reduce((sum, u) => sum + u.size, 0);
  let objectsDone = 0;
  const report = () => progress({ phase: "uploading", objectsDone, objectsTotal: uploads.length, bytesDone: result.bytesUploaded, bytesTotal });
  report();
  for (const kind of ["blob", "record", "shard", "generation"] as const) {
    const level = uploads.filter((u) => u.kind === kind);
    await mapLimit(level, options.concurrency ?? 8, async (u) => {
      const bytes = await objectBytes(source, kind, u.sha);
      await repairing(() => client.upload(kind, u.sha, bytes), repair);
      result.uploaded[kind]++;
      result.bytesUploaded += bytes.length;
      objectsDone++;
      report();
    });
  }

  progress({ phase: "finishing", objectsDone, objectsTotal: uploads.length, bytesDone: result.bytesUploaded, bytesTotal });
  await syncSignatures();
  // Advisories first: a new build's blocks are in force before anyone is served the build.
  if (source.manifest.shelf.advisories) {
    const list = JSON.parse(decoder.decode(await source.read("blob", source.manifest.shelf.advisories.sha256))) as { advisories: unknown[] };
    result.advisoriesChanged = (await client.mergeAdvisories(list.advisories)).changed;
  }
  await repairing(() => client.movePointer({ generation: source.id, previous: result.previous }), repair);
  return finish();
}

/** The bytes of one of the build's objects. */
async function objectBytes(source: PublishSource, kind: ObjectKind, sha256: string): Promise<Uint8Array> {
  if (kind !== "generation") return source.read(kind, sha256);
  if (sha256 !== source.id) throw new Error(`generation ${sha256} is not this build's`);
  return source.manifestBytes;
}

/** How many times one upload or pointer move is repaired and retried before its refusal stands. */
const REPAIR_ROUNDS = 2;

/**
 * Runs an upload or pointer move; when the Worker answers `missing_references` (gc collected,
 * mid-publish, an old object the presence query had reported stored), `repair` uploads what it
 * names and the call is retried, at most REPAIR_ROUNDS times. Any other refusal stands.
 */
async function repairing<T>(call: () => Promise<T>, repair: (missing: readonly string[]) => Promise<boolean>): Promise<T> {
  for (let round = 0; ; round++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PublishError) || error.code !== "missing_references" || round >= REPAIR_ROUNDS || !(await repair(error.missing))) throw error;
    }
  }
}
