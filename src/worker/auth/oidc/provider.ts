// Talking to the team's OpenID Connect provider: its discovery document and its JWKS, both cached
// in the isolate (keys fetched again when a token names a kid the cache lacks, at most once a
// minute per kid and a few times a minute in all, so a flood of made-up kids cannot hammer the
// provider), and the code exchange at its token endpoint with the client secret and PKCE verifier.
import type { Jwk, KeySource } from "./id-token.ts";
import { providerUrl, type OidcSettings } from "./config.ts";

/** The provider did not answer usefully (unreachable, an error status, a document that is not one): a 502, never a 500. */
export class ProviderUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ProviderUnavailable";
  }
}

/** The provider refused the code exchange (an OAuth error such as invalid_grant): the person starts again. */
export class ProviderRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ProviderRefused";
    this.code = code;
  }
}

/** The parts of the discovery document the shelf uses. */
export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  token_endpoint_auth_methods_supported?: string[];
}

/** How long a discovery document and a key set are trusted before they are fetched again. */
const METADATA_TTL_MS = 60 * 60 * 1000;
const JWKS_TTL_MS = 10 * 60 * 1000;
/** A kid not in the keys is looked up again at most this often (per kid) … */
const UNKNOWN_KID_RETRY_MS = 60 * 1000;
/** … and the keys are fetched again for unknown kids at most this many times a minute in all. */
const UNKNOWN_KID_REFRESHES_PER_MINUTE = 6;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

async function getJson(url: string, what: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { Accept: "application/json", ...init?.headers } });
  } catch (error) {
    throw new ProviderUnavailable(`${what} at ${url} did not answer`, { cause: error });
  }
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new ProviderUnavailable(`${what} at ${url} is too large`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderUnavailable(`${what} at ${url} answered ${response.status} without JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ProviderUnavailable(`${what} at ${url} is not a JSON object`);
  return { status: response.status, body: body as Record<string, unknown> };
}

const metadataCache = new Map<string, { metadata: ProviderMetadata; until: number }>();

/**
 * The provider's discovery document (`<issuer>/.well-known/openid-configuration`), cached; its
 * `issuer` must be the configured one exactly and its endpoints https (OpenID Connect Discovery §4.3).
 */
export async function providerMetadata(issuer: string, now = Date.now()): Promise<ProviderMetadata> {
  const cached = metadataCache.get(issuer);
  if (cached && cached.until > now) return cached.metadata;
  const url = `${issuer}/.well-known/openid-configuration`;
  const { status, body } = await getJson(url, "the discovery document");
  if (status !== 200) throw new ProviderUnavailable(`the discovery document at ${url} answered ${status}`);
  if (body.issuer !== issuer) throw new ProviderUnavailable(`the discovery document at ${url} names issuer ${JSON.stringify(body.issuer)}, not ${issuer}`);
  for (const field of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
    const value = body[field];
    if (typeof value !== "string" || !providerUrl(value)) throw new ProviderUnavailable(`the discovery document at ${url} has no usable ${field}`);
  }
  const metadata = body as unknown as ProviderMetadata;
  metadataCache.set(issuer, { metadata, until: now + METADATA_TTL_MS });
  return metadata;
}

interface KeySet {
  keys: readonly Jwk[];
  until: number;
}

const keyCache = new Map<string, KeySet>();
const kidRetries = new Map<string, number>();
let refreshWindow = { start: 0, count: 0 };

async function fetchKeys(jwksUri: string, now: number): Promise<KeySet> {
  const { status, body } = await getJson(jwksUri, "the provider's JWKS");
  if (status !== 200 || !Array.isArray(body.keys)) throw new ProviderUnavailable(`the provider's JWKS at ${jwksUri} answered ${status} without keys`);
  const keys = (body.keys as unknown[]).filter((k): k is Jwk => typeof k === "object" && k !== null && typeof (k as Jwk).kty === "string");
  const set = { keys, until: now + JWKS_TTL_MS };
  keyCache.set(jwksUri, set);
  return set;
}

/**
 * The provider's signing keys as an ID-token check asks for them: cached for JWKS_TTL_MS, fetched
 * again for a kid the cache lacks (rotation) within the limits above.
 */
export function providerKeys(jwksUri: string, clock: () => number = Date.now): KeySource {
  return async (kid, fresh) => {
    const now = clock();
    const cached = keyCache.get(jwksUri);
    if (!fresh) return (cached && cached.until > now ? cached : await fetchKeys(jwksUri, now)).keys;
    const retryKey = `${jwksUri}\n${kid ?? ""}`;
    const last = kidRetries.get(retryKey);
    if (now - refreshWindow.start > 60_000) refreshWindow = { start: now, count: 0 };
    if ((last !== undefined && now - last < UNKNOWN_KID_RETRY_MS) || refreshWindow.count >= UNKNOWN_KID_REFRESHES_PER_MINUTE) return cached?.keys ?? [];
    refreshWindow.count += 1;
    if (kidRetries.size > 1000) kidRetries.clear();
    kidRetries.set(retryKey, now);
    return (await fetchKeys(jwksUri, now)).keys;
  };
}

/** Forgets every cached document and key set (tests, and a Worker whose provider changed). */
export function forgetProviders(): void {
  metadataCache.clear();
  keyCache.clear();
  kidRetries.clear();
  refreshWindow = { start: 0, count: 0 };
}

/**
 * Exchanges an authorization code for the provider's tokens and returns the ID token. The client
 * authenticates with client_secret_basic unless the provider lists only client_secret_post.
 */
export async function exchangeCode(
  settings: OidcSettings,
  metadata: ProviderMetadata,
  exchange: { code: string; redirectUri: string; verifier: string },
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    code_verifier: exchange.verifier,
  });
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) {
    form.set("client_id", settings.clientId);
    form.set("client_secret", settings.clientSecret);
  } else {
    // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
    const part = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
    headers.Authorization = `Basic ${btoa(`${part(settings.clientId)}:${part(settings.clientSecret)}`)}`;
  }
  const { status, body } = await getJson(metadata.token_endpoint, "the token endpoint", { method: "POST", headers, body: form.toString() });
  if (status >= 400 && status < 500 && typeof body.error === "string") {
    throw new ProviderRefused(
      body.error,
      `the provider refused the code: ${body.error}${typeof body.error_description === "string" ? ` (${body.error_description})` : ""}`,
    );
  }
  if (status !== 200) throw new ProviderUnavailable(`the token endpoint answered ${status}`);
  if (typeof body.id_token !== "string")
    throw new ProviderRefused("no_id_token", "the provider sent no ID token (is the openid scope allowed for this client?)");
  return body.id_token;
}
