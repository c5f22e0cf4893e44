// The admin API contract (src/core/publish/contract.ts): a request that fails a route's schema is
// refused (422 for a body, 400 for a path parameter) with the sentence the API has always
// answered for it, and the routes and error codes are what the Worker binds and the client calls.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  ADMIN_API,
  ADMIN_ERRORS,
  AdvisoriesMergeSchema,
  GcRequestSchema,
  missingObject,
  PointerMoveSchema,
  POINTER_MOVED,
  PresenceQuerySchema,
  requestRefusal,
  RollbackSchema,
  UPLOAD_ROUTES,
} from "../../../src/core/publish/contract.ts";

const ID = "a".repeat(64);

function refusal(schema: z.ZodType, body: unknown) {
  const parsed = schema.safeParse(body);
  expect(parsed.success, JSON.stringify(body)).toBe(false);
  return requestRefusal(parsed.error!.issues);
}

describe("requestRefusal", () => {
  it.each([
    [PointerMoveSchema, {}, `"generation" is required.`],
    [PointerMoveSchema, { generation: 7 }, `"generation" is required.`],
    [PointerMoveSchema, { generation: ID, previous: 7 }, `"previous" must be a generation id or null.`],
    [PointerMoveSchema, { generation: "xyz", previous: null }, "generation must be a 64-character lowercase hex id"],
    [PointerMoveSchema, { generation: ID, previous: "xyz" }, "previous must be a generation id or null"],
    [RollbackSchema, { previous: ID }, `"generation" is required.`],
    [PresenceQuerySchema, { blob: "x" }, `"blob" must be a list of 64-character lowercase hex SHA-256 digests`],
    [PresenceQuerySchema, { record: ["xyz"] }, `"record" must be a list of 64-character lowercase hex SHA-256 digests`],
    [PresenceQuerySchema, { shard: [1] }, `"shard" must be a list of 64-character lowercase hex SHA-256 digests`],
    [PresenceQuerySchema, { generation: null }, `"generation" must be a list of 64-character lowercase hex SHA-256 digests`],
    [GcRequestSchema, { keep: "two" }, `"keep" must be a number.`],
    [GcRequestSchema, { keep: null }, `"keep" must be a number.`],
    [GcRequestSchema, { keep: 1.5 }, "keep must be a whole number ≥ 0"],
    [GcRequestSchema, { keep: -1 }, "keep must be a whole number ≥ 0"],
    [GcRequestSchema, { keep: Infinity }, "keep must be a whole number ≥ 0"],
    [GcRequestSchema, { grace_seconds: 2 ** 60 }, "grace_seconds must be a whole number ≥ 0"],
    [AdvisoriesMergeSchema, { advisories: "nope" }, `"advisories" must be a list`],
    [AdvisoriesMergeSchema, {}, `"advisories" must be a list`],
  ] as [z.ZodType, unknown, string][])("%#: refuses %j with 422 invalid_request and its sentence", (schema, body, message) => {
    expect(refusal(schema, body)).toEqual({ code: "invalid_request", message });
    expect(ADMIN_ERRORS.invalid_request).toBe(422);
  });

  it("refuses a path parameter that is not what the route takes with 400 bad_request", () => {
    const issues = UPLOAD_ROUTES.record.params.safeParse({ sha: "xyz" }).error!.issues;
    expect(requestRefusal(issues, "param")).toEqual({ code: "bad_request", message: "record key must be a 64-character lowercase hex SHA-256" });
    expect(ADMIN_ERRORS.bad_request).toBe(400);
  });

  it("refuses bad advisories with 422 naming every bad entry, as advisories.yaml would", () => {
    const good = { name: "x", source: "y", official_intent: "i", hidden_issue: "h", severity: "low", reference: "r" };
    const r = refusal(AdvisoriesMergeSchema, { advisories: [good, { ...good, severity: "catastrophic" }, [1]] });
    expect(r.code).toBe("invalid_advisories");
    expect(ADMIN_ERRORS[r.code]).toBe(422);
    expect(r.message).toBe(
      "invalid advisories; nothing changed: advisory 1: invalid advisory severity 'catastrophic'; must be one of ['critical', 'high', 'medium', 'low'] | advisory 2: advisory entry must be a mapping, got list",
    );
  });

  it("accepts what the client sends and ignores unknown keys", () => {
    expect(PresenceQuerySchema.parse({ blobs: [ID], blob: [ID] })).toEqual({ blob: [ID] });
    expect(PointerMoveSchema.parse({ generation: ID, previous: null })).toEqual({ generation: ID, previous: null });
    expect(GcRequestSchema.parse({ keep: 0, grace_seconds: 3600, apply: "yes" })).toEqual({ keep: 0, grace_seconds: 3600, apply: "yes" });
  });
});

describe("routes and codes", () => {
  it("has one route per method and path, uploads under their kind's folder", () => {
    const keys = Object.values(ADMIN_API).map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.values(UPLOAD_ROUTES).map((r) => r.path)).toEqual(["/blobs/{sha}", "/records/{sha}", "/shards/{sha}", "/generations/{sha}"]);
    expect(UPLOAD_ROUTES.record.params.safeParse({ sha: "xyz" }).error?.issues[0]?.message).toBe("record key must be a 64-character lowercase hex SHA-256");
  });

  it("names the object behind each key a missing_references answer lists", () => {
    expect(missingObject(`blobs/${ID}`)).toEqual({ kind: "blob", sha256: ID });
    expect(missingObject(`generations/${ID}`)).toEqual({ kind: "generation", sha256: ID });
    for (const key of [`blob/${ID}`, `blobs/${ID.toUpperCase()}`, `pointer.json`, `blobs/${ID}/x`]) expect(missingObject(key), key).toBeNull();
  });

  it("gives every code one status, and pointer_moved is a 409", () => {
    expect(ADMIN_ERRORS[POINTER_MOVED]).toBe(409);
    for (const [code, status] of Object.entries(ADMIN_ERRORS)) expect([400, 401, 404, 409, 410, 413, 422, 503], code).toContain(status);
  });
});
