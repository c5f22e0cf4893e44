// Shared by the storage layer tests: a shelf published through the admin API (so KV holds the
// copies the admin API writes), and bindings that fail on every call.
import { env } from "cloudflare:workers";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { adminEnv, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL, workerFetch } from "../admin/helpers.ts";

/** Builds the named skills and publishes them through the Worker's admin API. */
export async function publishShelf(names: string[]): Promise<BuiltGeneration> {
  const built = await buildGeneration(await Promise.all(names.map((n) => skillInput(n))));
  await publishGeneration(memorySource(built), { url: WORKER_URL, token: TOKEN, fetch: workerFetch(await adminEnv()), sleep: async () => {} });
  return built;
}

/** A KV binding whose every call fails. */
export function failingKv(): KVNamespace {
  const fail = async () => {
    throw new Error("KV is down");
  };
  return { get: fail, put: fail, delete: fail, list: fail, getWithMetadata: fail } as unknown as KVNamespace;
}

/** Bindings whose every call fails: a request answered from memory never notices. */
export function failingEnv(): typeof env {
  const fail = async () => {
    throw new Error("storage touched");
  };
  return { ...env, SHELF_KV: failingKv(), SHELF_BUCKET: { get: fail, head: fail, put: fail, list: fail, delete: fail } as unknown as R2Bucket };
}
