// `skillshelf grants list|revoke`: the requests it sends to the admin API's grants index (method,
// path, the publish token), how it prints what comes back, and its refusals (a missing subcommand,
// a bad grant id, the Worker's 404 for an unknown grant or a shelf without OAuth) as one-line errors.
// The Worker side is tested in workerd (test/worker/oauth/flow.test.ts); here a local HTTP server plays it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../run-in-process.ts";

const TOKEN = "sk_publish_for_grants_test_0123456789";
const seen: { method: string; url: string; auth: string | undefined }[] = [];
let server: Server;
let url = "";

const GRANT = {
  grant_id: "g1AbC",
  user_id: "rt-0123456789abcdef",
  method: "read-token",
  client_id: "client-1",
  client_name: "Claude",
  scope: ["skills:read", "offline_access"],
  created_at: "2026-12-02T08:00:00.000Z",
  expires_at: "2027-01-01T08:00:00.000Z",
};

/** A grant of a person who signed in with the team's identity provider. */
const OIDC_GRANT = {
  grant_id: "g2DeF",
  user_id: "oidc-0123456789abcdef",
  method: "oidc",
  email: "ana@acme.example",
  client_id: "client-2",
  client_name: "Cursor",
  scope: ["skills:read"],
  created_at: "2026-12-02T09:00:00.000Z",
  expires_at: null,
};

function answer(req: IncomingMessage): { status: number; body: unknown } {
  if (req.headers.authorization !== `Bearer ${TOKEN}`)
    return { status: 401, body: { error: "unauthorized", message: "The publish token is not valid for this shelf." } };
  if (req.method === "GET" && req.url === "/admin/v1/oauth/grants") return { status: 200, body: { grants: [GRANT, OIDC_GRANT] } };
  if (req.method === "DELETE" && req.url === "/admin/v1/oauth/grants?user=ana%40acme.example")
    return { status: 200, body: { user: "ana@acme.example", revoked: ["g2DeF"] } };
  if (req.method === "DELETE" && req.url?.startsWith("/admin/v1/oauth/grants?user=")) return { status: 200, body: { user: "x", revoked: [] } };
  if (req.method === "DELETE" && req.url === "/admin/v1/oauth/grants/g1AbC") return { status: 200, body: { revoked: "g1AbC" } };
  return { status: 404, body: { error: "not_found", message: 'No grant "nope" on this shelf; list them with skillshelf grants list.' } };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization });
    const { status, body } = answer(req);
    res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const env = { SKILLSHELF_PUBLISH_TOKEN: TOKEN };

describe("skillshelf grants", () => {
  it("lists grants, one line each, with the publish token", async () => {
    const res = await runInProcess(["grants", "list", "--url", url], { env });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(
      "g1AbC\tClaude\trt-0123456789abcdef\tskills:read offline_access\t2026-12-02T08:00:00.000Z\t2027-01-01T08:00:00.000Z\n" +
        "g2DeF\tCursor\tana@acme.example\tskills:read\t2026-12-02T09:00:00.000Z\t-\n",
    );
    expect(seen.at(-1)).toEqual({ method: "GET", url: "/admin/v1/oauth/grants", auth: `Bearer ${TOKEN}` });
    const json = await runInProcess(["grants", "list", "--url", url, "--json"], { env });
    expect(JSON.parse(json.stdout)).toEqual({ grants: [GRANT, OIDC_GRANT] });
  });

  it("revokes one grant by id", async () => {
    const res = await runInProcess(["grants", "revoke", "g1AbC", "--url", url], { env });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("revoked g1AbC");
    expect(seen.at(-1)).toMatchObject({ method: "DELETE", url: "/admin/v1/oauth/grants/g1AbC" });
  });

  it("revokes every grant of one person by e-mail (--user), and says when they hold none", async () => {
    const res = await runInProcess(["grants", "revoke", "--user", "ana@acme.example", "--url", url], { env });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("revoked 1 grant(s) of ana@acme.example");
    expect(seen.at(-1)).toMatchObject({ method: "DELETE", url: "/admin/v1/oauth/grants?user=ana%40acme.example" });
    const none = await runInProcess(["grants", "revoke", "--user", "bo@acme.example", "--url", url], { env });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("holds no grants");
    for (const args of [
      ["revoke", "--user", "not-an-address"],
      ["revoke", "g1AbC", "--user", "ana@acme.example"],
      ["list", "--user", "ana@acme.example"],
    ]) {
      const bad = await runInProcess(["grants", ...args, "--url", url], { env });
      expect(bad.code, args.join(" ")).toBe(2);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("reports the Worker's refusal in one line (exit 1), and usage mistakes with exit 2", async () => {
    const unknown = await runInProcess(["grants", "revoke", "nope", "--url", url], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404 No grant "nope" on this shelf');
    const wrongToken = await runInProcess(["grants", "list", "--url", url], { env: { SKILLSHELF_PUBLISH_TOKEN: "sk_wrong_token_value_000000000" } });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain("401 The publish token is not valid");
    expect((await runInProcess(["grants", "--url", url], { env })).code).toBe(2);
    expect((await runInProcess(["grants", "revoke", "--url", url], { env })).code).toBe(2);
    const bad = await runInProcess(["grants", "revoke", "../pointer", "--url", url], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not a grant id");
    for (const r of [unknown, wrongToken, bad]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
