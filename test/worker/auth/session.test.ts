// The pages' sign-in session (src/worker/auth/session.ts): keyed by SHELF_SESSION_KEY alone (the
// token hashes a session carries are not secret, so a key made from them could be forged by anyone
// who knows one), and refused once it is older than SESSION_MAX_AGE_SECONDS whatever the browser keeps.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { SESSION_MAX_AGE_SECONDS, sessionTokenHash, sessionValue } from "../../../src/worker/auth/session.ts";

const TOKEN = "sk_session_test_token_0123456789abcdef";
const KEYED = { SHELF_SESSION_KEY: "a-long-random-secret-for-the-session-test" };
const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);

describe("sign-in sessions", () => {
  it("are made only with SHELF_SESSION_KEY: never from the token hashes, which are not secret", async () => {
    const hashes = { PUBLISH_TOKEN_SHA256: await sha256Hex("publish"), READ_TOKEN_SHA256: await sha256Hex(TOKEN) };
    expect(await sessionValue(TOKEN, hashes as never, NOW)).toBeNull();
    const value = await sessionValue(TOKEN, KEYED, NOW);
    expect(value).toMatch(/^s1\.[0-9a-f]{64}\.\d+\.[A-Za-z0-9_-]{43}$/);
    // A session made under another key (as one derived from a hash would be) is refused.
    expect(await sessionTokenHash(value!, { SHELF_SESSION_KEY: "another-secret" }, NOW)).toBeNull();
    expect(await sessionTokenHash(value!, hashes as never, NOW)).toBeNull();
  });

  it("vouch for the token's hash until SESSION_MAX_AGE_SECONDS after sign-in, and not after", async () => {
    const value = (await sessionValue(TOKEN, KEYED, NOW))!;
    const hash = await sha256Hex(TOKEN);
    expect(await sessionTokenHash(value, KEYED, NOW)).toBe(hash);
    expect(await sessionTokenHash(value, KEYED, NOW + SESSION_MAX_AGE_SECONDS * 1000)).toBe(hash);
    expect(await sessionTokenHash(value, KEYED, NOW + (SESSION_MAX_AGE_SECONDS + 1) * 1000)).toBeNull();
    // Issued in the future (past a minute of clock skew): not one this Worker made just now.
    expect(await sessionTokenHash(value, KEYED, NOW - 120_000)).toBeNull();
  });

  it("refuse a raw token, a changed issue time and a changed hash", async () => {
    const value = (await sessionValue(TOKEN, KEYED, NOW))!;
    const [, hash, issued, mac] = value.split(".");
    expect(await sessionTokenHash(TOKEN, KEYED, NOW)).toBeNull();
    expect(await sessionTokenHash(`s1.${hash}.${Number(issued) + 3600}.${mac}`, KEYED, NOW + 3_600_000)).toBeNull();
    expect(await sessionTokenHash(`s1.${await sha256Hex("other")}.${issued}.${mac}`, KEYED, NOW)).toBeNull();
  });
});
