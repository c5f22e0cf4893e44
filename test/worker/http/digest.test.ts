// Unit tests of src/worker/http/digest.ts: the Repr-Digest header value.
import { describe, expect, it } from "vitest";
import { reprDigest } from "../../../src/worker/http/digest.ts";

const EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("Repr-Digest", () => {
  it("is the base64 of the SHA-256 bytes (RFC 9530 example digest of empty content)", () => {
    // RFC 9530 §B: the SHA-256 of an empty representation is 47DEQpj8…FU=.
    expect(reprDigest(EMPTY_SHA)).toBe("sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
  });
  it("refuses anything but lowercase hex", () => {
    expect(() => reprDigest(EMPTY_SHA.toUpperCase())).toThrow(/hex SHA-256/);
  });
});
