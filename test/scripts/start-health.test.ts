// scripts/start.ts's decisions, unit by unit: which answer at /healthz is the Worker this run started (a
// per-run nonce; anything else on the port is another server), each team's own port and local files.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PORT, devVars, freeLoopbackPort, localPaths, loopbackPortIsFree, probeHealth, teamEnvironments, teamPort } from "../../scripts/start.ts";

const servers: Server[] = [];

/** A loopback server answering every request with `status` and `body`. */
async function serve(status: number, body: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  });
  servers.push(server);
  const port = await freeLoopbackPort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return `http://127.0.0.1:${port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe("probeHealth", () => {
  const nonce = "0123456789abcdef0123456789abcdef";

  it("is ours only when /healthz echoes this run's nonce", async () => {
    expect(await probeHealth(await serve(200, JSON.stringify({ ok: true, run: nonce })), nonce)).toBe("ours");
  });

  it("calls any other 200 another server: a shelf without the nonce, another run's, or not JSON", async () => {
    expect(await probeHealth(await serve(200, '{"ok":true}'), nonce)).toBe("other");
    expect(await probeHealth(await serve(200, JSON.stringify({ ok: true, run: "f".repeat(32) })), nonce)).toBe("other");
    expect(await probeHealth(await serve(200, "<html>hello</html>"), nonce)).toBe("other");
  });

  it("waits (none) while nothing answers or the answer is not a 200", async () => {
    expect(await probeHealth(await serve(503, "starting"), nonce)).toBe("none");
    expect(await probeHealth(`http://127.0.0.1:${await freeLoopbackPort()}`, nonce)).toBe("none");
  });
});

describe("ports and local files", () => {
  it("tells a busy loopback port from a free one", async () => {
    const url = await serve(200, "{}");
    expect(await loopbackPortIsFree(Number(new URL(url).port))).toBe(false);
    expect(await loopbackPortIsFree(await freeLoopbackPort())).toBe(true);
  });

  it("gives each team of wrangler.toml its own port after the public shelf's, in file order", async () => {
    const teams = await teamEnvironments();
    expect(teams[0]).toBe("acme");
    expect(teamPort(teams, "acme")).toBe(DEFAULT_PORT + 1);
    expect(teamPort(["acme", "beta"], "beta")).toBe(8789);
    expect(() => teamPort(teams, "nosuch")).toThrow();
  });

  it("keeps a team's tokens, build, state and dev vars apart from the public shelf's", () => {
    expect(localPaths()).toEqual({
      publishTokenFile: ".skillshelf/publish-token",
      readTokenFile: ".skillshelf/read-token",
      buildDir: ".skillshelf/dev",
      persistTo: ".wrangler/state",
      devVarsFile: ".dev.vars",
      signingKeyFile: ".skillshelf/signing-key.pem",
    });
    expect(localPaths("acme")).toEqual({
      publishTokenFile: ".skillshelf/env/acme/publish-token",
      readTokenFile: ".skillshelf/env/acme/read-token",
      buildDir: ".skillshelf/env/acme/dev",
      persistTo: ".wrangler/env/acme",
      devVarsFile: ".dev.vars.acme",
      signingKeyFile: ".skillshelf/env/acme/signing-key.pem",
    });
  });
});

describe("the local Worker's variables", () => {
  it("turn the live-record cache off (SHELF_LIVE_TTL_MS 0), so a publish shows on the next request", () => {
    expect(devVars(undefined, "n")).toMatchObject({ SHELF_LIVE_TTL_MS: "0" });
    expect(devVars({ SHELF_LIVE_TTL_MS: "5000" }, "n")).toMatchObject({ SHELF_LIVE_TTL_MS: "5000" });
  });
});
