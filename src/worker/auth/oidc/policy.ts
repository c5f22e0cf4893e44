// Who may sign in: the team's rules (verified e-mail domains and/or a required claim) applied to a
// checked ID token's claims. Pure, so each rule is tested alone.
import type { OidcSettings } from "./config.ts";
import type { IdTokenClaims } from "./id-token.ts";

/** A person the provider vouched for, as grants and sessions record them. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** Lowercase, or null when the provider sent none (then only a required claim can admit). */
  email: string | null;
}

/** The verdict on a signed-in person: admitted with their identity, or refused with why (shown to them). */
export type Admission = { admitted: true; identity: OidcIdentity } | { admitted: false; reason: string };

function claimHolds(value: unknown, wanted: string): boolean {
  if (typeof value === "string") return value === wanted;
  if (Array.isArray(value)) return value.some((v) => v === wanted);
  return false;
}

/**
 * Applies the shelf's rules to checked claims. A domain admits only a verified e-mail address
 * (`email_verified` true); a required claim must equal the value or, for an array, hold it; with
 * both set, both must hold.
 * @example admit({ iss, sub: "1", aud, exp, email: "ana@acme.example", email_verified: true }, settings) // => { admitted: true, … }
 */
export function admit(claims: IdTokenClaims, settings: OidcSettings): Admission {
  const email = typeof claims.email === "string" && claims.email.includes("@") ? claims.email.toLowerCase() : null;
  const identity: OidcIdentity = { issuer: claims.iss, subject: claims.sub, email };
  if (settings.allowedDomains.length > 0) {
    // Some providers send "true" as a string.
    const verified = claims.email_verified === true || claims.email_verified === "true";
    if (email === null || !verified) return { admitted: false, reason: "Your account has no verified e-mail address, which this shelf needs." };
    const domain = email.slice(email.lastIndexOf("@") + 1);
    if (!settings.allowedDomains.includes(domain)) return { admitted: false, reason: `Accounts at ${domain} may not read this shelf.` };
  }
  if (settings.requiredClaim && !claimHolds(claims[settings.requiredClaim.name], settings.requiredClaim.value)) {
    return { admitted: false, reason: "Your account is not in the group that may read this shelf." };
  }
  return { admitted: true, identity };
}
