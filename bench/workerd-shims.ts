// What workerd has and Node does not, for the benches that run the Worker in Node: import this
// module for its side effects before the Worker's modules (bench/mcp.bench.ts, bench/warm-path.bench.ts).
import { createHash } from "node:crypto";

// workerd's crypto.DigestStream, which the static layout's checked file bodies use; Node has none.
class NodeDigestStream extends WritableStream<Uint8Array> {
  readonly digest: Promise<ArrayBuffer>;
  constructor(_algorithm: string) {
    const hash = createHash("sha256");
    let done!: (value: ArrayBuffer) => void;
    const digest = new Promise<ArrayBuffer>((resolve) => {
      done = resolve;
    });
    super({ write: (chunk) => void hash.update(chunk), close: () => done(new Uint8Array(hash.digest()).buffer) });
    this.digest = digest;
  }
}
(crypto as unknown as { DigestStream: typeof NodeDigestStream }).DigestStream ??= NodeDigestStream;

// workerd's ReadableStreamBYOBReader.readAtLeast (fill the view up to `min` bytes unless the stream ends), same use.
type AtLeast = (min: number, view: Uint8Array) => Promise<{ done: boolean; value: Uint8Array | undefined }>;
const byobProto = ReadableStreamBYOBReader.prototype as unknown as { readAtLeast?: AtLeast };
byobProto.readAtLeast ??= async function (this: ReadableStreamBYOBReader, min: number, view: Uint8Array) {
  // Each read transfers the buffer (detaching the old view), so offsets are kept, not re-read from views.
  const { byteOffset, byteLength } = view;
  let buffer = view.buffer;
  let filled = 0;
  while (filled < min) {
    const next = await this.read(new Uint8Array(buffer, byteOffset + filled, byteLength - filled));
    if (next.value) {
      buffer = next.value.buffer;
      filled += next.value.byteLength;
    }
    if (next.done) return { done: true, value: new Uint8Array(buffer, byteOffset, filled) };
  }
  return { done: false, value: new Uint8Array(buffer, byteOffset, filled) };
};

/**
 * SHA-256 through node:crypto, synchronously, as workerd's crypto.subtle.digest hashes in native
 * code: Node's WebCrypto hands each digest to its thread pool and back (about 20 µs of main-thread
 * bookkeeping for a 1 KiB SKILL.md, which no Worker pays). And workerd's FixedLengthStream (a
 * pass-through that declares the body's length), for bodies over 64 KiB. For the benches that time
 * the Worker's CPU in Node (warm-path, feeds, mcp-list-ab); call before the first request.
 */
export function actLikeWorkerdCrypto(): void {
  const nodeSubtleDigest = crypto.subtle.digest.bind(crypto.subtle);
  (crypto.subtle as { digest: SubtleCrypto["digest"] }).digest = async (algorithm: string | { name: string }, data: BufferSource) => {
    const name = typeof algorithm === "string" ? algorithm : algorithm.name;
    if (name.toUpperCase() !== "SHA-256") return nodeSubtleDigest(algorithm, data);
    const view = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    const digest = createHash("sha256").update(view).digest();
    return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
  };
  (globalThis as { FixedLengthStream?: unknown }).FixedLengthStream ??= class extends TransformStream<Uint8Array, Uint8Array> {
    constructor(_length: number) {
      super();
    }
  };
}
