// Unit tests of src/worker/http/file-response.ts: 304, 206, 416, HEAD and storage failures, and
// bodies checked against the digest they advertise, without R2.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { CHECKED_BEFORE_ANSWER_BYTES } from "../../../src/worker/http/checked-body.ts";
import { ShelfError } from "../../../src/worker/errors.ts";
import { plainErrorResponse } from "../../../src/worker/http/errors.ts";
import { type ByteRange, serveFile, type StoredBytes } from "../../../src/worker/http/file-response.ts";

/**
 * A stored object: `stored` are the bytes storage holds (the manifest names `bytes`); `checksum`
 * is the SHA-256 storage certified for them at upload: theirs ("own", the default), the
 * manifest's whatever they are ("manifest": bytes altered at rest), or none.
 */
async function storedFile(bytes: Uint8Array, stored: Uint8Array | null = bytes, calls: Array<unknown> = [], checksum: "own" | "manifest" | "none" = "own") {
  const sha256 = await sha256Hex(bytes);
  const storage: StoredBytes = {
    async open(range?: ByteRange) {
      calls.push({ open: range });
      if (stored === null) return null;
      const slice = range ? stored.slice(range.offset, range.offset + range.length) : stored;
      const certified = checksum === "none" ? null : checksum === "manifest" ? sha256 : await sha256Hex(stored);
      return { body: new Response(slice).body!, size: stored.byteLength, sha256: certified };
    },
    async head() {
      calls.push("head");
      return stored === null ? null : { size: stored.byteLength, sha256: await sha256Hex(stored) };
    },
  };
  return { path: "references/n.md", sha256, size: bytes.byteLength, ...storage };
}

async function storageError(promise: Promise<Response>): Promise<Response> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ShelfError);
  return plainErrorResponse(err as ShelfError);
}

const TEN = new TextEncoder().encode("0123456789");

describe("serveFile", () => {
  it("answers a matching conditional GET with 304 without opening storage", async () => {
    const calls: unknown[] = [];
    const file = await storedFile(TEN, TEN, calls);
    const res = await serveFile(new Request("https://s/x", { headers: { "If-None-Match": `W/"${file.sha256}"` } }), file);
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(`"${file.sha256}"`);
    expect(calls).toEqual([]);
  });

  it("serves a range as 206 with Content-Range and the full-representation digest, cut from a checked read of the whole object", async () => {
    const calls: unknown[] = [];
    const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=2-4" } }), await storedFile(TEN, TEN, calls));
    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe("bytes 2-4/10");
    expect(res.headers.get("Content-Length")).toBe("3");
    expect(await res.text()).toBe("234");
    expect(calls).toEqual([{ open: undefined }]);
  });

  it("ignores Range when If-Range names another version", async () => {
    const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=2-4", "If-Range": '"old"' } }), await storedFile(TEN));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("0123456789");
  });

  it("throws a 416 carrying Content-Range for an unsatisfiable range", async () => {
    const res = await storageError(serveFile(new Request("https://s/x", { headers: { Range: "bytes=50-" } }), await storedFile(TEN)));
    expect(res.status).toBe(416);
    expect(res.headers.get("Content-Range")).toBe("bytes */10");
  });

  it("answers HEAD from a head of the object, without reading its bytes", async () => {
    const calls: unknown[] = [];
    const res = await serveFile(new Request("https://s/x", { method: "HEAD" }), await storedFile(TEN, TEN, calls));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe("10");
    expect(calls).toEqual(["head"]);
  });

  it.each([
    ["missing", null],
    ["of another size", new TextEncoder().encode("012345678")],
    ["of another digest", new TextEncoder().encode("0123456780")],
  ])("answers HEAD with 503 when the object is %s, as GET does", async (_label, stored) => {
    const file = await storedFile(TEN, stored);
    for (const method of ["HEAD", "GET"]) {
      const res = await storageError(serveFile(new Request("https://s/x", { method }), file));
      expect(res.status, method).toBe(503);
    }
  });

  it.each([
    ["a missing blob", async () => null],
    [
      "a failing read",
      async () => {
        throw new Error("R2 exploded");
      },
    ],
  ])("turns %s into 503 with Retry-After ≤ 30", async (_label, open) => {
    const file = { ...(await storedFile(TEN)), open };
    const res = await storageError(serveFile(new Request("https://s/x"), file));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
    expect(await res.text()).not.toContain("exploded");
  });

  it.each([
    ["other bytes of the same length", new TextEncoder().encode("0123456780")],
    ["truncated bytes", new TextEncoder().encode("01234")],
    ["extra bytes", new TextEncoder().encode("0123456789!")],
  ])("answers 503, never a 200 or 206, when storage returns %s", async (_label, stored) => {
    const file = await storedFile(TEN, stored);
    for (const headers of [{}, { Range: "bytes=0-3" }] as Record<string, string>[]) {
      const res = await storageError(serveFile(new Request("https://s/x", { headers }), file));
      expect(res.status).toBe(503);
    }
  });

  describe("objects over CHECKED_BEFORE_ANSWER_BYTES: R2's upload checksum, hashed only without one", () => {
    const big = new Uint8Array(CHECKED_BEFORE_ANSWER_BYTES + 1000).map((_, i) => i % 251);
    const other = big.map((b, i) => (i === 500 ? b ^ 1 : b));

    it("reads a range as an R2 range when the object's checksum is the manifest's", async () => {
      const calls: unknown[] = [];
      const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=10-19" } }), await storedFile(big, big, calls));
      expect(res.status).toBe(206);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(big.slice(10, 20));
      expect(calls).toEqual([{ open: { offset: 10, length: 10 } }]);
    });

    it("serves bytes altered at rest under the manifest's checksum without hashing them (the accepted risk)", async () => {
      const res = await serveFile(new Request("https://s/x"), await storedFile(big, other, [], "manifest"));
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(other);
    });

    it.each([
      ["another object, with its own checksum", other, "own"],
      ["an object of another size under the manifest's checksum", big.slice(1), "manifest"],
    ] as const)("answers 503 for %s, full or ranged, reading no further", async (_label, stored, checksum) => {
      for (const headers of [{}, { Range: "bytes=0-3" }, { Range: "bytes=-100" }] as Record<string, string>[]) {
        const calls: unknown[] = [];
        const res = await storageError(serveFile(new Request("https://s/x", { headers }), await storedFile(big, stored, calls, checksum)));
        expect(res.status, JSON.stringify(headers)).toBe(503);
        expect(calls.length).toBe(1);
      }
    });

    it("hashes an object that carries no checksum: served when its bytes match, cut off when they do not", async () => {
      const good = await serveFile(new Request("https://s/x"), await storedFile(big, big, [], "none"));
      expect(new Uint8Array(await good.arrayBuffer())).toEqual(big);
      const bad = await serveFile(new Request("https://s/x"), await storedFile(big, other, [], "none"));
      expect(bad.status).toBe(200);
      await expect(bad.arrayBuffer()).rejects.toThrow();
    });

    it("reads the whole object for a range of one that carries no checksum, and checks it", async () => {
      const calls: unknown[] = [];
      const res = await serveFile(new Request("https://s/x", { headers: { Range: "bytes=10-19" } }), await storedFile(big, big, calls, "none"));
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(big.slice(10, 20));
      expect(calls).toEqual([{ open: { offset: 10, length: 10 } }, { open: undefined }]);
      const tail = { Range: `bytes=${CHECKED_BEFORE_ANSWER_BYTES + 10}-${CHECKED_BEFORE_ANSWER_BYTES + 19}` };
      const bad = await serveFile(new Request("https://s/x", { headers: tail }), await storedFile(big, other, [], "none"));
      await expect(bad.arrayBuffer()).rejects.toThrow();
    });
  });
});
