// A shelf on 127.0.0.1 for CLI tests that need hostile answers: each path answers from a table
// (JSON, bytes, or a stream of up to N bytes that stops when the client goes away), 404 otherwise.
import { createServer } from "node:http";

export type Answer = { status?: number; json?: unknown; body?: string | Uint8Array; stream?: number };

/** A shelf on 127.0.0.1 that answers `answers[path]` (404 otherwise); `sent` counts streamed bytes. */
export async function fakeShelf(answers: Record<string, Answer>): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server = createServer(async (req, res) => {
    const answer = answers[decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)];
    if (!answer) return void res.writeHead(404).end("{}");
    if (answer.stream !== undefined) {
      // Streams up to `stream` bytes in 64 KiB chunks, stopping when the client goes away.
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let closed = false;
      res.on("close", () => void (closed = true));
      while (!closed && sent < answer.stream) {
        sent += chunk.length;
        if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve).once("close", resolve));
      }
      return void res.end();
    }
    const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.body ?? "");
    res.writeHead(answer.status ?? 200, { "Content-Type": answer.json !== undefined ? "application/json" : "application/octet-stream" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
