// skillshelf rollback to a generation gc has collected (issue 11 item 10): the CLI says gc
// collected it and how to bring it back (rebuild, then publish to the same URL), exit 1, instead
// of "upload its manifest first". The Worker's answer is stubbed here with the contract's code;
// test/worker/admin/publish.test.ts checks the Worker really answers it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { run } from "../../../src/cli/commands/rollback.ts";
import { CliError } from "../../../src/cli/lib/cli.ts";
import { ADMIN_ERRORS } from "../../../src/core/publish/contract.ts";
import { runInProcess } from "../run-in-process.ts";

const CURRENT = "a".repeat(64);
const COLLECTED = "b".repeat(64);

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("skillshelf rollback", () => {
  it("to a generation gc collected says so and how to republish it, exit 1", async () => {
    const seen: string[] = [];
    vi.stubGlobal("fetch", async (request: Request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      if (request.method === "GET") return json(200, { current: CURRENT, seq: 3, history: [] });
      return json(ADMIN_ERRORS.generation_collected, { error: "generation_collected", message: `generation ${COLLECTED} was collected by gc` });
    });
    let stdout = "";
    const ctx = {
      args: ["--url", "https://shelf.example.test", COLLECTED],
      stdout: (text: string) => void (stdout += text),
      stderr: () => {},
      interactive: false,
      env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" },
    };
    const error = await run(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
    const message = (error as CliError).message;
    expect(message).toMatch(new RegExp(`^generation ${COLLECTED} was collected by gc`));
    expect(message).toContain("npx skillshelf build <shelf-dir> --out <build-dir>");
    expect(message).toContain("npx skillshelf publish --url https://shelf.example.test --dir <build-dir>");
    expect(message).not.toMatch(/upload its manifest/);
    expect(stdout).toBe(`rolling back to ${COLLECTED} (not in the history)\n`);
    expect(seen).toEqual(["GET /admin/v1/history", "POST /admin/v1/rollback"]);
  });
});

// A stub Worker's admin API in this process; the command line runs against it in this process too.
const GEN = {
  first: `1234abcd${"1".repeat(56)}`,
  second: `1234abcd${"2".repeat(56)}`,
  third: `9999aaaa${"3".repeat(56)}`,
};
const HISTORY = {
  current: GEN.third,
  seq: 3,
  history: [
    { seq: 3, generation: GEN.third, action: "publish", at: "2026-03-03T10:00:00Z" },
    { seq: 2, generation: GEN.second, action: "publish", at: "2026-02-02T10:00:00Z" },
    { seq: 1, generation: GEN.first, action: "publish", at: "2026-01-01T10:00:00Z" },
  ],
};

describe("skillshelf rollback names its target (a stub Worker over HTTP)", () => {
  let server: Server;
  let url = "";
  let rolledTo: string[] = [];
  /** What /v1/shelf serves, and how many polls still see the old generation after a rollback (edge lag). */
  let serving = GEN.third;
  let lagPolls = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => void (body += chunk));
      req.on("end", () => {
        res.setHeader("Content-Type", "application/json");
        if (req.method === "GET" && req.url === "/admin/v1/history") return void res.end(JSON.stringify(HISTORY));
        if (req.method === "GET" && req.url === "/v1/shelf") {
          const generation = lagPolls-- > 0 ? GEN.third : serving;
          res.setHeader("Skillshelf-Generation", generation);
          return void res.end(JSON.stringify({ generation }));
        }
        if (req.method === "POST" && req.url === "/admin/v1/rollback") {
          const move = JSON.parse(body) as { generation: string; previous: string };
          rolledTo.push(move.generation);
          serving = move.generation;
          const pointer = { schema: "skillshelf.pointer/1", generation: move.generation, seq: 4, published_at: "2026-04-04T10:00:00Z" };
          return void res.end(JSON.stringify({ pointer }));
        }
        res.statusCode = 404;
        res.end(JSON.stringify({ error: "not_found", message: "no such route" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    rolledTo = [];
    serving = GEN.third;
    lagPolls = 0;
  });
  const rollback = (...args: string[]) => runInProcess(["rollback", "--url", url, ...args], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" } });

  it("--previous rolls back to the generation before the current one, and says which first", async () => {
    const r = await rollback("--previous");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^rolling back to ${GEN.second} \\(seq 2, published 2026-02-02T10:00:00Z\\)\nrolled back to ${GEN.second} \\(was ${GEN.third}\\)\n`),
    );
    expect(r.stdout).toContain("every edge serves it within 5.5 minutes");
    expect(rolledTo).toEqual([GEN.second]);
  });
  it("--seq N rolls back to that history entry's generation", async () => {
    const r = await rollback("--seq", "1");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^rolling back to ${GEN.first} \\(seq 1, published 2026-01-01`));
    expect(rolledTo).toEqual([GEN.first]);
  });
  it("a unique prefix of 8+ hex digits names its generation", async () => {
    const r = await rollback("1234abcd1");
    expect(r.code, r.stderr).toBe(0);
    expect(rolledTo).toEqual([GEN.first]);
  });
  it("an ambiguous prefix lists the candidates and changes nothing, exit 1", async () => {
    const r = await rollback("1234abcd");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("1234abcd names 2 generations; give more of the id:");
    expect(r.stderr).toContain(`${GEN.first} (seq 1, published 2026-01-01T10:00:00Z)`);
    expect(r.stderr).toContain(`${GEN.second} (seq 2, published 2026-02-02T10:00:00Z)`);
    expect(rolledTo).toEqual([]);
  });
  it("an unknown prefix, or one shorter than 8 digits, changes nothing", async () => {
    const unknown = await rollback("deadbeef");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no generation in the history starts with deadbeef/);
    expect((await rollback("1234abc")).code).toBe(2);
    expect(rolledTo).toEqual([]);
  });
  it("--wait polls /v1/shelf until the Worker serves the target, with progress", async () => {
    lagPolls = 2;
    const r = await rollback("--previous", "--wait", "--wait-timeout", "20");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/^waiting for .* to serve /gm)).toHaveLength(2);
    expect(r.stderr).toMatch(new RegExp(`serves ${GEN.second.slice(0, 12)}… \\(after \\d+ s\\)`));
  });
  it("--wait gives up after --wait-timeout with a clear message, exit 1", async () => {
    lagPolls = 1_000;
    const r = await rollback("--previous", "--wait", "--wait-timeout", "2");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`after 2 s .* still serves ${GEN.third.slice(0, 12)}…, not ${GEN.second}; the pointer did move`));
    expect((await rollback("--previous", "--wait-timeout", "soon")).code).toBe(2);
  });
  it("an unknown seq is a clear error, exit 1", async () => {
    const r = await rollback("--seq", "9");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no history entry with seq 9 \(the history holds 1–3\)/);
    expect(rolledTo).toEqual([]);
  });
  it("nothing, or two ways at once, is a usage error", async () => {
    expect((await rollback()).code).toBe(2);
    expect((await rollback("--previous", "--seq", "1")).code).toBe(2);
    expect((await rollback("--seq", "x")).code).toBe(2);
  });
});
