// resources/read answered by read-fast.ts in place of the SDK's exchange: every answer must be the
// SDK's byte for byte. Each request below is sent through the whole Worker twice on the same shelf
// and isolate, once forced through the SDK and once with the fast path on, and the two responses
// (status, every header, body bytes) compared; the counter says whether the fast path answered.
// The common variants must be answered here, every other one (errors, other eras, odd headers or
// members, scopes the SDK serves differently) must reach the SDK.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { resourcesReadAnsweredHere, serveResourcesReadWithSdk } from "../../../src/worker/views/mcp/read-fast.ts";
import { resetMcpServerPool } from "../../../src/worker/views/mcp/server.ts";
import { advisoryFor, BLOCKING_ADVISORY, publishFixtureShelf, type FixtureSkill } from "../fixture-shelf.ts";
import { appFetch, BASE, connectMcp } from "./helpers.ts";

const TOKEN = "sk_read_mcp_read_fast_token_0123456";
const MODERN = "2026-07-28";
const PV = "io.modelcontextprotocol/protocolVersion";
const CI = "io.modelcontextprotocol/clientInfo";
const CC = "io.modelcontextprotocol/clientCapabilities";
const META = { [PV]: MODERN, [CI]: { name: "raw", version: "1" }, [CC]: {} };

const SKILLS: FixtureSkill[] = [
  {
    name: "nested",
    description: "Nested folders and names that need escaping.",
    files: {
      "references/guide.md": "# Guide\n\nRead me first.\n",
      "references/form guide.md": "spaces\n",
      "references/café.md": "accents\n",
      "references/deep/more.md": "# More\n",
      "references/bom.md": "\ufeffwith a byte order mark\n",
      "assets/data.bin": new Uint8Array([0, 255, 1, 2, 200, 13, 10, 0x80]),
      "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      // Over the extension's 32 KiB base64 chunk, and not UTF-8.
      "assets/big.bin": Uint8Array.from({ length: 40_000 }, (_, i) => (i * 2_654_435_761) >>> 24),
      "scripts/run.sh": '#!/bin/sh\necho "quotes" and \\ backslashes\n',
    },
  },
  { name: "other", description: "A second skill, so no scope of two is the single-skill fast path.", files: { "references/x.md": "x\n" } },
  { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
  { name: "flagged", description: "An advisory that does not block.", files: { "references/y.md": "y\n" } },
  { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
];

let generation: string;

beforeAll(async () => {
  resetStorageMemory();
  resetMcpServerPool();
  const published = await publishFixtureShelf(env, SKILLS, {
    advisories: [BLOCKING_ADVISORY, { ...advisoryFor("flagged", { advisory_id: "ADV-2026-009" }), severity: "medium" }],
  });
  generation = published.generation;
}, 120_000);

afterEach(() => serveResourcesReadWithSdk(false));

const privateBindings = async () => ({ ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(new TextEncoder().encode(TOKEN)) });

/** One request as a variant describes it: where, which headers (undefined drops one), which body. */
interface Variant {
  path?: string;
  caller?: "public" | "private";
  headers?: Record<string, string | undefined>;
  body: unknown;
}

/** A 2026-07-28 resources/read of `uri` as the SDK's client sends it. */
function read(
  uri: string,
  changes: { params?: Record<string, unknown>; meta?: Record<string, unknown>; id?: unknown; extra?: Record<string, unknown> } = {},
): unknown {
  return {
    jsonrpc: "2.0",
    id: "id" in changes ? changes.id : 1,
    method: "resources/read",
    params: { uri, ...changes.params, _meta: changes.meta ?? META },
    ...changes.extra,
  };
}

function headersFor(uri: string, changes: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": MODERN,
    "Mcp-Method": "resources/read",
    "Mcp-Name": uri,
    ...changes,
  };
}

interface Sent {
  status: number;
  headers: [string, string][];
  body: string;
}

async function send(variant: Variant): Promise<Sent> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(variant.headers ?? {})) if (value !== undefined) headers[name] = value;
  if (variant.caller === "private") headers.Authorization = `Bearer ${TOKEN}`;
  const fetch = appFetch(variant.caller === "private" ? await privateBindings() : env);
  const res = await fetch(`${BASE}${variant.path ?? "/mcp"}`, { method: "POST", headers, body: JSON.stringify(variant.body) });
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

/** The same request through the SDK and through the fast path, and whether the fast path answered it. */
async function both(variant: Variant): Promise<{ sdk: Sent; ours: Sent; answeredHere: number }> {
  serveResourcesReadWithSdk(true);
  const before = resourcesReadAnsweredHere();
  const sdk = await send(variant);
  expect(resourcesReadAnsweredHere()).toBe(before);
  serveResourcesReadWithSdk(false);
  const ours = await send(variant);
  return { sdk, ours, answeredHere: resourcesReadAnsweredHere() - before };
}

const GUIDE = "skill://nested/references/guide.md";
const plain = (uri: string, path?: string, caller?: "public" | "private"): Variant => ({
  ...(path === undefined ? {} : { path }),
  ...(caller === undefined ? {} : { caller }),
  headers: headersFor(uri),
  body: read(uri),
});

/** Variants the fast path answers: the SDK's answer is a file. */
const ANSWERED: [string, () => Variant][] = [
  ["a text file under references/", () => plain(GUIDE)],
  ["SKILL.md", () => plain("skill://nested/SKILL.md")],
  ["a binary asset (base64 blob)", () => plain("skill://nested/assets/data.bin")],
  ["a PNG (blob, image/png)", () => plain("skill://nested/assets/logo.png")],
  ["a 40,000-byte binary (blob past one base64 chunk)", () => plain("skill://nested/assets/big.bin")],
  ["a script with quotes and backslashes", () => plain("skill://nested/scripts/run.sh")],
  ["a file two folders down", () => plain("skill://nested/references/deep/more.md")],
  ["a name with a space, percent-encoded", () => plain("skill://nested/references/form%20guide.md")],
  ["a name with an accent, percent-encoded", () => plain("skill://nested/references/caf%C3%A9.md")],
  ["text that starts with a BOM", () => plain("skill://nested/references/bom.md")],
  ["a private shelf (cacheScope private)", () => plain(GUIDE, "/mcp", "private")],
  ["a pinned generation (ttlMs an hour)", () => plain(GUIDE, `/g/${generation}/mcp`)],
  ["a pinned generation on a private shelf", () => plain(GUIDE, `/g/${generation}/mcp`, "private")],
  ["a scope of two skills", () => plain(GUIDE, "/mcp?include=nested,other")],
  ["a skill that requires review", () => plain("skill://review-me/references/x.md")],
  ["a skill under an advisory that does not block", () => plain("skill://flagged/references/y.md")],
  ["Accept: application/json only", () => ({ headers: headersFor(GUIDE, { Accept: "application/json" }), body: read(GUIDE) })],
  ["Accept: text/event-stream only", () => ({ headers: headersFor(GUIDE, { Accept: "text/event-stream" }), body: read(GUIDE) })],
  ["no Accept", () => ({ headers: headersFor(GUIDE, { Accept: undefined }), body: read(GUIDE) })],
  ["Content-Type with a charset", () => ({ headers: headersFor(GUIDE, { "Content-Type": "application/json; charset=utf-8" }), body: read(GUIDE) })],
  ["a string id", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { id: 'req-7 "quoted"' }) })],
  ["a large integer id", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { id: 9007199254740991 }) })],
  ["a negative id", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { id: -3 }) })],
  [
    "a richer envelope (clientInfo title, capabilities with extensions)",
    () => ({
      headers: headersFor(GUIDE),
      body: read(GUIDE, {
        meta: {
          [PV]: MODERN,
          [CI]: { name: "host", title: "A Host", version: "2.0.1" },
          [CC]: { extensions: { "io.modelcontextprotocol/skills": {} }, roots: { listChanged: true } },
        },
      }),
    }),
  ],
  [
    "the envelope keys in another order",
    () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { [CC]: {}, [CI]: { version: "1", name: "raw" }, [PV]: MODERN } }) }),
  ],
];

/** Variants the fast path must leave to the SDK. */
const FALL_THROUGH: [string, () => Variant][] = [
  ["a file that does not exist", () => plain("skill://nested/references/missing.md")],
  ["a skill that does not exist", () => plain("skill://nope/SKILL.md")],
  ["a blocked skill", () => plain("skill://bad-skill/references/y.md")],
  ["a folder", () => plain("skill://nested/references/deep")],
  ["a skill's root folder", () => plain("skill://nested")],
  ["a skill outside the scope", () => plain(GUIDE, "/mcp?include=other,review-me")],
  ["the single-skill fast path scope (instructions)", () => plain(GUIDE, "/mcp?include=nested")],
  ["another scheme", () => plain("https://example.test/x.md")],
  ["a URI not in WHATWG form (raw space)", () => plain("skill://nested/references/form guide.md")],
  ["a URI with a dot segment", () => plain("skill://nested/references/../SKILL.md")],
  ["a URI with a query", () => plain(`${GUIDE}?x=1`)],
  ["no MCP-Protocol-Version header", () => ({ headers: headersFor(GUIDE, { "Mcp-Protocol-Version": undefined }), body: read(GUIDE) })],
  ["no Mcp-Method header", () => ({ headers: headersFor(GUIDE, { "Mcp-Method": undefined }), body: read(GUIDE) })],
  ["no Mcp-Name header", () => ({ headers: headersFor(GUIDE, { "Mcp-Name": undefined }), body: read(GUIDE) })],
  ["Mcp-Name naming another file", () => ({ headers: headersFor(GUIDE, { "Mcp-Name": "skill://nested/SKILL.md" }), body: read(GUIDE) })],
  ["Mcp-Name in base64 form", () => ({ headers: headersFor(GUIDE, { "Mcp-Name": `=?base64?${btoa(GUIDE)}?=` }), body: read(GUIDE) })],
  ["Mcp-Method naming another method", () => ({ headers: headersFor(GUIDE, { "Mcp-Method": "skills/get" }), body: read(GUIDE) })],
  ["an MCP-Protocol-Version header of the 2025 era", () => ({ headers: headersFor(GUIDE, { "Mcp-Protocol-Version": "2025-11-25" }), body: read(GUIDE) })],
  [
    "a 2025-era request (no envelope)",
    () => ({
      headers: headersFor(GUIDE, { "Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": undefined, "Mcp-Name": undefined }),
      body: { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: GUIDE } },
    }),
  ],
  [
    "an unsupported modern revision",
    () => ({ headers: headersFor(GUIDE, { "Mcp-Protocol-Version": "2027-01-01" }), body: read(GUIDE, { meta: { ...META, [PV]: "2027-01-01" } }) }),
  ],
  ["an unknown member in params", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { params: { extra: [1, 2] } }) })],
  ["a retry field in params (requestState)", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { params: { requestState: "x" } }) })],
  ["an unknown top-level member", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { extra: { extra: true } }) })],
  ["a logLevel in the envelope", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { ...META, "io.modelcontextprotocol/logLevel": "debug" } }) })],
  ["another _meta key (progressToken)", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { ...META, progressToken: 5 } }) })],
  ["an envelope without clientInfo", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { [PV]: MODERN, [CC]: {} } }) })],
  ["an envelope whose clientInfo has no version", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { ...META, [CI]: { name: "raw" } } }) })],
  ["an envelope whose capabilities are not an object", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { meta: { ...META, [CC]: 5 } }) })],
  ["a fractional id", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { id: 1.5 }) })],
  ["a null id", () => ({ headers: headersFor(GUIDE), body: read(GUIDE, { id: null }) })],
  ["a notification (no id)", () => ({ headers: headersFor(GUIDE), body: { jsonrpc: "2.0", method: "resources/read", params: { uri: GUIDE, _meta: META } } })],
  ["Content-Type text/plain", () => ({ headers: headersFor(GUIDE, { "Content-Type": "text/plain" }), body: read(GUIDE) })],
  ["no Content-Type", () => ({ headers: headersFor(GUIDE, { "Content-Type": undefined }), body: read(GUIDE) })],
];

describe("resources/read answered by read-fast.ts", () => {
  it.each(ANSWERED)("gives the SDK's bytes, and answers it itself: %s", async (_label, variant) => {
    const { sdk, ours, answeredHere } = await both(variant());
    expect(sdk.status).toBe(200);
    expect(JSON.parse(sdk.body)).toHaveProperty("result.contents");
    expect(ours).toEqual(sdk);
    expect(answeredHere).toBe(1);
  });

  it.each(FALL_THROUGH)("leaves it to the SDK: %s", async (_label, variant) => {
    const { sdk, ours, answeredHere } = await both(variant());
    expect(ours).toEqual(sdk);
    expect(answeredHere).toBe(0);
  });

  it("takes the SDK client's own reads (what hosts send), with the same results as the SDK's", async () => {
    // The variants above are hand-built; this is the SDK's client (2.4.0, pinned to 2026-07-28),
    // so a client that sends another envelope or header would show here as the SDK path.
    // A client apiece: the client keeps a result for its ttlMs and would not ask twice.
    const uris = [GUIDE, "skill://nested/assets/big.bin", "skill://nested/references/caf%C3%A9.md"];
    const readAll = async () => {
      const { client } = await connectMcp({ era: "modern" });
      const results = [];
      for (const uri of uris) results.push(await client.readResource({ uri }));
      await client.close();
      return results;
    };
    serveResourcesReadWithSdk(true);
    const before = resourcesReadAnsweredHere();
    const viaSdk = await readAll();
    expect(resourcesReadAnsweredHere() - before).toBe(0);
    serveResourcesReadWithSdk(false);
    const viaFast = await readAll();
    expect(resourcesReadAnsweredHere() - before).toBe(uris.length);
    expect(viaFast).toEqual(viaSdk);
    expect(viaFast[0]!.contents[0]).toMatchObject({ uri: GUIDE, text: "# Guide\n\nRead me first.\n" });
  });

  it("names the cache fields each kind of endpoint gets", async () => {
    const result = async (variant: Variant) => (JSON.parse((await send(variant)).body) as { result: Record<string, unknown> }).result;
    expect(await result(plain(GUIDE))).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(await result(plain(GUIDE, "/mcp", "private"))).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
    expect(await result(plain(GUIDE, `/g/${generation}/mcp`))).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
  });
});
