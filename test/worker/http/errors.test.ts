// Unit tests of src/worker/http/errors.ts: the error carrier.
import { describe, expect, it } from "vitest";
import { storageUnavailable } from "../../../src/worker/http/errors.ts";

describe("storageUnavailable", () => {
  it("clamps Retry-After to 30 s", () => {
    expect(storageUnavailable(300).getResponse().headers.get("Retry-After")).toBe("30");
  });
});
