// Checks an ID token (a JWS-signed JWT, OpenID Connect Core §3.1.3.7) with WebCrypto: the
// signature against the provider's published keys, then issuer, audience, authorized party,
// expiry, issue time and nonce. Pure apart from the key source, so every refusal is testable alone.
import { fromBase64Url } from "./base64url.ts";

/** Why an ID token was refused; each is logged and shown to the person as "sign-in was refused". */
export type IdTokenProblem = "malformed" | "algorithm" | "unknown_key" | "signature" | "issuer" | "audience" | "expired" | "not_yet_valid" | "nonce";

/** An ID token that did not pass; `reason` names the check. */
export class IdTokenRefused extends Error {
  readonly reason: IdTokenProblem;
  constructor(reason: IdTokenProblem, message: string) {
    super(message);
    this.name = "IdTokenRefused";
    this.reason = reason;
  }
}

/** The claims the shelf reads (others are kept for the required-claim rule). */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat?: number;
  nbf?: number;
  nonce?: string;
  azp?: string;
  email?: string;
  email_verified?: boolean | string;
  [claim: string]: unknown;
}

/** The signature algorithms accepted, as WebCrypto names them. "none" and HMAC (keyed with the client secret) never are. */
type ImportAlgorithm = Parameters<typeof crypto.subtle.importKey>[2];
type VerifyAlgorithm = Parameters<typeof crypto.subtle.verify>[0];
const ALGORITHMS: Readonly<Record<string, { kty: string; importAs: ImportAlgorithm; verifyAs: VerifyAlgorithm }>> = {
  RS256: { kty: "RSA", importAs: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, verifyAs: "RSASSA-PKCS1-v1_5" },
  RS384: { kty: "RSA", importAs: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" }, verifyAs: "RSASSA-PKCS1-v1_5" },
  RS512: { kty: "RSA", importAs: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" }, verifyAs: "RSASSA-PKCS1-v1_5" },
  PS256: { kty: "RSA", importAs: { name: "RSA-PSS", hash: "SHA-256" }, verifyAs: { name: "RSA-PSS", saltLength: 32 } },
  ES256: { kty: "EC", importAs: { name: "ECDSA", namedCurve: "P-256" }, verifyAs: { name: "ECDSA", hash: "SHA-256" } },
  ES384: { kty: "EC", importAs: { name: "ECDSA", namedCurve: "P-384" }, verifyAs: { name: "ECDSA", hash: "SHA-384" } },
};

/** A public key from the provider's JWKS. */
export interface Jwk extends JsonWebKey {
  kid?: string;
  use?: string;
}

/**
 * The provider's keys that may have signed a token with `kid`; `fresh` asks for the keys to be
 * fetched again (a kid the cached set lacks: the provider rotated).
 */
export type KeySource = (kid: string | undefined, fresh: boolean) => Promise<readonly Jwk[]>;

/** What an ID token is checked against. */
export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  keys: KeySource;
  /** Seconds since the epoch (a parameter so expiry is testable). */
  now?: number;
  /** Clock skew tolerated between the provider and the Worker. */
  skewSeconds?: number;
}

function decodeJson(part: string): Record<string, unknown> | null {
  const bytes = fromBase64Url(part);
  if (!bytes) return null;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function candidates(keys: readonly Jwk[], kid: string | undefined, kty: string): Jwk[] {
  return keys.filter((k) => k.kty === kty && (k.use === undefined || k.use === "sig") && (kid === undefined || k.kid === kid));
}

async function signatureHolds(jwk: Jwk, alg: (typeof ALGORITHMS)[string], signature: Uint8Array, signed: Uint8Array): Promise<boolean> {
  const { kid: _kid, use: _use, alg: _alg, key_ops: _ops, ...material } = jwk;
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("jwk", material, alg.importAs, false, ["verify"]);
  } catch {
    return false; // a key of another curve or a malformed one cannot have signed it
  }
  return crypto.subtle.verify(alg.verifyAs, key, signature, signed);
}

/**
 * The claims of `token` once its signature, issuer, audience, times and nonce hold; throws
 * IdTokenRefused otherwise.
 * @example const claims = await verifyIdToken(idToken, { issuer, clientId, nonce, keys }) // claims.email
 */
export async function verifyIdToken(token: string, expect: IdTokenExpectations): Promise<IdTokenClaims> {
  const parts = token.split(".");
  if (parts.length !== 3 || token.length > 16_384) throw new IdTokenRefused("malformed", "not a signed JWT");
  const [headerPart = "", payloadPart = "", signaturePart = ""] = parts;
  const header = decodeJson(headerPart);
  const payload = decodeJson(payloadPart);
  const signature = fromBase64Url(signaturePart);
  if (!header || !payload || !signature) throw new IdTokenRefused("malformed", "its header, claims or signature do not decode");
  const alg = typeof header.alg === "string" ? ALGORITHMS[header.alg] : undefined;
  if (!alg || !Object.hasOwn(ALGORITHMS, header.alg as string))
    throw new IdTokenRefused("algorithm", `algorithm ${JSON.stringify(header.alg)} is not accepted`);
  const kid = typeof header.kid === "string" ? header.kid : undefined;

  const signed = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
  let keys = candidates(await expect.keys(kid, false), kid, alg.kty);
  // A kid the cached keys lack: the provider may have rotated since they were fetched.
  if (keys.length === 0) keys = candidates(await expect.keys(kid, true), kid, alg.kty);
  if (keys.length === 0) throw new IdTokenRefused("unknown_key", `no key ${JSON.stringify(kid ?? null)} in the provider's JWKS`);
  let verified = false;
  for (const jwk of keys) if (!verified) verified = await signatureHolds(jwk, alg, signature, signed);
  if (!verified) throw new IdTokenRefused("signature", "the signature does not verify with the provider's keys");

  const claims = payload as Partial<IdTokenClaims>;
  if (claims.iss !== expect.issuer) throw new IdTokenRefused("issuer", `issued by ${JSON.stringify(claims.iss)}, not ${expect.issuer}`);
  const audiences = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!audiences.includes(expect.clientId)) throw new IdTokenRefused("audience", "issued for another client");
  // With several audiences the authorized party must be this client (Core §3.1.3.7, step 5).
  if ((audiences.length > 1 || claims.azp !== undefined) && claims.azp !== expect.clientId) throw new IdTokenRefused("audience", "issued to another party");
  const now = expect.now ?? Math.floor(Date.now() / 1000);
  const skew = expect.skewSeconds ?? 60;
  if (typeof claims.exp !== "number" || claims.exp + skew <= now) throw new IdTokenRefused("expired", "the ID token has expired");
  if (typeof claims.nbf === "number" && claims.nbf - skew > now) throw new IdTokenRefused("not_yet_valid", "the ID token is not valid yet");
  if (claims.iat !== undefined && (typeof claims.iat !== "number" || claims.iat - skew > now))
    throw new IdTokenRefused("not_yet_valid", "the ID token was issued in the future");
  if (typeof claims.sub !== "string" || claims.sub === "") throw new IdTokenRefused("malformed", "the ID token names no subject");
  // The nonce binds the token to this browser's sign-in: a token from another sign-in (replayed) fails here.
  if (claims.nonce !== expect.nonce) throw new IdTokenRefused("nonce", "the nonce does not match this sign-in");
  return claims as IdTokenClaims;
}
