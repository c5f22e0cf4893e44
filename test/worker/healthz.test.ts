import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("/healthz", () => {
  it("answers ok without storage", async () => {
    const res = await exports.default.fetch("https://shelf.test/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
