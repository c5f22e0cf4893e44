// Reading a request body under a byte cap, for every route group that takes one (the admin API's
// uploads and JSON bodies, the read API's POSTs): counted as it streams in, so a chunked body is
// never buffered whole before the check. Each group words its own refusals.

/** The declared Content-Length of a request that is not chunked, or null. */
export function declaredLength(headers: Headers): number | null {
  const header = headers.get("Content-Length");
  return header !== null && !headers.has("Transfer-Encoding") && /^\d+$/.test(header) ? Number(header) : null;
}

/** The errors a capped read throws: past the cap, and when the client goes away mid-body. */
export interface CappedBodyRefusals {
  tooLarge(): Error;
  incomplete(): Error;
}

/**
 * Reads a body, counting bytes as they stream in; past `max` it stops reading (cancelling the
 * stream) and throws `tooLarge()`; a read that fails (the client went away) throws `incomplete()`.
 * @example const bytes = await readBodyCapped(request.body, 1024, { tooLarge: () => e413, incomplete: () => e400 })
 */
export async function readBodyCapped(body: ReadableStream<Uint8Array> | null, max: number, refusals: CappedBodyRefusals): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw refusals.incomplete();
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw refusals.tooLarge();
    }
    chunks.push(chunk.value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
