// When OAuth is on (config.ts), and that turning it on leaves every other way into a private shelf
// as it was: a read token as a Bearer header, a capability URL, the pages' sign-in cookie.
import { describe, expect, it } from "vitest";
import { type SessionEnv, sessionValue } from "../../../src/worker/auth/session.ts";
import { canonicalOrigin, oauthSettings } from "../../../src/worker/oauth/config.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { oauthEnv, ORIGIN, READ_TOKEN, shelfFetch, testEnv } from "./helpers.ts";

describe("canonicalOrigin", () => {
  it("takes an https origin (or http on loopback), canonicalised; nothing with a path, query, credentials or remote http", () => {
    expect(canonicalOrigin("https://Skills.Example/")).toBe("https://skills.example");
    expect(canonicalOrigin("https://skills.example:443")).toBe("https://skills.example");
    expect(canonicalOrigin("http://localhost:8787")).toBe("http://localhost:8787");
    expect(canonicalOrigin("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    for (const bad of [
      "http://skills.example",
      "https://skills.example/mcp",
      "https://u:p@skills.example",
      "https://skills.example/?x=1",
      "skills.example",
      "",
    ]) {
      expect(canonicalOrigin(bad), bad).toBeNull();
    }
  });
});

describe("oauthSettings", () => {
  const kv = testEnv.OAUTH_KV;
  it("is on only for a private shelf with an issuer and OAUTH_KV", () => {
    expect(oauthSettings({ SHELF_VISIBILITY: "private", SHELF_OAUTH_ISSUER: "https://s.example", OAUTH_KV: kv })).toEqual({ issuer: "https://s.example", kv });
    expect(oauthSettings({ SHELF_VISIBILITY: "public", SHELF_OAUTH_ISSUER: "https://s.example", OAUTH_KV: kv })).toBeNull();
    expect(oauthSettings({ SHELF_OAUTH_ISSUER: "https://s.example", OAUTH_KV: kv })).toBeNull();
    expect(oauthSettings({ SHELF_VISIBILITY: "private", OAUTH_KV: kv })).toBeNull();
    expect(oauthSettings({ SHELF_VISIBILITY: "private", SHELF_OAUTH_ISSUER: "https://s.example" })).toBeNull();
    expect(oauthSettings({ SHELF_VISIBILITY: "private", SHELF_OAUTH_ISSUER: "http://s.example", OAUTH_KV: kv })).toBeNull();
  });
});

describe("with OAuth on, the other ways in still work", () => {
  it("a read token, a capability URL and the pages' cookie read; nothing reads without one", async () => {
    await publishFixtureShelf(testEnv, [{ name: "alpha", description: "A private skill." }]);
    const bindings = { ...(await oauthEnv()), SHELF_CAPABILITY_URLS: "on" };
    const fetchFn = shelfFetch(bindings);
    expect((await fetchFn(`${ORIGIN}/skills/alpha/SKILL.md`, { headers: { Authorization: `Bearer ${READ_TOKEN}` } })).status).toBe(200);
    expect((await fetchFn(`${ORIGIN}/c/${READ_TOKEN}/skills/alpha/SKILL.md`)).status).toBe(200);
    const session = await sessionValue(READ_TOKEN, bindings as SessionEnv);
    const page = await fetchFn(`${ORIGIN}/ui/skills/alpha`, { headers: { Accept: "text/html", Cookie: `skillshelf_read=${encodeURIComponent(session!)}` } });
    expect(page.status).toBe(200);
    expect((await fetchFn(`${ORIGIN}/skills/alpha/SKILL.md`)).status).toBe(401);
  });
});
