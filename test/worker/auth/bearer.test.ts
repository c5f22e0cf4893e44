// Unit tests of src/worker/auth/bearer.ts: the one `Authorization: Bearer` parser.
import { describe, expect, it } from "vitest";
import { bearerToken } from "../../../src/worker/auth/bearer.ts";

describe("bearerToken", () => {
  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER\tabc ", "abc"],
    ["Bearer  sk_0123-._~+/=", "sk_0123-._~+/="],
  ])("reads %j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([undefined, null, "", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "Bearerabc", " Bearer abc"])("refuses %j", (header) => {
    expect(bearerToken(header)).toBeNull();
  });
});
