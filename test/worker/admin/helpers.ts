// Shared helpers for the storage and admin tests: skills built in memory with the same core code
// `skillshelf build` uses, the Worker app called with a configured publish token, and counting
// proxies around the R2 and KV bindings so tests can hold the budgets.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { evaluateTrust } from "../../../src/core/trust/evaluate.ts";
import { assembleGeneration, describeSkill, type BuiltGeneration, type SkillBuildInput } from "../../../src/core/generation/assemble.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import type { PublishSource } from "../../../src/core/publish/client.ts";
import type { SkillFile } from "../../../src/core/skill/skill.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import app from "../../../src/worker/index.ts";
import { MIN_GC_GRACE_SECONDS } from "../../../src/core/publish/contract.ts";
import { vi } from "vitest";

export const TOKEN = "sk_test_publish_token_0123456789";
export const WORKER_URL = "https://shelf.test";
const encoder = new TextEncoder();

/** The SKILL.md of a generated test skill. */
export function skillMd(name: string, body = "Follow the steps.\n"): string {
  return `---\nname: ${name}\ndescription: Test skill ${name}, which does one thing well in tests.\n---\n\n# ${name}\n\n${body}`;
}

/** Builds one skill's inputs from files, validating and outlining like the build does. */
export async function skillInput(name: string, files: Record<string, string | Uint8Array> = {}): Promise<SkillBuildInput> {
  const raw = { "SKILL.md": skillMd(name), ...files };
  const list: SkillFile[] = Object.entries(raw).map(([path, v]) => ({ path, bytes: typeof v === "string" ? encoder.encode(v) : v }));
  const validation = validateSkillMd(name, list.find((f) => f.path === "SKILL.md")!.bytes);
  if (!validation.ok || !validation.metadata || !validation.parsed) throw new Error(`test skill ${name} is invalid: ${JSON.stringify(validation.problems)}`);
  const inventory = await buildInventory(list);
  const verdict = evaluateTrust({ validations: [], advisories: [] }, { tree_hash: inventory.tree_hash, name, has_scripts: inventory.has_scripts });
  return {
    files: list,
    record: describeSkill(validation.metadata, validation.parsed, inventory, {
      source: null,
      validations: [],
      verdict: {
        level: verdict.level,
        blocked: false,
        requires_review: verdict.requires_review,
        attachable: verdict.attachable,
        reasons: verdict.reasons,
        warnings: verdict.warnings,
      },
    }),
  };
}

/** A generation of the given skills (no advisories unless given, in their stored form). */
export function buildGeneration(skills: readonly SkillBuildInput[], advisories: Record<string, unknown>[] | null = null): Promise<BuiltGeneration> {
  return assembleGeneration(skills, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories,
  });
}

/** A built generation as a publish source. */
export function memorySource(built: BuiltGeneration): PublishSource {
  const byKey = new Map(built.objects.map((o) => [`${o.kind}:${o.sha256}`, o.bytes]));
  return {
    id: built.id,
    manifest: built.manifest,
    manifestBytes: built.manifestBytes,
    read: async (kind, sha) => {
      const bytes = byKey.get(`${kind}:${sha}`);
      if (!bytes) throw new Error(`no ${kind} ${sha} in the build`);
      return bytes;
    },
  };
}

/** Counts of binding calls (by "R2.get", "KV.put", …) and bytes read from KV. */
export interface CallCounts {
  calls: Record<string, number>;
  kvBytesRead: number;
  r2BytesWritten: number;
}

export function newCounts(): CallCounts {
  return { calls: {}, kvBytesRead: 0, r2BytesWritten: 0 };
}

/** Sum of calls whose name starts with `prefix` ("R2." or "KV."). */
export function total(counts: CallCounts, prefix: string): number {
  return Object.entries(counts.calls).reduce((sum, [k, v]) => (k.startsWith(prefix) ? sum + v : sum), 0);
}

function counting<T extends object>(target: T, label: string, counts: CallCounts): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const name = `${label}.${String(prop)}`;
        counts.calls[name] = (counts.calls[name] ?? 0) + 1;
        if (label === "R2" && prop === "put") {
          const body = args[1];
          if (body instanceof Uint8Array) counts.r2BytesWritten += body.length;
          else if (typeof body === "string") counts.r2BytesWritten += encoder.encode(body).length;
        }
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        if (label === "KV" && prop === "get" && result instanceof Promise) {
          return result.then((v: unknown) => {
            // Bytes as stored (UTF-8), not UTF-16 code units.
            if (typeof v === "string") counts.kvBytesRead += encoder.encode(v).length;
            else if (v instanceof Map) for (const x of v.values()) if (typeof x === "string") counts.kvBytesRead += encoder.encode(x).length;
            return v;
          });
        }
        return result;
      };
    },
  });
}

/** The test env with the publish token configured, optionally with counting bindings. */
export async function adminEnv(counts?: CallCounts): Promise<Cloudflare.Env & { PUBLISH_TOKEN_SHA256: string }> {
  // gc's settle wait (15 s in production) is skipped in tests.
  const base = { ...env, PUBLISH_TOKEN_SHA256: await sha256Hex(TOKEN), SHELF_GC_SETTLE_MS: "0" };
  if (!counts) return base;
  return { ...base, SHELF_BUCKET: counting(env.SHELF_BUCKET, "R2", counts), SHELF_KV: counting(env.SHELF_KV, "KV", counts) };
}

/** Calls the whole Worker (admin and read routes) with the given env. */
export function workerFetch(workerEnv: object): (request: Request) => Promise<Response> {
  return async (request) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(request, workerEnv as Cloudflare.Env, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

/** An admin request with the token. */
export function adminRequest(method: string, path: string, body?: unknown, token: string | null = TOKEN): Request {
  const headers = new Headers();
  if (token !== null) headers.set("Authorization", `Bearer ${token}`);
  if (body !== undefined) headers.set("Content-Type", "application/json");
  return new Request(`${WORKER_URL}/admin/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Every key in the bucket (for "nothing changed" assertions). */
export async function bucketKeys(bucket: R2Bucket): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

/**
 * Runs `fn` with the clock (Date) moved past gc's minimum grace period, as if everything stored
 * so far had been uploaded more than MIN_GC_GRACE_SECONDS ago; real time again afterwards.
 * @example await pastMinGrace(() => call(adminRequest("POST", "/gc", { keep: 0, grace_seconds: 0, apply: true })))
 */
export async function pastMinGrace<T>(fn: () => Promise<T>): Promise<T>;
/** The same, `laterMs` further on. */
export async function pastMinGrace<T>(laterMs: number, fn: () => Promise<T>): Promise<T>;
export async function pastMinGrace<T>(...args: [() => Promise<T>] | [number, () => Promise<T>]): Promise<T> {
  const [laterMs, fn] = args.length === 1 ? [0, args[0]] : args;
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + (MIN_GC_GRACE_SECONDS + 60) * 1000 + laterMs);
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * The bucket with upload times taken from the test's clock (Date, which tests may fake): each
 * object's `uploaded` in a listing is when it was put by that clock, so gc's grace period can be
 * tested across hours. Objects put before the wrapper keep R2's own times.
 */
export function clockedBucket(bucket: R2Bucket): R2Bucket {
  const putAt = new Map<string, number>();
  return new Proxy(bucket, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "put") {
        return async (...args: Parameters<R2Bucket["put"]>) => {
          const stored = await target.put(...args);
          if (stored) putAt.set(args[0], Date.now());
          return stored;
        };
      }
      if (prop === "list") {
        return async (options?: R2ListOptions) => {
          const page = await target.list(options);
          const objects = page.objects.map(
            (o) => ({ key: o.key, size: o.size, etag: o.etag, uploaded: new Date(putAt.get(o.key) ?? o.uploaded.getTime()) }) as R2Object,
          );
          return { ...page, objects };
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
