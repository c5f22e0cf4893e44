// A private shelf with OAuth on, for the OAuth tests: its env (the test's OAUTH_KV, the shelf's
// origin as issuer, a read token and a publish token) and a fetch into the whole Worker. The headless
// browser and client (headless.ts, which runs in Node too: the budget bench uses it) are re-exported.
import { env } from "cloudflare:workers";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import app from "../../../src/worker/index.ts";
import { TOKEN as PUBLISH_TOKEN } from "../admin/helpers.ts";
import { type FetchFn, READ_TOKEN } from "./headless.ts";

export const ORIGIN = "https://shelf.test";
export { authorizeAsPerson, type AuthorizeVisit, CookieJar, type FetchFn, HeadlessOAuthClient, hiddenField, postForm, READ_TOKEN } from "./headless.ts";
export { PUBLISH_TOKEN };

/** The test runtime's bindings with the OAuth test namespaces (vitest.config.ts). */
export const testEnv = env as typeof env & { OAUTH_KV: KVNamespace; OAUTH_KV_OTHER: KVNamespace };

/** A private shelf's env with OAuth on at `issuer`, its grants kept in `kv`. */
export async function oauthEnv(options: { issuer?: string; kv?: KVNamespace; readToken?: string } = {}): Promise<Record<string, unknown>> {
  return {
    ...testEnv,
    SHELF_VISIBILITY: "private",
    READ_TOKEN_SHA256: await sha256Hex(options.readToken ?? READ_TOKEN),
    PUBLISH_TOKEN_SHA256: await sha256Hex(PUBLISH_TOKEN),
    SHELF_OAUTH_ISSUER: options.issuer ?? ORIGIN,
    OAUTH_KV: options.kv ?? testEnv.OAUTH_KV,
  };
}

/** A fetch into the whole Worker with `bindings` (what an HTTP client of the shelf would see). */
export function shelfFetch(bindings: object): FetchFn {
  return async (input, init) => app.request(input instanceof Request ? input : String(input), init, bindings);
}
