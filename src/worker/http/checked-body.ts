// A response body checked against the digest and size the manifest advertises for it: bytes that
// do not match never complete a response. Small objects are checked before the answer starts (a
// clean 503); larger ones are hashed as they stream, their last chunk held back until it matches.
import { toHex } from "../../core/skill/hash.ts";

/**
 * Objects up to this size are read whole and hashed before the status is chosen; larger ones are
 * believed on R2's stored SHA-256 checksum and hashed here only when they carry none.
 */
export const CHECKED_BEFORE_ANSWER_BYTES = 64 * 1024;

/**
 * Bytes asked of a byte stream per read: each chunk costs a hash write, a slice and a hand-off
 * whatever its size, and R2 may deliver small chunks, so big objects are read in pieces this large.
 */
const READ_PIECE_BYTES = 64 * 1024;

/** What the bytes must be: the manifest's digest and size. */
export interface ExpectedBytes {
  sha256: string;
  size: number;
}

/** The part of the object to emit (the whole object is read and hashed either way). */
export interface BodyWindow {
  offset: number;
  length: number;
}

/** The stored bytes are not the ones the manifest names (wrong, truncated or extra bytes). */
export class BodyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BodyMismatchError";
  }
}

/** Hashes and counts an object's bytes as they pass, and says at the end whether they match. */
class DigestCheck {
  readonly #expected: ExpectedBytes;
  readonly #digest = new crypto.DigestStream("SHA-256");
  readonly #writer = this.#digest.getWriter();
  read = 0;

  constructor(expected: ExpectedBytes) {
    this.#expected = expected;
    // Rejects when the check is abandoned; finish() awaits it when the check completes.
    this.#digest.digest.catch(() => {});
  }

  /** Counts and hashes one chunk. Throws BodyMismatchError as soon as the object is too long. */
  update(chunk: Uint8Array): void {
    this.read += chunk.byteLength;
    if (this.read > this.#expected.size) throw new BodyMismatchError(`blob ${this.#expected.sha256} is longer than its ${this.#expected.size} bytes`);
    // Not awaited: the digest consumes the chunk as it is written, and finish() awaits them all.
    this.#writer.write(chunk).catch(() => {});
  }

  /** Throws BodyMismatchError unless exactly the expected bytes went through. */
  async finish(): Promise<void> {
    await this.#writer.close();
    const got = toHex(new Uint8Array(await this.#digest.digest));
    if (this.read !== this.#expected.size) throw new BodyMismatchError(`blob ${this.#expected.sha256} has ${this.read} bytes, not ${this.#expected.size}`);
    if (got !== this.#expected.sha256) throw new BodyMismatchError(`blob ${this.#expected.sha256} hashes to ${got}`);
  }

  abort(reason: unknown): void {
    this.#writer.abort(reason).catch(() => {});
  }
}

/** Reads a stream in pieces of READ_PIECE_BYTES where it is a byte stream (R2 bodies are), else chunk by chunk. */
interface PieceReader {
  /** The next chunk (at most `limit` bytes from a byte stream); null at the end. */
  read(limit: number): Promise<Uint8Array | null>;
  cancel(reason: unknown): void;
}

function pieceReader(source: ReadableStream<Uint8Array>): PieceReader {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = source.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (only tests build those): read its chunks as they come.
  }
  if (byob === undefined) {
    const reader = source.getReader();
    return {
      read: async () => {
        const next = await reader.read();
        return next.done ? null : next.value;
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    };
  }
  const pieces = byob;
  let ended = false;
  return {
    async read(limit) {
      if (ended) return null;
      // readAtLeast (workerd) waits until the buffer is full, or the stream ends.
      const next = await pieces.readAtLeast(limit, new Uint8Array(limit));
      if (next.done) ended = true;
      return next.value !== undefined && next.value.byteLength > 0 ? next.value : ended ? null : new Uint8Array(0);
    },
    cancel: (reason) => pieces.cancel(reason).catch(() => {}),
  };
}

/**
 * True when `bytes` hash to `sha256` (lowercase hex), hashed in one call: the check of a small
 * object read whole (src/worker/http/file-response.ts).
 * @example await hashesTo(new TextEncoder().encode("a"), "ca978112…") // => true
 */
export async function hashesTo(bytes: Uint8Array, sha256: string): Promise<boolean> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))) === sha256;
}

/** The part of `chunk` (which starts at `position` in the object) that falls inside `window`. */
function windowSlice(chunk: Uint8Array, position: number, window: BodyWindow): Uint8Array | null {
  const start = Math.max(window.offset, position);
  const end = Math.min(window.offset + window.length, position + chunk.byteLength);
  if (end <= start) return null;
  return start === position && end === position + chunk.byteLength ? chunk : chunk.subarray(start - position, end - position);
}

/**
 * The bytes of `window` of an object streamed from `source`, checked against `expected`. Reads
 * ahead up to CHECKED_BEFORE_ANSWER_BYTES: an object that ends within that is checked now and
 * returned as bytes (a mismatch rejects with BodyMismatchError, so the caller answers 503).
 * Otherwise returns a stream that hashes every byte as it passes, holds back the last chunk it
 * would emit until the whole object has been read and matched, and errors instead of emitting
 * it when the object does not match, so a client never receives a complete wrong body.
 * @example const body = await checkedBody(stream, { sha256, size }, { offset: 0, length: size })
 */
export async function checkedBody(
  source: ReadableStream<Uint8Array>,
  expected: ExpectedBytes,
  window: BodyWindow,
): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  const reader = pieceReader(source);
  const check = new DigestCheck(expected);
  // Window pieces read but not yet emitted; the last one waits for the digest.
  const pending: Uint8Array[] = [];
  // No bigger than what is left of the object, plus one byte to notice extra bytes.
  const nextPiece = () => reader.read(Math.min(READ_PIECE_BYTES, expected.size - check.read + 1));
  const take = (chunk: Uint8Array) => {
    const position = check.read;
    check.update(chunk);
    const piece = windowSlice(chunk, position, window);
    if (piece !== null) pending.push(piece);
  };
  const fail = (err: unknown) => {
    check.abort(err);
    reader.cancel(err);
  };

  try {
    while (check.read < CHECKED_BEFORE_ANSWER_BYTES) {
      const next = await nextPiece();
      if (next === null) {
        await check.finish();
        return concat(pending, window.length);
      }
      take(next);
    }
  } catch (err) {
    fail(err);
    throw err;
  }

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (pending.length < 2) {
            const next = await nextPiece();
            if (next === null) {
              await check.finish();
              for (const piece of pending.splice(0)) controller.enqueue(piece);
              controller.close();
              return;
            }
            take(next);
          }
          // Everything but the last piece may go.
          for (const piece of pending.splice(0, pending.length - 1)) controller.enqueue(piece);
        } catch (err) {
          console.error("blob bytes do not match the manifest; response aborted", expected.sha256, err);
          fail(err);
          controller.error(err);
        }
      },
      cancel(reason) {
        fail(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1 && pieces[0]!.byteLength === length) return pieces[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}
