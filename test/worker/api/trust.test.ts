// GET /v1/trust and GET /v1/trust/{name} over the trust shelf (trust-shelf.ts): each verdict
// equals core's evaluateTrust over the shelf's whole registry (computed here, not the stored
// records the Worker reads), the blocked and requires_review sets agree with /v1/shelf (the edge
// verdict every view applies), errors are problems, and a repeated request reads no storage.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { evaluateTrust, sourceCandidates, type TrustVerdict } from "../../../src/core/trust/evaluate.ts";
import type { TrustRecords } from "../../../src/core/trust/records.ts";
import { judgeSkill } from "../../../src/core/trust/select.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import app from "../../../src/worker/index.ts";
import { newCounts, total, type CallCounts } from "../admin/helpers.ts";
import { expectDocumented } from "./openapi-check.ts";
import { publishTrustShelf, setAdvisoriesInForce } from "./trust-fixture.ts";
import { trustShelf, type TrustShelf } from "./trust-shelf.ts";

const BASE = "https://shelf.test";
let shelf: TrustShelf;
let generation: string;

async function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  const res = await app.request(`${BASE}${path}`, init, bindings);
  await expectDocumented("get", path, res);
  return res;
}

/** The verdict the Worker must give `name`, from the whole registry and the advisories in force. */
function expectedVerdict(name: string, advisories = shelf.advisoriesInForce): TrustVerdict {
  const full: TrustRecords = { validations: shelf.validations, advisories };
  const inventory = shelf.inventories.get(name)!;
  const source = sourceCandidates(full, name, inventory.tree_hash)[0]?.source ?? null;
  const verdict = evaluateTrust(full, { tree_hash: inventory.tree_hash, name, source, has_scripts: inventory.has_scripts });
  // The build's verdict (its advisories) holds a skill for review until the next build.
  const built = judgeSkill({ validations: shelf.validations, advisories: shelf.buildAdvisories }, { name, ...inventory }, () => {});
  if (!built.requires_review || verdict.requires_review) return verdict;
  return {
    ...verdict,
    requires_review: true,
    attachable: false,
    reasons: [...verdict.reasons, `review: the build's verdict requires review (${built.reasons.join("; ")})`],
  };
}

function expectedSkill(name: string) {
  const inventory = shelf.inventories.get(name)!;
  const source = sourceCandidates({ validations: shelf.validations, advisories: [] }, name, inventory.tree_hash)[0]?.source ?? null;
  return { name, tree_hash: inventory.tree_hash, source, has_scripts: inventory.has_scripts, verdict: expectedVerdict(name) };
}

function countingEnv(counts: CallCounts) {
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
  return { ...env, SHELF_BUCKET: wrap(env.SHELF_BUCKET, "R2"), SHELF_KV: wrap(env.SHELF_KV, "KV") };
}

beforeAll(async () => {
  shelf = await trustShelf();
  generation = await publishTrustShelf(env, shelf, shelf.advisoriesInForce);
});

beforeEach(() => {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
});

describe("GET /v1/trust", () => {
  it("gives every served skill's verdict as core computes it, the blocked skill with its advisory, and the advisories in force", async () => {
    const res = await get("/v1/trust");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = (await res.json()) as { generation: string; advisories: unknown; skills: unknown[]; blocked: unknown[] };
    expect(body.generation).toBe(generation);
    const served = [...shelf.files.keys()].filter((n) => n !== "bad-skill").sort();
    expect(body.skills).toEqual(served.map(expectedSkill));
    expect(body.advisories).toEqual({ seq: 2, in_force: shelf.advisoriesInForce });
    const blocking = shelf.advisoriesInForce.find((a) => a.name === "bad-skill")!;
    expect(body.blocked).toEqual([
      {
        name: "bad-skill",
        advisory: {
          advisory_id: blocking.advisory_id,
          name: "bad-skill",
          source: "first-party",
          severity: "critical",
          hidden_issue: blocking.hidden_issue,
          reference: blocking.reference,
          tree_hash: null,
        },
      },
    ]);
  });

  it("covers each outcome: attachable, scripts, unverified, name-bound provenance, an advisory, a withdrawn one", async () => {
    const body = (await (await get("/v1/trust")).json()) as { skills: { name: string; source: string | null; verdict: TrustVerdict }[] };
    const by = Object.fromEntries(body.skills.map((s) => [s.name, s]));
    expect(by["audited-skill"]!.verdict).toMatchObject({ level: "first_party", attachable: true });
    expect(by["scripted-skill"]!.verdict).toMatchObject({ level: "audited", requires_review: true });
    expect(by["scripted-skill"]!.verdict.reasons.at(-1)).toMatch(/bundles scripts/);
    expect(by["unverified-skill"]!.verdict).toMatchObject({ level: "unverified", requires_review: true });
    expect(by["renamed-skill"]).toMatchObject({ source: "vendor-y", verdict: { level: "unverified" } });
    expect(by["warned-skill"]!.verdict).toMatchObject({ level: "first_party", requires_review: true });
    expect(by["warned-skill"]!.verdict.advisories.map((a) => a.advisory_id)).toEqual(["ADV-T-1"]);
    // Withdrawn since the build: the evaluation alone attaches, the edge holds it until a rebuild, and says why.
    expect(by["withdrawn-skill"]!.verdict).toMatchObject({ level: "first_party", requires_review: true, attachable: false, advisories: [] });
    expect(by["withdrawn-skill"]!.verdict.reasons.at(-1)).toMatch(
      /^review: the build's verdict requires review \(.*review: low advisory — withdrawn-skill hides an issue\)$/,
    );
  });

  it("agrees with /v1/shelf (the edge verdict) on blocked and requires_review", async () => {
    const trust = (await (await get("/v1/trust")).json()) as { skills: { name: string; verdict: TrustVerdict }[]; blocked: { name: string }[] };
    const status = (await (await app.request(`${BASE}/v1/shelf`, {}, env)).json()) as { requires_review: string[]; blocked: { name: string }[] };
    expect(trust.skills.filter((s) => s.verdict.requires_review).map((s) => s.name)).toEqual(status.requires_review);
    expect(trust.blocked.map((b) => b.name)).toEqual(status.blocked.map((b) => b.name));
    expect(trust.skills.every((s) => !s.verdict.blocked && s.verdict.attachable === !s.verdict.requires_review)).toBe(true);
  });

  it("reads storage once: a repeated request reads no R2 object and no KV key, and its ETag answers 304", async () => {
    const counts = newCounts();
    const bindings = countingEnv(counts);
    const first = await get("/v1/trust", {}, bindings);
    expect(first.status).toBe(200);
    // Cold: the pointer and the advisories (each a KV look-up and an R2 read here), the manifest
    // and the one shard (its entries carry the trust inputs), never a record per skill; and the
    // listing a cold isolate looks for in R2 before it builds one (src/worker/read/rendered.ts).
    expect(shelf.files.size).toBeGreaterThan(4);
    expect(total(counts, "R2.get") + total(counts, "KV.get")).toBeLessThanOrEqual(7);
    counts.calls = {};
    const again = await get("/v1/trust", {}, bindings);
    expect(await again.text()).toBe(await first.text());
    expect(total(counts, "R2.")).toBe(0);
    expect(total(counts, "KV.")).toBe(0);
    const etag = first.headers.get("ETag")!;
    expect(again.headers.get("ETag")).toBe(etag);
    const notModified = await get("/v1/trust", { headers: { "If-None-Match": etag } }, bindings);
    expect(notModified.status).toBe(304);
    expect(total(counts, "R2.")).toBe(0);
  });

  it("follows the advisories in force: a new advisory changes the answer and its ETag", async () => {
    const before = await get("/v1/trust");
    const withdrawnAll = shelf.advisoriesInForce.map((a) => (a.name === "bad-skill" ? { ...a, status: "withdrawn" as const, withdrawn_reason: "fixed" } : a));
    await setAdvisoriesInForce(env, withdrawnAll, 3);
    resetStorageMemory();
    try {
      const after = await get("/v1/trust");
      expect(after.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
      const body = (await after.json()) as { blocked: unknown[]; skills: { name: string; verdict: TrustVerdict }[]; advisories: { seq: number } };
      expect(body.blocked).toEqual([]);
      expect(body.advisories.seq).toBe(3);
      expect(body.skills.find((s) => s.name === "bad-skill")!.verdict).toEqual(expectedVerdict("bad-skill", withdrawnAll));
    } finally {
      await setAdvisoriesInForce(env, shelf.advisoriesInForce, 4);
    }
  });

  it("is the same at the pinned form, and 404 for an unknown generation", async () => {
    const current = (await (await get("/v1/trust")).json()) as unknown;
    const pinned = await get(`/g/${generation}/v1/trust`);
    expect(pinned.status).toBe(200);
    expect(await pinned.json()).toEqual(current);
    const unknown = await get(`/g/${"0".repeat(64)}/v1/trust`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe("not_found");
  });

  it("is the same at a capability URL of a private shelf, which refuses a caller without a token", async () => {
    const token = "sk_test_read_trust_0123456789abcdef";
    const privately = { ...env, SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: await sha256Hex(token) };
    const current = (await (await get("/v1/trust/audited-skill")).json()) as unknown;
    const capability = await get(`/c/${token}/v1/trust/audited-skill`, {}, privately);
    expect(capability.status).toBe(200);
    expect(await capability.json()).toEqual(current);
    expect((await get("/v1/trust", {}, privately)).status).toBe(401);
  });
});

describe("GET /v1/trust/{name}", () => {
  it("gives one skill's verdict, equal to core's", async () => {
    for (const name of [...shelf.files.keys()].filter((n) => n !== "bad-skill")) {
      const res = await get(`/v1/trust/${name}`);
      expect(res.status, name).toBe(200);
      expect(await res.json()).toEqual(expectedSkill(name));
    }
  });

  it("answers 410 with the advisory for a blocked skill", async () => {
    const res = await get("/v1/trust/bad-skill");
    expect(res.status).toBe(410);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    const body = (await res.json()) as { code: string; advisory: { advisory_id: string } };
    expect(body.code).toBe("blocked");
    expect(body.advisory.advisory_id).toBe("ADV-T-3");
  });

  it("answers 404 for a skill the shelf does not have, and 400 naming the parameter for a malformed name", async () => {
    const missing = await get("/v1/trust/no-such-skill");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe("not_found");
    const malformed = await get("/v1/trust/Not_A_Name");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: "invalid_parameter", param: "name" });
  });

  it("reads one shard and one record cold, nothing when repeated", async () => {
    const counts = newCounts();
    const bindings = countingEnv(counts);
    await get("/v1/trust/scripted-skill", {}, bindings);
    expect(counts.calls["R2.get"]).toBeGreaterThan(0);
    counts.calls = {};
    const again = await get("/v1/trust/scripted-skill", {}, bindings);
    expect(again.status).toBe(200);
    expect(counts.calls).toEqual({});
  });
});
