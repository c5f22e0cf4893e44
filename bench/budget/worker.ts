// The Worker the budget bench runs: skillshelf's own app, its R2 and KV bindings wrapped per
// request to count storage operations (test/worker/budget/storage-ops.ts), and one extra route,
// GET /__budget/ops, answering (and forgetting) what each request since the last call counted.
// Bundled by `wrangler deploy --dry-run` like the real Worker, with this file as the entry.
import app from "../../src/worker/index.ts";
import { countCacheCalls, countingEnv, noOps, type StorageOps } from "../../test/worker/budget/storage-ops.ts";

/** What one request counted, in arrival order. */
export interface CountedRequest {
  method: string;
  path: string;
  status: number;
  ops: StorageOps;
}

const OPS_PATH = "/__budget/ops";
/** Bounded: the bench reads it after every request, and a publish sends a few hundred. */
const MAX_LOG = 10_000;
let log: CountedRequest[] = [];

export default {
  async fetch(request: Request, env: CloudflareBindings, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === OPS_PATH) {
      const answer = Response.json(log);
      log = [];
      return answer;
    }
    const ops = noOps();
    countCacheCalls(ops);
    const response = await app.fetch(request, countingEnv(env, ops), ctx);
    // Logged before the body streams; the counts are the same object, read once the bench has the whole body.
    if (log.length < MAX_LOG) log.push({ method: request.method, path: url.pathname + url.search, status: response.status, ops });
    return response;
  },
};
