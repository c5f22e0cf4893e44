// /mcp as an endpoint: the single-skill fast path (a one-skill shelf, or ?include= naming one),
// as agentskills-mcp-server 0.6.0 applies it (goldens); pinned and capability URLs; a private
// shelf without and with its token; CORS preflight and headers; the body cap; what the SDK's
// HTTP entry answers before any handler (wrong media type, GET on the stateless legacy leg).
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { MAX_MCP_BODY_BYTES } from "../../../src/worker/views/mcp/index.ts";
import { CURRENT_TTL_MS, PINNED_TTL_MS } from "../../../src/worker/views/mcp/server.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { R2_POINTER_KEY } from "../../../src/worker/storage/keys.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { GOLDEN_FAST_PATH, GOLDEN_TOOLS, goldenSkills } from "./goldens.ts";
import { appFetch, BASE, connectMcp, ERAS, modernRequest } from "./helpers.ts";

const ALL_TOOLS = GOLDEN_TOOLS.map((t) => t.name);
const TOKEN = "sk_read_mcp_test_token_0123456789";

/** A 2025-era initialize (stateless, no envelope), the message a 2025 host opens with. */
const LEGACY_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** The 2025-era initialize as a raw POST. */
function legacyInitialize(): RequestInit {
  return {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify(LEGACY_INITIALIZE),
  };
}

beforeEach(() => resetStorageMemory());

describe("the single-skill fast path", () => {
  it.each(ERAS)("on a one-skill shelf (%s era): the body tools are gone and the reference's prompt is the instructions", async (era) => {
    await publishFixtureShelf(env, goldenSkills([GOLDEN_FAST_PATH.skill_id]));
    const { client } = await connectMcp({ era });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(GOLDEN_FAST_PATH.tools);
    expect(client.getInstructions()).toBe(GOLDEN_FAST_PATH.prompt);
    for (const call of GOLDEN_FAST_PATH.calls) {
      const result = await client.callTool({ name: call.tool, arguments: call.arguments });
      expect((result.content as { text: string }[])[0]!.text).toBe(call.text);
    }
    const dropped = await client.callTool({ name: "get_skill_body", arguments: { skill_id: "tiny" } }).then(
      (r) => r.isError === true,
      () => true,
    );
    expect(dropped).toBe(true);
    await client.close();
  });

  it.each(ERAS)("under ?include= naming one skill of many (%s era), and not for a long body or two skills", async (era) => {
    await publishFixtureShelf(env, goldenSkills());
    const narrowed = await connectMcp({ era, path: "/mcp?include=tiny" });
    expect((await narrowed.client.listTools()).tools.map((t) => t.name)).toEqual(GOLDEN_FAST_PATH.tools);
    expect(narrowed.client.getInstructions()).toBe(GOLDEN_FAST_PATH.prompt);
    expect((await narrowed.skills.list()).skills.map((s) => s.frontmatter.name)).toEqual(["tiny"]);
    await narrowed.client.close();

    for (const path of ["/mcp", "/mcp?include=long-guide", "/mcp?include=tiny,dated", "/mcp?include=tiny&include=dated"]) {
      const { client } = await connectMcp({ era, path });
      expect(
        (await client.listTools()).tools.map((t) => t.name),
        path,
      ).toEqual(ALL_TOOLS);
      expect(client.getInstructions(), path).toBeUndefined();
      await client.close();
    }
  });

  it("refuses an include list longer than the API's name limit", async () => {
    await publishFixtureShelf(env, goldenSkills(["tiny"]));
    const names = Array.from({ length: 101 }, (_, i) => `s${i}`).join(",");
    const res = await appFetch()(`${BASE}/mcp?include=${names}`, modernRequest("tools/list"));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_parameter");
  });
});

describe("pinned, private and capability endpoints", () => {
  it.each(ERAS)("serves /g/<generation>/mcp with the long ttl (%s era)", async (era) => {
    const published = await publishFixtureShelf(env, goldenSkills(["tiny", "dated"]));
    const { client, skills } = await connectMcp({ era, path: `/g/${published.generation}/mcp` });
    const listing = await skills.list();
    expect(listing.skills.map((s) => s.frontmatter.name)).toEqual(["dated", "tiny"]);
    expect(listing.ttlMs).toBe(era === "modern" ? PINNED_TTL_MS : undefined);
    await client.close();
    const current = await connectMcp({ era });
    expect((await current.skills.list()).ttlMs).toBe(era === "modern" ? CURRENT_TTL_MS : undefined);
    await current.client.close();
  });

  it.each(ERAS)("needs the bearer token on a private shelf (%s era), and then caches privately", async (era) => {
    await publishFixtureShelf(env, goldenSkills(["tiny", "dated"]));
    const bindings = { ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(new TextEncoder().encode(TOKEN)) };
    const refused = await appFetch(bindings)(`${BASE}/mcp`, modernRequest("tools/list"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toBe('Bearer realm="skillshelf"');
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    await expect(connectMcp({ era, bindings })).rejects.toThrow();
    await expect(connectMcp({ era, bindings, headers: { Authorization: "Bearer sk_wrong_token_000000000000000" } })).rejects.toThrow();

    const { client, skills } = await connectMcp({ era, bindings, headers: { Authorization: `Bearer ${TOKEN}` } });
    const listing = await skills.list();
    expect(listing.skills).toHaveLength(2);
    expect(listing.cacheScope).toBe(era === "modern" ? "private" : undefined);
    const read = await skills.read(listing.skills[0]!);
    expect(read.verified).toBe(true);
    await client.close();
  });

  it("works under a capability URL when those are on, and is a 404 when they are off", async () => {
    await publishFixtureShelf(env, goldenSkills(["tiny", "dated"]));
    const digest = await sha256Hex(new TextEncoder().encode(TOKEN));
    const on = { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: digest };
    const { client, skills } = await connectMcp({ bindings: on, path: `/c/${TOKEN}/mcp` });
    expect((await skills.list()).skills).toHaveLength(2);
    await client.close();
    const off = { ...on, SHELF_CAPABILITY_URLS: "off" };
    expect((await appFetch(off)(`${BASE}/c/${TOKEN}/mcp`, modernRequest("tools/list"))).status).toBe(404);
  });
});

describe("HTTP around the SDK", () => {
  beforeEach(async () => {
    await publishFixtureShelf(env, goldenSkills(["tiny", "dated"]));
  });
  afterEach(() => resetStorageMemory());

  it("answers a public preflight with POST, DELETE and the MCP headers", async () => {
    for (const path of ["/mcp", "/g/0000000000000000000000000000000000000000000000000000000000000000/mcp"]) {
      const res = await appFetch()(`${BASE}${path}`, {
        method: "OPTIONS",
        headers: { Origin: "https://host.example", "Access-Control-Request-Method": "POST" },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Methods")).toBe("GET, POST, DELETE, OPTIONS");
      const allowed = res.headers.get("Access-Control-Allow-Headers")!.split(", ");
      for (const header of ["Content-Type", "Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name"])
        expect(allowed, header).toContain(header);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    }
    const elsewhere = await appFetch()(`${BASE}/skills/index.json`, { method: "OPTIONS" });
    expect(elsewhere.headers.get("Access-Control-Allow-Methods")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers a modern request with JSON, CORS, the security headers, no-store and the generation", async () => {
    const res = await appFetch()(`${BASE}/mcp`, modernRequest("tools/list"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Skillshelf-Generation")).toMatch(/^[0-9a-f]{64}$/);
    const body = (await res.json()) as { result: { tools: unknown[]; resultType: string } };
    expect(body.result.tools).toHaveLength(8);
    expect(body.result.resultType).toBe("complete");
  });

  it("answers a 2025 initialize statelessly: no session id, an event stream, and the skills extension declared", async () => {
    const res = await appFetch()(`${BASE}/mcp`, legacyInitialize());
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    expect(res.headers.get("Content-Type")).toContain("text/event-stream");
    const text = await res.text();
    const result = JSON.parse(
      text
        .split("\n")
        .find((line) => line.startsWith("data: "))!
        .slice(6),
    ) as {
      result: { capabilities: { extensions: Record<string, unknown>; tools: unknown } };
    };
    expect(result.result.capabilities.extensions["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
    expect(result.result.capabilities.tools).toBeDefined();
    expect((await appFetch()(`${BASE}/mcp`, { method: "DELETE" })).status).toBe(405);
  });

  it("lets the SDK refuse what does not fit: a body over the cap, a wrong media type, a header that disagrees, GET on the stateless leg", async () => {
    const fetch = appFetch();
    const big = modernRequest("tools/list");
    big.body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(MAX_MCP_BODY_BYTES) } });
    const tooBig = await fetch(`${BASE}/mcp`, big);
    expect(tooBig.status).toBe(413);
    // A JSON-RPC error, as the SDK's own refusal was, not the read group's plain JSON.
    expect(((await tooBig.json()) as { jsonrpc: string; error: { code: number } }).error).toMatchObject({ code: -32000 });
    expect((await fetch(`${BASE}/mcp`, { ...modernRequest("tools/list"), headers: { "Content-Type": "text/plain" } })).status).toBe(415);
    const mismatch = await fetch(`${BASE}/mcp`, modernRequest("tools/list", {}, { "Mcp-Method": "tools/call" }));
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect((await fetch(`${BASE}/mcp`, { method: "GET", headers: { Accept: "text/event-stream" } })).status).toBe(405);
  });

  // Issue 25: MCP 2025-06-18 removed JSON-RPC batching; a 5.2 KB batch used to fan out to 100 calls.
  it("refuses a JSON-RPC batch, in either era, with one clear error and no call made", async () => {
    await publishFixtureShelf(env, goldenSkills());
    const modern = JSON.parse(modernRequest("tools/list").body as string) as object;
    for (const batch of [[LEGACY_INITIALIZE, { jsonrpc: "2.0", id: 2, method: "tools/list" }], [modern, modern], [modern], []]) {
      const res = await appFetch()(`${BASE}/mcp`, { ...modernRequest("tools/list"), body: JSON.stringify(batch) });
      expect(res.status).toBe(400);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      expect(body).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/batch/i) } });
    }
  });

  it("answers invalid params with -32602 (not -32603)", async () => {
    await publishFixtureShelf(env, goldenSkills());
    for (const [method, params] of [
      ["tools/list", { cursor: 7 }],
      ["resources/read", { uri: 5 }],
      ["resources/read", {}],
    ] as const) {
      const res = await appFetch()(`${BASE}/mcp`, modernRequest(method, params));
      const body = (await res.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body.error.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(body.id).toBe(1);
      expect(body.error.message).toContain(method);
    }
  });

  it("sends no-store on a 2025 event stream too, as docs/mcp.md says", async () => {
    const res = await appFetch()(`${BASE}/mcp`, legacyInitialize());
    expect(res.headers.get("Content-Type")).toContain("text/event-stream");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    await res.body?.cancel();
  });

  it("answers 404 when nothing is published, before any JSON-RPC", async () => {
    await env.SHELF_BUCKET.delete(R2_POINTER_KEY);
    resetStorageMemory();
    const res = await appFetch()(`${BASE}/mcp`, modernRequest("tools/list"));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });
});
