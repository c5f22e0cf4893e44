// Unit tests for the pure HTTP helpers in src/worker/http (no storage involved).
import { describe, expect, it } from "vitest";
import { HTTPException } from "hono/http-exception";
import { etagFor, ifNoneMatchMatches } from "../../../src/worker/http/conditional.ts";
import { decideRange } from "../../../src/worker/http/range.ts";
import { reprDigest } from "../../../src/worker/http/digest.ts";
import { servedTypeFor } from "../../../src/worker/http/content-type.ts";
import { isPlausibleFilePath, isPlausibleSkillName } from "../../../src/worker/http/paths.ts";
import { serveFile } from "../../../src/worker/http/file-response.ts";
import { storageUnavailable } from "../../../src/worker/http/errors.ts";

const EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("If-None-Match (weak comparison)", () => {
  const etag = etagFor("abc");
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", W/"abc"', true],
    [' "x" ,"abc" ', true],
    ["*", true],
    ['"abcd"', false],
    ['"ab"', false],
    ["", false],
    ["abc", false],
  ])("%s → %s", (header, want) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(want);
  });
  it("never matches without the header", () => {
    expect(ifNoneMatchMatches(null, etag)).toBe(false);
  });
  it("refuses to mint a tag containing a quote", () => {
    expect(() => etagFor('a"b')).toThrow(/entity-tag/);
  });
});

describe("Range", () => {
  it.each([
    ["bytes=0-3", 10, { kind: "partial", offset: 0, length: 4, contentRange: "bytes 0-3/10" }],
    ["bytes=5-", 10, { kind: "partial", offset: 5, length: 5, contentRange: "bytes 5-9/10" }],
    ["bytes=-3", 10, { kind: "partial", offset: 7, length: 3, contentRange: "bytes 7-9/10" }],
    ["bytes=-30", 10, { kind: "partial", offset: 0, length: 10, contentRange: "bytes 0-9/10" }],
    ["bytes=8-100", 10, { kind: "partial", offset: 8, length: 2, contentRange: "bytes 8-9/10" }],
    ["bytes=10-", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=-0", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=0-", 0, { kind: "unsatisfiable", contentRange: "bytes */0" }],
    ["bytes=99999999999999999999-", 10, { kind: "unsatisfiable", contentRange: "bytes */10" }],
    ["bytes=0-1,3-4", 10, { kind: "full" }],
    ["items=0-1", 10, { kind: "full" }],
    ["bytes=5-2", 10, { kind: "full" }],
    ["bytes=-", 10, { kind: "full" }],
    ["", 10, { kind: "full" }],
  ])("%s of %i bytes", (header, size, want) => {
    expect(decideRange(header, size)).toEqual(want);
  });
});

describe("Repr-Digest", () => {
  it("is the base64 of the SHA-256 bytes (RFC 9530 example digest of empty content)", () => {
    // RFC 9530 §B: the SHA-256 of an empty representation is 47DEQpj8…FU=.
    expect(reprDigest(EMPTY_SHA)).toBe("sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
  });
  it("refuses anything but lowercase hex", () => {
    expect(() => reprDigest(EMPTY_SHA.toUpperCase())).toThrow(/hex SHA-256/);
  });
});

describe("content-type policy", () => {
  it.each([
    ["SKILL.md", "text/markdown", "text/markdown; charset=utf-8", undefined],
    ["references/a.json", "application/json", "application/json", undefined],
    ["scripts/run.sh", "text/x-shellscript", "text/plain; charset=utf-8", undefined],
    ["scripts/run.py", undefined, "text/plain; charset=utf-8", undefined],
    ["scripts/tool.bin", "application/octet-stream", "application/octet-stream", 'attachment; filename="tool.bin"'],
    ["assets/diagram.svg", "image/svg+xml", "text/plain; charset=utf-8", undefined],
    ["assets/page.html", "text/html", "text/plain; charset=utf-8", undefined],
    ["assets/app.js", "text/javascript", "text/plain; charset=utf-8", undefined],
    ["assets/logo.png", "image/png", "image/png", undefined],
    ["assets/blob.dat", "application/octet-stream", "application/octet-stream", 'attachment; filename="blob.dat"'],
    ["assets/notes.rst", "text/x-rst", "text/plain; charset=utf-8", undefined],
    ["code-review.tar.gz", undefined, "application/gzip", undefined],
    ["code-review.zip", undefined, "application/zip", undefined],
  ])("%s (%s) → %s", (path, media, type, disposition) => {
    expect(servedTypeFor(path, media)).toEqual(disposition ? { contentType: type, disposition } : { contentType: type });
  });
});

describe("path plausibility", () => {
  it.each(["code-review", "a", "a1-b2", "x".repeat(64)])("accepts skill name %s", (name) => {
    expect(isPlausibleSkillName(name)).toBe(true);
  });
  it.each(["", "..", "A", "-a", "a-", "a--b", "a/b", "a\\b", "a\0", "x".repeat(65), "a.b"])("rejects skill name %j", (name) => {
    expect(isPlausibleSkillName(name)).toBe(false);
  });
  it.each(["SKILL.md", "references/deep/er/x.md", "assets/a b.png"])("accepts file path %s", (p) => {
    expect(isPlausibleFilePath(p)).toBe(true);
  });
  it.each(["", "../x", "a/../b", "./a", "a//b", "/abs", "a\\b", "a\0b", "a\nb", "x".repeat(1025)])("rejects file path %j", (p) => {
    expect(isPlausibleFilePath(p)).toBe(false);
  });
});

describe("serveFile", () => {
  const bytes = new TextEncoder().encode("0123456789");
  const file = { path: "references/n.md", sha256: "a".repeat(64), size: 10 };
  const opts = { cache: "path" as const, visibility: "public" as const };
  function opener(calls: Array<unknown>) {
    return async (range: { offset: number; length: number } | undefined) => {
      calls.push(range);
      const slice = range ? bytes.slice(range.offset, range.offset + range.length) : bytes;
      return new Response(slice).body;
    };
  }

  it("answers a matching conditional GET with 304 without opening storage", async () => {
    const calls: unknown[] = [];
    const res = await serveFile(new Request("https://s/x", { headers: { "If-None-Match": `W/"${"a".repeat(64)}"` } }), file, opener(calls), opts);
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(`"${"a".repeat(64)}"`);
    expect(calls).toEqual([]);
  });

  it("serves a range as 206 with Content-Range and the full-representation digest", async () => {
    const calls: unknown[] = [];
    const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=2-4" } }), file, opener(calls), opts);
    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe("bytes 2-4/10");
    expect(res.headers.get("Content-Length")).toBe("3");
    expect(await res.text()).toBe("234");
    expect(calls).toEqual([{ offset: 2, length: 3 }]);
  });

  it("ignores Range when If-Range names another version", async () => {
    const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=2-4", "If-Range": '"old"' } }), file, opener([]), opts);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("0123456789");
  });

  it("throws a 416 carrying Content-Range for an unsatisfiable range", async () => {
    const err = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=50-" } }), file, opener([]), opts).catch((e) => e);
    expect(err).toBeInstanceOf(HTTPException);
    const res = (err as HTTPException).getResponse();
    expect(res.status).toBe(416);
    expect(res.headers.get("Content-Range")).toBe("bytes */10");
  });

  it("answers HEAD without opening storage", async () => {
    const calls: unknown[] = [];
    const res = await serveFile(new Request("https://s/x", { method: "HEAD" }), file, opener(calls), opts);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe("10");
    expect(calls).toEqual([]);
  });

  it.each([
    ["a missing blob", async () => null],
    ["a failing read", async () => { throw new Error("R2 exploded"); }],
  ])("turns %s into 503 with Retry-After ≤ 30", async (_label, open) => {
    const err = await serveFile(new Request("https://s/x"), file, open, opts).catch((e) => e);
    const res = (err as HTTPException).getResponse();
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
    expect(await res.text()).not.toContain("exploded");
  });

  it("clamps Retry-After to 30 s", () => {
    expect(storageUnavailable(300).getResponse().headers.get("Retry-After")).toBe("30");
  });
});
