// URL mistakes named at once (issue 27): a --url with a path (the pages' /ui/, /mcp, /v1) says the
// URL must be the shelf's root, for every command taking --url; https:// against a plain-http port
// says the server does not speak https, without the admin client's retries.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "./run-in-process.ts";

const ADMIN: string[][] = [["publish", "--dir", "no-such-build"], ["history"], ["gc"], ["reindex"], ["rollback", "--previous"], ["advise", "ADVISORIES"]];
const CASES = ADMIN.flatMap((args) => ["/ui/", "/mcp", "/v1/shelf"].map((suffix) => ({ name: args[0]!, rest: args.slice(1), suffix })));

describe("--url with a path", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "url-mistakes-"));
    writeFileSync(path.join(dir, "advisories.yaml"), "advisories: []\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(CASES)("$name --url …$suffix: the URL must be the shelf's root, before any request", async ({ name, rest, suffix }) => {
    const args = rest.map((a) => (a === "ADVISORIES" ? path.join(dir, "advisories.yaml") : a));
    const r = await runInProcess([name, "--url", `https://shelf.example.com${suffix}`, ...args], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--url must be the shelf's root (https://shelf.example.com, without ${suffix}); pass --url https://shelf.example.com`);
  });
  it("lock: the root or a capability URL, nothing else", async () => {
    const r = await runInProcess(["lock", "--url", "http://127.0.0.1:9/ui/", "code-review"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--url must be the shelf's root (http://127.0.0.1:9, without /ui/) or its capability URL (…/c/<token>)");
  });
  it("install: the same check on --url", async () => {
    const lock = path.join(dir, "skillshelf-lock.json");
    writeFileSync(lock, JSON.stringify({ schema: "skillshelf.lock/1", shelf: "http://127.0.0.1:9", skills: {} }));
    const r = await runInProcess(["install", "--lock", lock, "--to", path.join(dir, "to"), "--url", "http://127.0.0.1:9/mcp"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--url must be the shelf's root (http://127.0.0.1:9, without /mcp)");
  });
});

describe("https:// against a plain-http port", () => {
  let server: Server;
  let port = 0;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.end("plain http");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([["history"], ["gc"], ["rollback", "--previous"]])("%s says the server does not speak https, at once, exit 1", async (name, ...rest) => {
    const started = Date.now();
    const r = await runInProcess([name, "--url", `https://127.0.0.1:${port}`, ...rest], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`https://127.0.0.1:${port} does not speak https (ERR_SSL_WRONG_VERSION_NUMBER): use http://127.0.0.1:${port} for a local shelf`);
    expect(r.stderr).not.toMatch(/retrying|rerun the command/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
  it("lock says the same", async () => {
    const r = await runInProcess(["lock", "--url", `https://127.0.0.1:${port}`, "code-review"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`does not speak https (ERR_SSL_WRONG_VERSION_NUMBER): use http://127.0.0.1:${port} for a local shelf`);
  });
  it("no request reached the plain-http server as http", () => {
    expect(requests).toBe(0);
  });
});
