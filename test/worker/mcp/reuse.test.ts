// /mcp reuses its 2026-07-28 servers within an isolate (src/worker/views/mcp/server.ts): these
// check that it does, and that no request ever answers with another's state: interleaved requests
// pinned to two different generations, narrowed to different scopes, and from a public and a
// private caller each get their own answer, byte for byte what their generation holds.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { mcpServersBuilt, resetMcpServerPool } from "../../../src/worker/views/mcp/server.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { appFetch, BASE, modernRequest } from "./helpers.ts";

const TOKEN = "sk_read_mcp_reuse_token_0123456789";

/** A raw 2026-07-28 request, naming its resource or tool in Mcp-Name when given. */
function modern(method: string, params: Record<string, unknown> = {}, name?: string): RequestInit {
  return modernRequest(method, params, name === undefined ? {} : { "Mcp-Name": name }, 7);
}

const readRequest = (uri: string) => modern("resources/read", { uri }, uri);

interface ReadAnswer {
  result: { contents: { uri: string; text: string }[] };
}
interface ListAnswer {
  result: { skills: { frontmatter: { name: string; description: string } }[]; cacheScope?: string; ttlMs?: number };
}

/** Two generations: `beta` differs between them, `alpha` only in the first, `gamma` only in the second. */
async function twoGenerations() {
  const first = await publishFixtureShelf(env, [
    { name: "alpha", description: "Alpha of the first generation.", files: { "references/guide.md": "first alpha guide\n" } },
    { name: "beta", description: "Beta of the first generation.", files: { "references/guide.md": "first beta guide\n" } },
  ]);
  const second = await publishFixtureShelf(
    env,
    [
      { name: "beta", description: "Beta of the second generation.", files: { "references/guide.md": "second beta guide\n" } },
      { name: "gamma", description: "Gamma of the second generation.", files: { "references/guide.md": "second gamma guide\n" } },
    ],
    { seq: 2 },
  );
  return { first: first.generation, second: second.generation };
}

beforeEach(() => {
  resetStorageMemory();
  resetMcpServerPool();
});

describe("/mcp servers reused within an isolate", () => {
  it("reuses one server for requests one after another", async () => {
    await twoGenerations();
    const fetch = appFetch();
    expect((await fetch(`${BASE}/mcp`, modern("tools/list"))).status).toBe(200);
    const before = mcpServersBuilt();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${BASE}/mcp`, readRequest("skill://beta/references/guide.md"));
      expect(((await res.json()) as ReadAnswer).result.contents[0]!.text).toBe("second beta guide\n");
    }
    expect(mcpServersBuilt() - before).toBe(0);
  });

  it("answers interleaved requests pinned to different generations and scopes each with its own", async () => {
    const { first, second } = await twoGenerations();
    const fetch = appFetch();
    // Served one after another first, so every later request meets a pooled server that has
    // already served the other generation or scope.
    const cases = [
      { path: `/g/${first}/mcp`, init: readRequest("skill://beta/references/guide.md"), text: "first beta guide\n" },
      { path: `/g/${second}/mcp`, init: readRequest("skill://beta/references/guide.md"), text: "second beta guide\n" },
      { path: `/g/${first}/mcp`, init: modern("skills/list"), names: ["alpha", "beta"], description: "Beta of the first generation." },
      { path: `/g/${second}/mcp`, init: modern("skills/list"), names: ["beta", "gamma"], description: "Beta of the second generation." },
      { path: "/mcp?include=beta,gamma", init: modern("skills/list"), names: ["beta", "gamma"], description: "Beta of the second generation." },
      { path: "/mcp?include=alpha,beta", init: modern("skills/list"), names: ["beta"], description: "Beta of the second generation." },
      { path: `/g/${first}/mcp?include=alpha,gamma`, init: modern("skills/list"), names: ["alpha"] },
      { path: `/g/${second}/mcp`, init: readRequest("skill://alpha/references/guide.md"), missing: true },
      { path: `/g/${first}/mcp`, init: readRequest("skill://gamma/references/guide.md"), missing: true },
    ];
    const check = async (c: (typeof cases)[number], res: Response) => {
      expect(res.status, c.path).toBe(200);
      const body = (await res.json()) as ReadAnswer & ListAnswer & { error?: { message: string } };
      if (c.missing) expect(body.error, c.path).toBeDefined();
      else if (c.text !== undefined) expect(body.result.contents[0]!.text, c.path).toBe(c.text);
      else {
        expect(
          body.result.skills.map((s) => s.frontmatter.name),
          c.path,
        ).toEqual(c.names);
        if (c.description !== undefined) expect(body.result.skills.find((s) => s.frontmatter.name === "beta")!.frontmatter.description).toBe(c.description);
      }
    };
    for (const c of cases) await check(c, await fetch(`${BASE}${c.path}`, c.init));
    // Then all at once, three times over, in an order that alternates generations and scopes: on
    // a warm isolate, and on a cold one, where each request waits for R2 between its steps.
    const rounds = [...cases, ...cases.toReversed(), ...cases];
    for (const cold of [false, true]) {
      if (cold) resetStorageMemory();
      const answers = await Promise.all(rounds.map((c) => fetch(`${BASE}${c.path}`, { ...c.init })));
      for (const [i, res] of answers.entries()) await check(rounds[i]!, res);
    }
  });

  it("keeps a public and a private caller's answers apart, and still refuses a caller without the token", async () => {
    await twoGenerations();
    const digest = await sha256Hex(new TextEncoder().encode(TOKEN));
    const publicFetch = appFetch();
    const privateBindings = { ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: digest };
    const privateFetch = appFetch(privateBindings);
    const withToken = (init: RequestInit): RequestInit => ({
      ...init,
      headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${TOKEN}` },
    });
    const request = (i: number) =>
      i % 2 === 0
        ? publicFetch(`${BASE}/mcp`, modern("skills/list")).then((res) => ({ res, scope: "public" }))
        : privateFetch(`${BASE}/mcp`, withToken(modern("skills/list"))).then((res) => ({ res, scope: "private" }));
    const check = async ({ res, scope }: { res: Response; scope: string }) => {
      expect(res.status).toBe(200);
      const body = (await res.json()) as ListAnswer;
      expect(body.result.cacheScope).toBe(scope);
      expect(body.result.skills.map((s) => s.frontmatter.name)).toEqual(["beta", "gamma"]);
    };
    // One after another (each meets the server the other caller's request left idle), then at once.
    for (let i = 0; i < 4; i++) await check(await request(i));
    for (const answer of await Promise.all(Array.from({ length: 8 }, (_, i) => request(i)))) await check(answer);
    // A private server now waits in the pool; a caller without the token never reaches it.
    const refused = await privateFetch(`${BASE}/mcp`, modern("skills/list"));
    expect(refused.status).toBe(401);
  });
});
