// POST /v1/select over the trust shelf (trust-shelf.ts): every answer equals core's selectSkills
// computed here over the shelf's whole registry and an in-memory source read from the same skill
// folders (as the CLI's filesystem source reads them), with the advisories in force. Blocked,
// held, enabled by name and by pin, malformed pins, a grant's effective tools, the pinned and
// capability forms, every refusal, and the caching claims (binding counts, ETag, no-store).
// test/cli/commands/select-edge.test.ts proves the same against the real CLI on a running Worker.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../src/core/api/contract.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { validateSkillMd } from "../../../src/core/skill/validate.ts";
import { selectSkills, type SkillSource } from "../../../src/core/trust/select.ts";
import { effectiveToolsForSkill } from "../../../src/core/trust/tools.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import app from "../../../src/worker/index.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { newCounts, total, type CallCounts } from "../admin/helpers.ts";
import { expectDocumented } from "./openapi-check.ts";
import { publishTrustShelf } from "./trust-fixture.ts";
import { trustShelf, type TrustShelf } from "./trust-shelf.ts";

const BASE = "https://shelf.test";
const READ_TOKEN = "sk_test_read_select_0123456789abcdef";
let shelf: TrustShelf;
let generation: string;

async function post(path: string, body: unknown, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await app.request(
    `${BASE}${path}`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...init.headers },
      body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
      ...init,
    },
    bindings,
  );
  await expectDocumented("post", path, res);
  return res;
}

/** The CLI's filesystem source, over the shelf's folders in memory: SKILL.md validated, tree hashed. */
function memorySource(): SkillSource {
  return {
    resolve(name) {
      const files = shelf.files.get(name);
      if (!files) return { ok: false, message: `skill not found: ${name}` };
      const meta = validateSkillMd(name, files.find((f) => f.path === "SKILL.md")!.bytes).metadata!;
      const inventory = shelf.inventories.get(name)!;
      return {
        ok: true,
        resolved: {
          skill: { name: meta.name, description: meta.description, allowed_tools: meta.allowed_tools ?? [], metadata: meta.metadata },
          tree_hash: inventory.tree_hash,
          has_scripts: inventory.has_scripts,
          location: `/g/${generation}/skills/${name}`,
        },
      };
    },
  };
}

/** What the Worker must answer: core's selection (less the active skills' metadata), the API's enable notes, the effective tools. */
async function expected(body: { names: string[]; enabled?: string[]; grant?: string[] }, enableNotes: string[] = []) {
  const records = { validations: shelf.validations, advisories: shelf.advisoriesInForce };
  const { active, ...selection } = await selectSkills(records, memorySource(), body.names, { enabled: body.enabled ?? [] });
  selection.warnings.push(...enableNotes);
  const grant = body.grant;
  return {
    generation,
    ...selection,
    ...(grant ? { effective_tools: Object.fromEntries(active.map((s) => [s.name, effectiveToolsForSkill(grant, s)])) } : {}),
  };
}

function countingEnv(counts: CallCounts, base: object = env) {
  const wrap = <T extends object>(target: T, label: string): T =>
    new Proxy(target, {
      get(obj, prop) {
        const value = Reflect.get(obj, prop);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          counts.calls[`${label}.${String(prop)}`] = (counts.calls[`${label}.${String(prop)}`] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  return { ...base, SHELF_BUCKET: wrap(env.SHELF_BUCKET, "R2"), SHELF_KV: wrap(env.SHELF_KV, "KV") };
}

const tree = (name: string) => shelf.inventories.get(name)!.tree_hash;
const ALL = ["audited-skill", "scripted-skill", "unverified-skill", "renamed-skill", "warned-skill", "withdrawn-skill", "bad-skill"];

beforeAll(async () => {
  shelf = await trustShelf();
  generation = await publishTrustShelf(env, shelf, shelf.advisoriesInForce);
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

describe("POST /v1/select", () => {
  it("gates every skill as core does: attachable active, review held, blocked blocked, unknown missing, duplicates warned", async () => {
    const body = { names: [...ALL, "no-such-skill", "audited-skill"] };
    const res = await post("/v1/select", body);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const answer = (await res.json()) as Awaited<ReturnType<typeof expected>>;
    expect(answer).toEqual(await expected(body));
    expect(answer.active_names).toEqual(["audited-skill", "withdrawn-skill"]);
    expect(answer.held.map((h) => h.name)).toEqual(["scripted-skill", "unverified-skill", "renamed-skill", "warned-skill"]);
    expect(answer.blocked.map((b) => b.name)).toEqual(["bad-skill"]);
    expect(answer.missing).toEqual(["no-such-skill"]);
    expect(answer.requires).toEqual({ "scripted-skill": { mcp_servers: ["github"], tools: ["gh"] } });
    expect(answer.activation_descriptions).toEqual({ "audited-skill": "Use for audited <things> & more." });
    expect(answer.activation_block).toContain("<description>Use for audited &lt;things&gt; &amp; more.</description>");
    expect(answer.resolved_tree_hashes["scripted-skill"]).toBe(tree("scripted-skill"));
    expect(answer.resolved_locations["bad-skill"]).toBe(`/g/${generation}/skills/bad-skill`);
    expect(answer.warnings.some((w) => w.includes("duplicate skill name(s)"))).toBe(true);
    expect(answer.warnings.some((w) => w.includes("derived from name-bound validation record(s)"))).toBe(true);
    expect(answer).not.toHaveProperty("effective_tools");
  });

  it("activates a requires_review skill enabled by bare name or by its tree-hash pin; a blocked one never", async () => {
    const body = { names: ALL, enabled: ["unverified-skill", `scripted-skill@${tree("scripted-skill")}`, "bad-skill", `bad-skill@${tree("bad-skill")}`] };
    const answer = (await (await post("/v1/select", body)).json()) as Awaited<ReturnType<typeof expected>>;
    expect(answer).toEqual(await expected(body));
    expect(answer.active_names).toEqual(["audited-skill", "scripted-skill", "unverified-skill", "withdrawn-skill"]);
    expect(answer.blocked.map((b) => b.name)).toEqual(["bad-skill"]);
    expect(answer.warnings).toContain(
      `skill 'scripted-skill' activated by hash-pinned operator enable from /g/${generation}/skills/scripted-skill (tree ${tree("scripted-skill").slice(0, 16)}…)`,
    );
  });

  it("holds a skill whose pin names other bytes, warns entries that grant nothing", async () => {
    const body = {
      names: ["scripted-skill", "unverified-skill", "warned-skill"],
      enabled: [`scripted-skill@${"0".repeat(64)}`, "warned-skill", `warned-skill@${tree("warned-skill")}`, "audited-skill"],
    };
    const notes = ['enabled entry "audited-skill" names no requested skill (names: scripted-skill,unverified-skill,warned-skill); it grants nothing'];
    const answer = (await (await post("/v1/select", body)).json()) as Awaited<ReturnType<typeof expected>>;
    expect(answer).toEqual(await expected(body, notes));
    expect(answer.active_names).toEqual(["warned-skill"]);
    expect(answer.held.map((h) => h.name)).toEqual(["scripted-skill", "unverified-skill"]);
    expect(answer.warnings.some((w) => w.includes("is pinned to tree(s)") && w.includes("'scripted-skill'"))).toBe(true);
    expect(answer.warnings.some((w) => w.includes("mix a bare name with hash pin(s)"))).toBe(true);
  });

  it("gives each active skill's effective tools when a grant is given", async () => {
    const body = {
      names: ["audited-skill", "scripted-skill", "unverified-skill"],
      enabled: ["scripted-skill", "unverified-skill"],
      grant: ["Read", "write_file", "Grep"],
    };
    const answer = (await (await post("/v1/select", body)).json()) as Awaited<ReturnType<typeof expected>> & {
      effective_tools: Record<string, { allowed: string[]; unresolved_tokens: string[][] }>;
    };
    expect(answer).toEqual(await expected(body));
    expect(answer.effective_tools["audited-skill"]!.allowed).toEqual(["Grep", "Read", "write_file"]); // declares nothing: the whole grant
    expect(answer.effective_tools["scripted-skill"]!.allowed).toEqual(["Read"]);
    expect(answer.effective_tools["scripted-skill"]!.unresolved_tokens).toEqual([["scripted-skill", "Bash(git:*)"]]);
    expect(answer.effective_tools["unverified-skill"]!.allowed).toEqual(["Grep", "Read"]);
    const none = (await (await post("/v1/select", { ...body, grant: [] })).json()) as typeof answer;
    expect(none.effective_tools["audited-skill"]!.allowed).toEqual([]);
  });

  it("answers alike at the pinned form and at a capability URL", async () => {
    const body = { names: ALL, enabled: ["unverified-skill"], grant: ["Read"] };
    const want = await expected(body);
    const pinned = await post(`/g/${generation}/v1/select`, body);
    expect(pinned.status).toBe(200);
    expect(await pinned.json()).toEqual(want);
    const privately = { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: await sha256Hex(READ_TOKEN) };
    const capability = await post(`/c/${READ_TOKEN}/v1/select`, body, {}, privately);
    expect(capability.status).toBe(200);
    expect(await capability.json()).toEqual(want);
    const refused = await post("/v1/select", body, {}, privately);
    expect(refused.status).toBe(401);
  });

  it("computes once: a repeated or equivalent request reads no R2 object, shares the ETag, answers 304 and is never stored downstream", async () => {
    const counts = newCounts();
    const bindings = countingEnv(counts);
    const body = { names: ALL, enabled: ["unverified-skill"], grant: ["Read", "Grep"] };
    const first = await post("/v1/select", body, {}, bindings);
    expect(first.status).toBe(200);
    expect(first.headers.get("Cache-Control")).toBe("no-store");
    expect(total(counts, "R2.get")).toBeGreaterThanOrEqual(ALL.length); // one record per named skill, cold
    counts.calls = {};
    // The same selection: grant order and repeats change nothing, so the answer is shared.
    const again = await post("/v1/select", { ...body, grant: ["Grep", "Read", "Grep"] }, {}, bindings);
    expect(await again.text()).toBe(await first.text());
    expect(again.headers.get("ETag")).toBe(first.headers.get("ETag"));
    expect(total(counts, "R2.")).toBe(0);
    expect(total(counts, "KV.")).toBe(0);
    const notModified = await post(
      "/v1/select",
      body,
      { headers: { "Content-Type": "application/json", "If-None-Match": first.headers.get("ETag")! } },
      bindings,
    );
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("Cache-Control")).toBe("no-store");
    // Names keep their order (the answer lists in it): another order is another answer.
    const reordered = await post("/v1/select", { ...body, names: [...ALL].reverse() }, {}, bindings);
    expect(reordered.headers.get("ETag")).not.toBe(first.headers.get("ETag"));
  });

  it("reads a text/plain body as JSON (a browser's simple request)", async () => {
    const body = { names: ["audited-skill"] };
    const res = await post("/v1/select", JSON.stringify(body), { headers: { "Content-Type": "text/plain" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(await expected(body));
  });
});

describe("POST /v1/select refusals", () => {
  async function refusal(res: Response, status: number, code: string, param?: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const problem = (await res.json()) as { code: string; param?: string; detail: string };
    expect(problem.code).toBe(code);
    if (param !== undefined) expect(problem.param).toBe(param);
    return problem;
  }

  it("answers 400 malformed_json to a body that is not JSON, empty, or not UTF-8", async () => {
    await refusal(await post("/v1/select", "{names: [adr]}"), 400, "malformed_json", "body");
    await refusal(await post("/v1/select", ""), 400, "malformed_json", "body");
    await refusal(await post("/v1/select", new Uint8Array([0x7b, 0xff, 0x7d])), 400, "malformed_json", "body");
  });

  it("answers 413 too_large past the cap, declared or streamed", async () => {
    const big = JSON.stringify({ names: ["audited-skill"], grant: ["x".repeat(API_LIMITS.maxSelectBodyBytes)] });
    await refusal(await post("/v1/select", big), 413, "too_large", "body");
    const chunks = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < chunks.length; at += 4096) controller.enqueue(chunks.slice(at, at + 4096));
        controller.close();
      },
    });
    const streamed = await app.request(`${BASE}/v1/select`, { method: "POST", body: stream, duplex: "half" } as RequestInit, env);
    await expectDocumented("post", "/v1/select", streamed);
    await refusal(streamed, 413, "too_large", "body");
    // A declared length over the cap is refused before a byte is read.
    const declared = new Request(`${BASE}/v1/select`, { method: "POST", body: big, headers: { "Content-Length": String(big.length) } });
    expect(declared.headers.get("Content-Length")).toBe(String(big.length));
    const unread = await app.request(declared, undefined, env);
    await expectDocumented("post", "/v1/select", unread);
    await refusal(unread, 413, "too_large", "body");
    expect(declared.bodyUsed).toBe(false);
  });

  it("answers 422 unprocessable naming the field for a body that breaks the schema", async () => {
    const tooMany = Array.from({ length: API_LIMITS.maxNames + 1 }, (_, i) => `skill-${i}`);
    const cases: [unknown, string][] = [
      [{}, "names"],
      [[], "body"],
      [{ names: [] }, "names"],
      [{ names: "audited-skill" }, "names"],
      [{ names: ["audited-skill", "Bad_Name"] }, "names.1"],
      [{ names: tooMany }, "names"],
      [{ names: ["audited-skill"], enabled: "audited-skill" }, "enabled"],
      [{ names: ["audited-skill"], enabled: [7] }, "enabled.0"],
      [{ names: ["audited-skill"], enabled: ["audited-skill", "unverified-skill@xyz"] }, "enabled.1"],
      [{ names: ["audited-skill"], enabled: [`audited-skill@${"A".repeat(64)}`] }, "enabled.0"],
      [{ names: ["audited-skill"], enabled: ["Not A Name"] }, "enabled.0"],
      [{ names: ["audited-skill"], enabled: tooMany }, "enabled"],
      [{ names: ["audited-skill"], grant: Array.from({ length: API_LIMITS.maxGrantTools + 1 }, (_, i) => `t${i}`) }, "grant"],
      [{ names: ["audited-skill"], grant: [""] }, "grant.0"],
      [{ names: ["audited-skill"], enable: ["audited-skill"] }, "body"],
    ];
    for (const [body, param] of cases) {
      const problem = await refusal(await post("/v1/select", body), 422, "unprocessable", param);
      expect(problem.detail.startsWith(`${param}: `), JSON.stringify(body)).toBe(true);
    }
  });

  it("answers 404 when nothing is published at the pinned generation", async () => {
    await refusal(await post(`/g/${"0".repeat(64)}/v1/select`, { names: ["audited-skill"] }), 404, "not_found");
  });
});
