// Publish-token authentication for the admin API. The Worker holds only the token's SHA-256
// (the PUBLISH_TOKEN_SHA256 secret); a presented token is hashed and the two digests compared in
// constant time, so no secret string is ever held or compared. Kept apart so it can be audited alone.
import type { MiddlewareHandler } from "hono";
import { fromHex, isSha256Hex, sha256Hex } from "../../core/skill/hash.ts";
import { bearerToken } from "../auth/bearer.ts";
import { adminError } from "./errors.ts";

/** The secret the admin API reads. */
export interface PublishAuthBindings {
  PUBLISH_TOKEN_SHA256?: string;
}

/** Sent with every 401 so clients know which credential is wanted. */
export const ADMIN_REALM = 'Bearer realm="skillshelf-admin"';

/**
 * Middleware: lets a request through only with `Authorization: Bearer <token>` whose SHA-256
 * equals PUBLISH_TOKEN_SHA256. Answers 401 (with WWW-Authenticate) before any handler runs,
 * so an unauthenticated call changes nothing; 503 when the secret is not configured.
 * @example admin.use("*", publishAuth())
 */
export function publishAuth(): MiddlewareHandler<{ Bindings: PublishAuthBindings }> {
  return async function publishAuthMiddleware(c, next) {
    const expected = c.env.PUBLISH_TOKEN_SHA256?.trim().toLowerCase();
    if (!expected || !isSha256Hex(expected)) {
      throw adminError(
        "admin_disabled",
        "Publishing is disabled on this Worker: set the PUBLISH_TOKEN_SHA256 secret to the SHA-256 (hex) of a publish token (see docs/deploy.md).",
      );
    }
    const token = bearerToken(c.req.header("Authorization"));
    if (token === null) {
      throw adminError("unauthorized", "The admin API needs Authorization: Bearer <publish token>.", {}, { "WWW-Authenticate": ADMIN_REALM });
    }
    const presented = fromHex(await sha256Hex(token));
    if (!crypto.subtle.timingSafeEqual(presented, fromHex(expected))) {
      throw adminError("unauthorized", "The publish token is not valid for this shelf.", {}, { "WWW-Authenticate": `${ADMIN_REALM}, error="invalid_token"` });
    }
    await next();
  };
}
