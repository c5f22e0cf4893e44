// Read tokens for private shelves, held only as SHA-256 hashes. A presented token is hashed
// and the hash is looked up — in the READ_TOKEN_SHA256 secret (a comma list) or as the KV key
// `readtoken:<hex>` — so no secret string is ever compared, and nothing stored can be replayed.
import { isSha256Hex, sha256Hex } from "../../core/skill/hash.ts";
import { StorageUnavailableError } from "../storage/errors.ts";

/** KV key prefix of a read-token record; the rest of the key is the token's SHA-256 hex. */
export const READ_TOKEN_KV_PREFIX = "readtoken:";
/** How long an isolate trusts a KV lookup (positive or negative) before asking KV again. */
const READ_TOKEN_CACHE_MS = 30_000;

/** The JSON stored under `readtoken:<sha256>`; every field is optional. */
export interface ReadTokenRecord {
  /** Who the token was issued to; shown in logs, never used for decisions. */
  label?: string;
  /** ISO 8601 instant after which the token no longer reads (KV expiration may also drop it). */
  expires_at?: string;
}

/** The bindings the token store reads. */
export interface ReadTokenEnv {
  READ_TOKEN_SHA256?: string;
  SHELF_KV?: KVNamespace;
}

/**
 * Parses the READ_TOKEN_SHA256 secret: comma- or whitespace-separated lowercase hex SHA-256s.
 * Entries that are not a SHA-256 are skipped with a logged warning, so a pasted raw token
 * (the wrong thing to store) never becomes a valid credential.
 */
export function parseTokenHashList(secret: string | undefined): Set<string> {
  const hashes = new Set<string>();
  for (const entry of (secret ?? "").split(/[\s,]+/)) {
    if (entry === "") continue;
    const hex = entry.toLowerCase();
    if (isSha256Hex(hex)) hashes.add(hex);
    else console.warn("READ_TOKEN_SHA256 holds an entry that is not a SHA-256 hex; store sha256(token), not the token");
  }
  return hashes;
}

/** True when a KV record is still valid at `now` (an unparsable expiry counts as expired). */
function recordIsLive(record: ReadTokenRecord, now: number): boolean {
  if (record.expires_at === undefined) return true;
  const expires = Date.parse(record.expires_at);
  return Number.isFinite(expires) && now < expires;
}

/** Bumped by {@link resetReadTokenCaches}: a verifier that sees a new epoch forgets its cache first. */
let cacheEpoch = 0;

/** Forgets every verifier's cached KV answers (tests use it to simulate a cold isolate). */
export function resetReadTokenCaches(): void {
  cacheEpoch++;
}

/** Options for {@link createReadTokenVerifier}. */
export interface ReadTokenVerifierOptions {
  /** Milliseconds since the epoch; a parameter so expiry and cache TTLs are testable. */
  clock?: () => number;
  cacheMs?: number;
}

/**
 * Verifies presented read tokens against the stored hashes; throws StorageUnavailableError when KV
 * fails. A token's SHA-256 alone (`{ sha256 }`) is verified the same way: the pages' session
 * cookie holds one, vouched for by its MAC (auth/session.ts).
 */
export type ReadTokenVerifier = (token: string | { sha256: string }, env: ReadTokenEnv) => Promise<boolean>;

/**
 * Builds a verifier with an in-isolate cache of KV answers (positive and negative, for
 * `cacheMs`), so a warm private shelf adds no KV read per request. Revoking a KV token therefore
 * takes up to `cacheMs` plus KV's own propagation delay (about 60 s); removing a hash from the
 * secret takes effect on the next deploy.
 * @example const verify = createReadTokenVerifier(); await verify(token, c.env)
 */
export function createReadTokenVerifier(options: ReadTokenVerifierOptions = {}): ReadTokenVerifier {
  const clock = options.clock ?? Date.now;
  const cacheMs = options.cacheMs ?? READ_TOKEN_CACHE_MS;
  const cache = new Map<string, { record: ReadTokenRecord | null; until: number }>();
  let epoch = cacheEpoch;
  let parsedSecret: { source: string | undefined; hashes: Set<string> } | undefined;

  return async function verifyReadToken(token: string | { sha256: string }, env: ReadTokenEnv): Promise<boolean> {
    let hash: string;
    if (typeof token === "string") {
      // Tokens are printable ASCII of sane length; anything else cannot have been issued.
      if (token.length < 16 || token.length > 512 || !/^[\x21-\x7e]+$/.test(token)) return false;
      hash = await sha256Hex(token);
    } else {
      if (!/^[0-9a-f]{64}$/.test(token.sha256)) return false;
      hash = token.sha256;
    }
    if (parsedSecret === undefined || parsedSecret.source !== env.READ_TOKEN_SHA256) {
      parsedSecret = { source: env.READ_TOKEN_SHA256, hashes: parseTokenHashList(env.READ_TOKEN_SHA256) };
    }
    if (parsedSecret.hashes.has(hash)) return true;
    if (!env.SHELF_KV) return false;

    if (epoch !== cacheEpoch) {
      cache.clear();
      epoch = cacheEpoch;
    }
    const now = clock();
    let cached = cache.get(hash);
    if (!cached || cached.until <= now) {
      let record: ReadTokenRecord | null;
      try {
        record = await env.SHELF_KV.get<ReadTokenRecord>(READ_TOKEN_KV_PREFIX + hash, "json");
      } catch (err) {
        // Here KV is the source of truth, not a cache: without an answer, neither 200 nor 401 is right.
        throw new StorageUnavailableError("KV lookup of a read token failed", { cause: err });
      }
      cached = { record: record && typeof record === "object" ? record : null, until: now + cacheMs };
      if (cache.size > 1000) cache.clear(); // bound memory against token-guessing floods
      cache.set(hash, cached);
    }
    return cached.record !== null && recordIsLive(cached.record, now);
  };
}
