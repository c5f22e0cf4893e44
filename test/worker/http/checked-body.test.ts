// Unit tests of src/worker/http/checked-body.ts: small objects checked before the answer, large
// ones streamed with the last chunk held back until the digest matches, windows cut from either.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { BodyMismatchError, CHECKED_BEFORE_ANSWER_BYTES, checkedBody } from "../../../src/worker/http/checked-body.ts";

/**
 * A stream of `bytes` in chunks of `chunk` bytes, counting how many chunks were pulled: a plain
 * stream, or a byte stream like an R2 body (read in larger pieces).
 */
function chunked(bytes: Uint8Array, chunk: number, pulled = { count: 0 }, kind: "plain" | "bytes" = "plain"): ReadableStream<Uint8Array> {
  let at = 0;
  const pull = (controller: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) => {
    if (at >= bytes.byteLength) return controller.close();
    pulled.count++;
    controller.enqueue(bytes.slice(at, at + chunk));
    at += chunk;
  };
  if (kind === "bytes") return new ReadableStream({ type: "bytes", pull }) as ReadableStream<Uint8Array>;
  return new ReadableStream<Uint8Array>({ pull }, { highWaterMark: 0 });
}

function pattern(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + 7) & 0xff;
  return out;
}

async function drain(body: Uint8Array | ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return body instanceof Uint8Array ? body : new Uint8Array(await new Response(body).arrayBuffer());
}

describe.each(["plain", "bytes"] as const)("checkedBody over a %s stream", (kind) => {
  const small = pattern(5000);
  const large = pattern(CHECKED_BEFORE_ANSWER_BYTES * 3 + 123);

  it("returns a small object's bytes (or a window of them) once they match", async () => {
    const expected = { sha256: await sha256Hex(small), size: small.byteLength };
    expect(await checkedBody(chunked(small, 1000, undefined, kind), expected, { offset: 0, length: small.byteLength })).toEqual(small);
    expect(await checkedBody(chunked(small, 1000, undefined, kind), expected, { offset: 999, length: 3 })).toEqual(small.slice(999, 1002));
  });

  it("rejects a small object that does not match before anything is answered", async () => {
    const expected = { sha256: await sha256Hex(small), size: small.byteLength };
    const damaged = small.slice();
    damaged[4000] = damaged[4000]! ^ 1;
    for (const stored of [damaged, small.slice(0, 4999), new Uint8Array([...small, 0])]) {
      await expect(checkedBody(chunked(stored, 1000, undefined, kind), expected, { offset: 0, length: 10 })).rejects.toBeInstanceOf(BodyMismatchError);
    }
  });

  it("streams a large object (or a window of it) that matches", async () => {
    const expected = { sha256: await sha256Hex(large), size: large.byteLength };
    const body = await checkedBody(chunked(large, 4096, undefined, kind), expected, { offset: 0, length: large.byteLength });
    expect(body).toBeInstanceOf(ReadableStream);
    expect(await sha256Hex(await drain(body))).toBe(expected.sha256);
    const window = { offset: CHECKED_BEFORE_ANSWER_BYTES + 5, length: 10_000 };
    const part = await drain(await checkedBody(chunked(large, 4096, undefined, kind), expected, window));
    expect(await sha256Hex(part)).toBe(await sha256Hex(large.slice(window.offset, window.offset + window.length)));
  });

  it("holds back the last chunk of a large object until the digest matches, and errors instead of completing a wrong body", async () => {
    const expected = { sha256: await sha256Hex(large), size: large.byteLength };
    for (const stored of [
      (() => {
        const d = large.slice();
        d[d.byteLength - 1] = d[d.byteLength - 1]! ^ 1; // the very last byte
        return d;
      })(),
      large.slice(0, large.byteLength - 1),
      (() => {
        const longer = new Uint8Array(large.byteLength + 1);
        longer.set(large);
        return longer;
      })(),
    ]) {
      const body = await checkedBody(chunked(stored, 4096, undefined, kind), expected, { offset: 0, length: large.byteLength });
      const reader = (body as ReadableStream<Uint8Array>).getReader();
      let received = 0;
      const failure = await (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return null;
          received += next.value.byteLength;
        }
      })().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(BodyMismatchError);
      expect(received).toBeLessThan(large.byteLength);
    }
  });

  it("does not read ahead of the client beyond the held-back chunk", async () => {
    const expected = { sha256: await sha256Hex(large), size: large.byteLength };
    const pulled = { count: 0 };
    const body = (await checkedBody(chunked(large, 4096, pulled, kind), expected, { offset: 0, length: large.byteLength })) as ReadableStream<Uint8Array>;
    // The read-ahead, then one piece (a chunk, or 64 KiB of a byte stream) past what was handed out.
    expect(pulled.count * 4096).toBe(CHECKED_BEFORE_ANSWER_BYTES);
    const reader = body.getReader();
    await reader.read();
    expect(pulled.count * 4096).toBeLessThanOrEqual(CHECKED_BEFORE_ANSWER_BYTES + (kind === "bytes" ? 64 * 1024 : 4096));
    await reader.cancel();
  });
});
