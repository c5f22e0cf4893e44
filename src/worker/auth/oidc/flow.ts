// The authorization-code flow with the provider, from the shelf's side: leaving (state, nonce and
// a PKCE verifier sealed in this browser's cookie, then the provider's authorization endpoint) and
// coming back to /oidc/callback (the cookie opened, the state matched and spent, the code
// exchanged, the ID token checked, the team's rules applied). Every failure is a SignInProblem
// with the status and words for the person; none is a 500.
import { StorageUnavailableError } from "../../storage/errors.ts";
import { randomToken } from "./base64url.ts";
import type { OidcSettings } from "./config.ts";
import { IdTokenRefused, verifyIdToken } from "./id-token.ts";
import { admit, type OidcIdentity } from "./policy.ts";
import { exchangeCode, ProviderRefused, ProviderUnavailable, providerKeys, providerMetadata } from "./provider.ts";
import { oidcSessionValue } from "./session.ts";
import { openTransaction, pkceChallenge, sealTransaction, type SignInReturn, TRANSACTION_MAX_AGE_SECONDS, transactionCookie, useState } from "./transaction.ts";

/** Where the provider sends the browser back, on the shelf's own origin (register it with the provider). */
export const OIDC_CALLBACK_PATH = "/oidc/callback";
/** Where a sign-in starts (a link on the sign-in pages). */
export const OIDC_START_PATH = "/oidc/sign-in";
/** The scopes asked for: an ID token with the person's e-mail address. */
export const OIDC_SCOPES = "openid email profile";

/** A sign-in that cannot finish: its status, a title and message for the person, and what is logged. */
export class SignInProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  constructor(status: number, title: string, detail: string, log: string) {
    super(log);
    this.name = "SignInProblem";
    this.status = status;
    this.title = title;
    this.detail = detail;
  }
}

function unavailable(error: ProviderUnavailable): SignInProblem {
  return new SignInProblem(502, "The identity provider did not answer", "Try again in a minute; if it keeps failing, tell the shelf's owner.", error.message);
}

/**
 * Starts a sign-in: the provider's authorization URL to send the browser to, and the cookie that
 * remembers the transaction.
 * @example const { location, cookie } = await beginSignIn(settings, "https://skills.acme.example", { kind: "pages" })
 */
export async function beginSignIn(settings: OidcSettings, origin: string, ret: SignInReturn, now = Date.now()): Promise<{ location: string; cookie: string }> {
  let endpoint: string;
  try {
    endpoint = (await providerMetadata(settings.issuer)).authorization_endpoint;
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw unavailable(error);
    throw error;
  }
  const txn = { state: randomToken(), nonce: randomToken(), verifier: randomToken(48), return: ret, exp: Math.floor(now / 1000) + TRANSACTION_MAX_AGE_SECONDS };
  const url = new URL(endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("redirect_uri", origin + OIDC_CALLBACK_PATH);
  url.searchParams.set("scope", OIDC_SCOPES);
  url.searchParams.set("state", txn.state);
  url.searchParams.set("nonce", txn.nonce);
  url.searchParams.set("code_challenge", await pkceChallenge(txn.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return { location: url.href, cookie: transactionCookie(await sealTransaction(txn, settings.sessionKey)) };
}

/** A finished sign-in: who, where they go next, and their session value. */
export interface FinishedSignIn {
  identity: OidcIdentity;
  return: SignInReturn;
  session: string;
}

/** Finishes a sign-in at the callback. `transactionValue` is this browser's transaction cookie. */
export async function finishSignIn(request: Request, settings: OidcSettings, transactionValue: string | undefined): Promise<FinishedSignIn> {
  const url = new URL(request.url);
  const txn = await openTransaction(transactionValue, settings.sessionKey);
  const again = "Start signing in again from the shelf or the app.";
  if (!txn)
    throw new SignInProblem(
      400,
      "This sign-in has expired",
      `It took too long or was started in another browser. ${again}`,
      "oidc: callback without a live transaction cookie",
    );
  const state = url.searchParams.get("state");
  if (state !== txn.state) throw new SignInProblem(400, "This sign-in does not match", again, "oidc: callback state differs from this browser's transaction");
  const providerError = url.searchParams.get("error");
  if (providerError !== null) {
    throw new SignInProblem(
      401,
      "The identity provider did not sign you in",
      `It answered ${providerError.slice(0, 64)}. ${again}`,
      `oidc: provider error ${providerError.slice(0, 64)}`,
    );
  }
  const code = url.searchParams.get("code");
  if (!code) throw new SignInProblem(400, "This sign-in is incomplete", again, "oidc: callback without a code");
  let fresh: boolean;
  try {
    fresh = await useState(settings.kv, state);
  } catch (error) {
    throw new StorageUnavailableError("KV record of a spent sign-in state failed", { cause: error });
  }
  if (!fresh) throw new SignInProblem(400, "This sign-in was already used", again, "oidc: a spent state came back (a replayed callback)");

  let claims: Awaited<ReturnType<typeof verifyIdToken>>;
  try {
    const metadata = await providerMetadata(settings.issuer);
    const idToken = await exchangeCode(settings, metadata, { code, redirectUri: url.origin + OIDC_CALLBACK_PATH, verifier: txn.verifier });
    claims = await verifyIdToken(idToken, { issuer: settings.issuer, clientId: settings.clientId, nonce: txn.nonce, keys: providerKeys(metadata.jwks_uri) });
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw unavailable(error);
    if (error instanceof ProviderRefused) throw new SignInProblem(401, "The identity provider did not sign you in", again, `oidc: ${error.message}`);
    if (error instanceof IdTokenRefused)
      throw new SignInProblem(
        401,
        "Sign-in was refused",
        `The identity provider's answer did not check out. ${again}`,
        `oidc: ID token refused (${error.reason}): ${error.message}`,
      );
    throw error;
  }
  const admission = admit(claims, settings);
  if (!admission.admitted)
    throw new SignInProblem(403, "You may not read this shelf", `${admission.reason} Ask the shelf's owner.`, `oidc: not admitted (${admission.reason})`);
  return { identity: admission.identity, return: txn.return, session: await oidcSessionValue(admission.identity, settings.sessionKey) };
}
