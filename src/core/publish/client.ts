// The publish protocol, client side: ask the Worker what is missing from the top of the tree
// down (a present object is complete, so an unchanged shard prunes all its skills), upload the
// missing objects from the bottom up, merge the build's advisories, then move the pointer with a
// compare-and-swap on the generation we saw. Web APIs only (fetch), so the CLI and the workerd
// tests run the same code; rerunning after any failure simply continues.
import { ShardSchema, SkillRecordSchema, type GenerationManifest } from "../generation/manifest.ts";

/** The kinds of content-addressed object a generation stores, each under its own prefix. */
export type ObjectKind = "blob" | "record" | "shard" | "generation";

/** The admin API's answer to a gc pass (dry run or applied), shared by the Worker and the CLI. */
export interface GcReport {
  applied: boolean;
  keep: number;
  grace_seconds: number;
  kept_generations: string[];
  deletable: Record<ObjectKind, number>;
  deletable_bytes: number;
  deleted: Record<ObjectKind, number>;
  /** Up to 20 keys per kind, for the dry-run listing. */
  sample: Record<ObjectKind, string[]>;
}

/**
 * The admin API's error code for a pointer move (publish or rollback) whose compare-and-swap lost
 * to another publisher: the only refusal that "rerun to publish on top of it" answers.
 */
export const POINTER_MOVED = "pointer_moved";

/** Where the objects of a built generation are read from (a build folder, or memory in tests). */
export interface PublishSource {
  id: string;
  manifest: GenerationManifest;
  manifestBytes: Uint8Array;
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
}

/** A refusal or failure from the admin API, with the HTTP status and the server's message. */
export class PublishError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "PublishError";
    this.status = status;
    this.code = code;
  }
}

/** Must match the Worker's MAX_PRESENCE_BATCH. */
const PRESENCE_BATCH = 500;
const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

/** A small admin API client: JSON in and out, bearer token, retries with exponential backoff. */
export class AdminClient {
  readonly #base: string;
  readonly #token: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #attempts: number;
  readonly #log: (line: string) => void;
  requests = 0;

  constructor(options: Pick<PublishOptions, "url" | "token" | "fetch" | "sleep" | "attempts" | "onLog">) {
    this.#base = `${options.url.replace(/\/+$/, "")}/admin/v1`;
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#attempts = options.attempts ?? 5;
    this.#log = options.onLog ?? (() => {});
  }

  /** Sends one request (retrying transient failures) and returns the parsed JSON body. */
  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, raw?: Uint8Array): Promise<{ status: number; json: T }> {
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers({ Authorization: `Bearer ${this.#token}` });
      let payload: Uint8Array<ArrayBuffer> | string | undefined;
      if (raw !== undefined) {
        headers.set("Content-Type", "application/octet-stream");
        payload = raw as Uint8Array<ArrayBuffer>;
      } else if (body !== undefined) {
        headers.set("Content-Type", "application/json");
        payload = JSON.stringify(body);
      }
      let response: Response | undefined;
      let failure: string;
      try {
        this.requests++;
        response = await this.#fetch(new Request(`${this.#base}${path}`, { method, headers, body: payload }));
        if (!TRANSIENT.has(response.status)) {
          const text = await response.text();
          let json: Record<string, unknown> = {};
          try {
            json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            json = { message: text.slice(0, 200) };
          }
          if (response.status === 409 && method === "POST" && (path === "/pointer" || path === "/rollback")) {
            // A retried move whose first response was lost finds its own move done and conflicts;
            // what the caller wanted (this generation current) has happened, so report success.
            const target = (body as { generation?: unknown } | undefined)?.generation;
            if (typeof target === "string" && (await this.current()) === target) return { status: 200, json: { generation: target, already_current: true } as T };
          }
          if (response.status >= 400) {
            throw new PublishError(response.status, String(json.error ?? "error"), `${method} ${path}: ${response.status} ${String(json.message ?? response.statusText)}`);
          }
          return { status: response.status, json: json as T };
        }
        failure = `${response.status}`;
        await response.body?.cancel();
      } catch (error) {
        if (error instanceof PublishError) throw error;
        failure = (error as Error).message;
      }
      if (attempt >= this.#attempts) throw new PublishError(response?.status ?? 0, "unavailable", `${method} ${path} failed ${attempt} times (last: ${failure}); rerun the command to continue`);
      const retryAfter = Number(response?.headers.get("Retry-After"));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : Math.min(500 * 2 ** (attempt - 1), 8000);
      this.#log(`retrying ${method} ${path} in ${delay} ms (attempt ${attempt} of ${this.#attempts} failed: ${failure})`);
      await this.#sleep(delay);
    }
  }

  /** The hashes among `shas` the Worker does not have, asked in batches. */
  async missing(kind: "blob" | "record" | "shard" | "generation", shas: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const unique = [...new Set(shas)];
    for (let i = 0; i < unique.length; i += PRESENCE_BATCH) {
      const { json } = await this.call<{ missing: Record<string, string[]> }>("POST", "/missing", { [kind]: unique.slice(i, i + PRESENCE_BATCH) });
      for (const sha of json.missing[kind] ?? []) out.add(sha);
    }
    return out;
  }

  /** The current generation id, or null when nothing has been published. */
  async current(): Promise<string | null> {
    const { json } = await this.call<{ pointer: { generation: string } | null }>("GET", "/pointer");
    return json.pointer?.generation ?? null;
  }
}

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
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
  };
  const finish = () => ({ ...result, requests: client.requests });

  progress({ phase: "checking", objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0 });
  result.previous = await client.current();
  if (result.previous === source.id) {
    result.alreadyCurrent = true;
    return finish();
  }

  // Top-down: what is missing, pruned by what is present (present implies complete).
  const uploads: { kind: "blob" | "record" | "shard" | "generation"; sha: string; size: number }[] = [];
  const generationMissing = (await client.missing("generation", [source.id])).size > 0;
  if (generationMissing) {
    const shardRefs = source.manifest.shards;
    const missingShards = await client.missing("shard", shardRefs.map((s) => s.sha256));
    const recordRefs = new Map<string, number>();
    for (const ref of shardRefs) {
      if (!missingShards.has(ref.sha256)) continue;
      const shard = ShardSchema.parse(JSON.parse(decoder.decode(await source.read("shard", ref.sha256))));
      for (const s of shard.skills) recordRefs.set(s.record.sha256, s.record.size);
    }
    const missingRecords = await client.missing("record", [...recordRefs.keys()]);
    const blobRefs = new Map<string, number>();
    if (source.manifest.shelf.advisories) blobRefs.set(source.manifest.shelf.advisories.sha256, source.manifest.shelf.advisories.size);
    for (const sha of missingRecords) {
      const record = SkillRecordSchema.parse(JSON.parse(decoder.decode(await source.read("record", sha))));
      for (const f of record.files) blobRefs.set(f.sha256, f.size);
      blobRefs.set(record.archives.tar_gz.sha256, record.archives.tar_gz.size);
      blobRefs.set(record.archives.zip.sha256, record.archives.zip.size);
    }
    const missingBlobs = await client.missing("blob", [...blobRefs.keys()]);
    for (const sha of missingBlobs) uploads.push({ kind: "blob", sha, size: blobRefs.get(sha)! });
    for (const sha of missingRecords) uploads.push({ kind: "record", sha, size: recordRefs.get(sha)! });
    for (const ref of shardRefs) if (missingShards.has(ref.sha256)) uploads.push({ kind: "shard", sha: ref.sha256, size: ref.size });
    uploads.push({ kind: "generation", sha: source.id, size: source.manifestBytes.length });
  }

  // Bottom-up: blobs, then records, then shards, then the manifest; each level only after the
  // one below it is complete, because the Worker verifies children before storing a parent.
  const bytesTotal = uploads.reduce((sum, u) => sum + u.size, 0);
  let objectsDone = 0;
  const report = () => progress({ phase: "uploading", objectsDone, objectsTotal: uploads.length, bytesDone: result.bytesUploaded, bytesTotal });
  report();
  const paths = { blob: "blobs", record: "records", shard: "shards", generation: "generations" } as const;
  for (const kind of ["blob", "record", "shard", "generation"] as const) {
    const level = uploads.filter((u) => u.kind === kind);
    await mapLimit(level, options.concurrency ?? 8, async (u) => {
      const bytes = kind === "generation" ? source.manifestBytes : await source.read(kind, u.sha);
      await client.call("PUT", `/${paths[kind]}/${u.sha}`, undefined, bytes);
      result.uploaded[kind]++;
      result.bytesUploaded += bytes.length;
      objectsDone++;
      report();
    });
  }

  progress({ phase: "finishing", objectsDone, objectsTotal: uploads.length, bytesDone: result.bytesUploaded, bytesTotal });
  // Advisories first: a new build's blocks are in force before anyone is served the build.
  if (source.manifest.shelf.advisories) {
    const list = JSON.parse(decoder.decode(await source.read("blob", source.manifest.shelf.advisories.sha256))) as { advisories: unknown[] };
    const { json } = await client.call<{ changed: boolean }>("POST", "/advisories", { advisories: list.advisories });
    result.advisoriesChanged = json.changed;
  }
  await client.call("POST", "/pointer", { generation: source.id, previous: result.previous });
  return finish();
}
