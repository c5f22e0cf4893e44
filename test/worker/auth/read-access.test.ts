// Private shelves: bearer tokens held as SHA-256 hashes (secret list or KV records with expiry),
// 401 with WWW-Authenticate, and the capability-URL form (off by default).
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { readAccess, type ReadAccessEnv, type ReadAccessVariables, type SignInMethod } from "../../../src/worker/auth/read-access.ts";
import { createReadTokenVerifier, parseTokenHashList, READ_TOKEN_KV_PREFIX } from "../../../src/worker/auth/read-tokens.ts";
import { handleError } from "../../../src/worker/http/error-handler.ts";
import { StorageUnavailableError } from "../../../src/worker/storage/errors.ts";

const TOKEN = "sk_team_0123456789abcdef0123456789abcdef";
const KV_TOKEN = "sk_team_kv_fedcba9876543210fedcba98765432";

type E = { Bindings: ReadAccessEnv; Variables: ReadAccessVariables };

function appWith(verifyClock?: () => number) {
  const reads = new Hono<E>();
  reads.use("/skills/*", readAccess({ verify: createReadTokenVerifier({ clock: verifyClock }) }));
  reads.get("/skills/:name/SKILL.md", (c) => {
    if (c.req.param("name") !== "present") return c.json({ error: "not_found" }, 404);
    return c.json({ prefix: c.get("shelfAccess").urlPrefix, visibility: c.get("shelfAccess").visibility });
  });
  const app = new Hono<E>();
  app.onError(handleError);
  app.route("/", reads);
  app.route("/c/:token", reads);
  return app;
}

async function privateEnv(extra: Partial<ReadAccessEnv> = {}): Promise<ReadAccessEnv> {
  return { SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: `${await sha256Hex(TOKEN)}`, SHELF_KV: env.SHELF_KV, ...extra };
}

describe("private shelf bearer auth", () => {
  it("lets anyone read a public shelf", async () => {
    const res = await appWith().request("/skills/present/SKILL.md", {}, { SHELF_VISIBILITY: "public" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ prefix: "", visibility: "public" });
  });

  it("answers 401 with WWW-Authenticate, the same for a present and a missing skill", async () => {
    const app = appWith();
    const e = await privateEnv();
    const present = await app.request("/skills/present/SKILL.md", {}, e);
    const missing = await app.request("/skills/missing/SKILL.md", {}, e);
    expect(present.status).toBe(401);
    expect(present.headers.get("WWW-Authenticate")).toBe('Bearer realm="skillshelf"');
    expect(missing.status).toBe(401);
    expect(await missing.text()).toBe(await present.text());
  });

  it("accepts a token whose SHA-256 is in the secret, and refuses its hash presented as a token", async () => {
    const app = appWith();
    const e = await privateEnv();
    const ok = await app.request("/skills/present/SKILL.md", { headers: { Authorization: `Bearer ${TOKEN}` } }, e);
    expect(ok.status).toBe(200);
    const hashAsToken = await app.request("/skills/present/SKILL.md", { headers: { Authorization: `Bearer ${await sha256Hex(TOKEN)}` } }, e);
    expect(hashAsToken.status).toBe(401);
    expect(hashAsToken.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("accepts a KV record until its expiry, then refuses it", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const app = appWith(() => now);
    await env.SHELF_KV.put(READ_TOKEN_KV_PREFIX + (await sha256Hex(KV_TOKEN)), JSON.stringify({ label: "ci", expires_at: "2026-01-01T01:00:00Z" }));
    const e = await privateEnv();
    const init = { headers: { Authorization: `Bearer ${KV_TOKEN}` } };
    expect((await app.request("/skills/present/SKILL.md", init, e)).status).toBe(200);
    now = Date.parse("2026-01-01T02:00:00Z");
    expect((await app.request("/skills/present/SKILL.md", init, e)).status).toBe(401);
  });

  it("treats an unknown visibility value as private (fail closed)", async () => {
    const res = await appWith().request("/skills/present/SKILL.md", {}, { SHELF_VISIBILITY: "pubic" });
    expect(res.status).toBe(401);
  });

  it("never lets the publish token read (only read-token hashes are consulted)", async () => {
    const publishToken = "sk_publish_0123456789abcdef0123456789";
    const e = await privateEnv({ PUBLISH_TOKEN_SHA256: await sha256Hex(publishToken) } as Partial<ReadAccessEnv>);
    const res = await appWith().request("/skills/present/SKILL.md", { headers: { Authorization: `Bearer ${publishToken}` } }, e);
    expect(res.status).toBe(401);
  });

  it("answers 503, not 401, when the KV lookup fails", async () => {
    const broken = {
      get: async () => {
        throw new Error("kv down");
      },
    } as unknown as KVNamespace;
    const res = await appWith().request(
      "/skills/present/SKILL.md",
      { headers: { Authorization: `Bearer ${KV_TOKEN}x` } },
      await privateEnv({ SHELF_KV: broken }),
    );
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(30);
  });
});

describe("sign-in methods (the hook later methods such as OAuth plug into)", () => {
  // A stand-in method: its own header, "ok" granted, anything else refused, absent not its business.
  const viaHeader: SignInMethod = {
    name: "test-header",
    async authenticate(request) {
      const value = request.headers.get("X-Test-Credential");
      if (value === null) return undefined;
      return value === "ok" ? "granted" : "refused";
    },
  };
  function appWithMethod() {
    const reads = new Hono<E>();
    reads.use("/skills/*", readAccess({ methods: [viaHeader] }));
    reads.get("/skills/:name/SKILL.md", (c) => c.json({ visibility: c.get("shelfAccess").visibility }));
    const app = new Hono<E>();
    app.onError(handleError);
    app.route("/", reads);
    return app;
  }

  it("asks a method after the read token: it grants, refuses (401 as a rejected token), or passes", async () => {
    const app = appWithMethod();
    const e = await privateEnv();
    expect((await app.request("/skills/x/SKILL.md", { headers: { "X-Test-Credential": "ok" } }, e)).status).toBe(200);
    const refused = await app.request("/skills/x/SKILL.md", { headers: { "X-Test-Credential": "no", Authorization: "Bearer not-a-read-token-at-all" } }, e);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    // A valid read token is checked first, so a method never sees it (nor can it veto it).
    const readFirst = await app.request("/skills/x/SKILL.md", { headers: { "X-Test-Credential": "no", Authorization: `Bearer ${TOKEN}` } }, e);
    expect(readFirst.status).toBe(200);
    expect((await app.request("/skills/x/SKILL.md", { headers: { Authorization: `Bearer ${TOKEN}` } }, e)).status).toBe(200);
    expect((await app.request("/skills/x/SKILL.md", {}, e)).status).toBe(401);
  });
});

describe("a sign-in method that claims a bearer token by its shape (OAuth's tokens)", () => {
  // Claims tokens starting "claimed:"; grants OK, refuses the rest, and fails on DOWN (each long enough to be a read token).
  const [OK, REFUSED, DOWN] = ["claimed:ok-0123456789", "claimed:refused-0123456789", "claimed:down-0123456789"];
  const asked: string[] = [];
  const claiming: SignInMethod = {
    name: "test-claiming",
    claimsToken: (token) => token.startsWith("claimed:"),
    async authenticate(request) {
      const token = request.headers.get("Authorization")!.slice("Bearer ".length);
      asked.push(`method ${token}`);
      if (token === DOWN) throw new StorageUnavailableError("test: the method's store is down");
      return token === OK ? "granted" : "refused";
    },
  };
  function appWithClaiming() {
    const reads = new Hono<E>();
    // A verifier of its own per app: its in-isolate cache would otherwise carry answers between cases.
    const countingVerify = createReadTokenVerifier();
    const verify: typeof countingVerify = async (token, e) => {
      asked.push(`read token ${typeof token === "string" ? token : "by hash"}`);
      return countingVerify(token, e);
    };
    reads.use("/skills/*", readAccess({ verify, methods: [claiming] }));
    reads.get("/skills/:name/SKILL.md", (c) => c.json({ visibility: c.get("shelfAccess").visibility }));
    const app = new Hono<E>();
    app.onError(handleError);
    app.route("/", reads);
    return app;
  }
  const get = async (token: string, e: ReadAccessEnv) => {
    asked.length = 0;
    return (await appWithClaiming().request("/skills/x/SKILL.md", { headers: { Authorization: `Bearer ${token}` } }, e)).status;
  };

  it("asks the method first, and never the read-token store when it grants", async () => {
    const e = await privateEnv();
    expect(await get(OK, e)).toBe(200);
    expect(asked).toEqual([`method ${OK}`]);
    // Any other token: the read token first, as before, and the method not at all once it reads.
    expect(await get(TOKEN, e)).toBe(200);
    expect(asked).toEqual([`read token ${TOKEN}`]);
  });

  it("answers as the usual order would when the method does not grant: a read token of the claimed shape still reads", async () => {
    const claimedReadToken = "claimed:but-a-read-token";
    const e = await privateEnv({ READ_TOKEN_SHA256: `${await sha256Hex(TOKEN)},${await sha256Hex(claimedReadToken)}` });
    expect(await get(claimedReadToken, e)).toBe(200);
    expect(asked).toEqual([`method ${claimedReadToken}`, `read token ${claimedReadToken}`]);
    expect(await get(REFUSED, e)).toBe(401);
    expect(asked).toEqual([`method ${REFUSED}`, `read token ${REFUSED}`]);
  });

  it("throws the method's failure only when the token is not a read token either", async () => {
    expect(await get(DOWN, await privateEnv())).toBe(503);
    const e = await privateEnv({ READ_TOKEN_SHA256: `${await sha256Hex(DOWN)}` });
    expect(await get(DOWN, e)).toBe(200);
  });
});

describe("capability URLs", () => {
  it("are off by default: 404, as if the path did not exist", async () => {
    const res = await appWith().request(`/c/${TOKEN}/skills/present/SKILL.md`, {}, await privateEnv());
    expect(res.status).toBe(404);
  });

  it("read with a valid token when switched on, and echo the prefix", async () => {
    const res = await appWith().request(`/c/${TOKEN}/skills/present/SKILL.md`, {}, await privateEnv({ SHELF_CAPABILITY_URLS: "on" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ prefix: `/c/${TOKEN}`, visibility: "private" });
  });

  it("answer 404 for a wrong token", async () => {
    const res = await appWith().request(`/c/${TOKEN}x/skills/present/SKILL.md`, {}, await privateEnv({ SHELF_CAPABILITY_URLS: "on" }));
    expect(res.status).toBe(404);
  });
});

describe("READ_TOKEN_SHA256 parsing", () => {
  it("keeps only SHA-256 hex entries", () => {
    const a = "a".repeat(64);
    expect([...parseTokenHashList(` ${a}, not-a-hash,${"B".repeat(64)}\n`)]).toEqual([a, "b".repeat(64)]);
  });
});
