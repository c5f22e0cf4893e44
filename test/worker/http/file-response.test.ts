// Unit tests of src/worker/http/file-response.ts: 304, 206, 416, HEAD and storage failures, without R2.
import { describe, expect, it } from "vitest";
import { HTTPException } from "hono/http-exception";
import { serveFile } from "../../../src/worker/http/file-response.ts";

describe("serveFile", () => {
  const bytes = new TextEncoder().encode("0123456789");
  const file = { path: "references/n.md", sha256: "a".repeat(64), size: 10 };
  const opts = {};
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
});
