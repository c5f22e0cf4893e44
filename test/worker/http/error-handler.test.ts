// Unit tests of src/worker/http/error-handler.ts and errors.ts: whatever is thrown, classified once
// (src/worker/errors.ts) and answered as the plain JSON error.
import { describe, expect, it } from "vitest";
import { classify, ShelfError } from "../../../src/worker/errors.ts";
import { handleError } from "../../../src/worker/http/error-handler.ts";
import { NotOnShelfError, SkillBlockedError } from "../../../src/worker/shelf/errors.ts";
import { MissingObjectError, StorageUnavailableError } from "../../../src/worker/storage/errors.ts";

const ADVISORY = {
  advisory_id: "ADV-1",
  name: "bad",
  source: "first-party",
  severity: "critical",
  hidden_issue: "exfiltrates secrets",
  reference: null,
  tree_hash: null,
};

async function answer(err: unknown): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = handleError(err as Error, undefined as never);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe("handleError", () => {
  it("answers NotOnShelfError with 404 naming what was asked for", async () => {
    const { status, headers, body } = await answer(NotOnShelfError.file("references/x.md", "code-review"));
    expect(status).toBe(404);
    expect(body).toEqual({
      error: "not_found",
      message: "File 'references/x.md' of skill 'code-review' is not on this shelf. Fetch the index to see what is.",
    });
    expect(headers.get("Cache-Control")).toBe("no-store");
    expect(headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
  });

  it("answers SkillBlockedError with 410 carrying the advisory", async () => {
    const { status, body } = await answer(new SkillBlockedError("bad", ADVISORY));
    expect(status).toBe(410);
    expect(body.error).toBe("blocked");
    expect(body.message).toBe("Skill 'bad' is blocked by advisory ADV-1 (critical): exfiltrates secrets. Do not use it.");
    expect(body.advisory).toEqual(ADVISORY);
  });

  it.each([
    ["a storage failure", new StorageUnavailableError("R2 read of pointer.json failed: secret detail")],
    ["a missing object", new MissingObjectError("records/secret-detail")],
  ])("answers %s with 503 and Retry-After, never its text", async (_label, err) => {
    const { status, headers, body } = await answer(err);
    expect(status).toBe(503);
    expect(headers.get("Retry-After")).toBe("5");
    expect(JSON.stringify(body)).not.toContain("secret");
  });

  it("answers a ShelfError with its code, status, headers and members", async () => {
    const error = new ShelfError("unauthorized", 401, "no", { headers: { "WWW-Authenticate": 'Bearer realm="x"' }, members: { extra: 1 } });
    const { status, headers, body } = await answer(error);
    expect(status).toBe(401);
    expect(headers.get("WWW-Authenticate")).toBe('Bearer realm="x"');
    expect(body).toEqual({ error: "unauthorized", message: "no", extra: 1 });
  });

  it("answers anything else with a 500 that does not echo it", async () => {
    const { status, body } = await answer(new TypeError("undefined is not a function: secret"));
    expect(status).toBe(500);
    expect(body).toEqual({ error: "internal", message: "Internal error; it has been logged." });
    expect(classify(new Error("x"))).toBeInstanceOf(ShelfError);
  });
});
