// Runs inside the [env.acme] configuration of wrangler.toml (vitest project "workerd-team"):
// the team's own vars make the shelf private, its own bucket holds its own generation, and a
// read token known only by its hash opens it.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";

const READ_TOKEN = "sk_acme_read_0123456789abcdef0123";

beforeAll(async () => {
  resetStorageMemory();
  await publishFixtureShelf(env, [{ name: "acme-runbook", description: "Acme's own on-call runbook." }]);
});

describe("team environment acme", () => {
  it("is configured from [env.acme]: private, capability URLs off", () => {
    const vars = env as unknown as Record<string, string>;
    expect(vars.SHELF_VISIBILITY).toBe("private");
    expect(vars.SHELF_CAPABILITY_URLS).toBe("off");
  });

  it("refuses reads without a token, for present and missing skills alike", async () => {
    for (const path of ["/skills/index.json", "/skills/acme-runbook/SKILL.md", "/skills/nope/SKILL.md", "/.well-known/agent-skills/index.json"]) {
      const res = await exports.default.fetch(`https://acme.test${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="skillshelf"');
    }
  });

  it("serves the team's skills to a holder of its read token, privately cached, without CORS", async () => {
    const res = await exports.default.fetch("https://acme.test/skills/index.json", { headers: { Authorization: `Bearer ${READ_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ skills: ["acme-runbook"] });
    expect(res.headers.get("Cache-Control")).toMatch(/^private/);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("keeps capability URLs off (404) as configured", async () => {
    const res = await exports.default.fetch(`https://acme.test/c/${READ_TOKEN}/skills/index.json`);
    expect(res.status).toBe(404);
  });

  it("still answers /healthz without a token", async () => {
    expect((await exports.default.fetch("https://acme.test/healthz")).status).toBe(200);
  });
});
