// The receiver docs/teams.md shows (docs/examples/webhook-receiver.ts, the same text): it accepts
// the Standard Webhooks test vector and what the shelf signs, and refuses a tampered body, another
// secret, a replayed timestamp, missing headers and signatures of another scheme.
import { describe, expect, it } from "vitest";
import receiverSource from "../../../docs/examples/webhook-receiver.ts?raw";
import teamsDoc from "../../../docs/teams.md?raw";
import receiver, { verifyWebhook } from "../../../docs/examples/webhook-receiver.ts";
import { toBase64 } from "../../../src/core/signing/ed25519.ts";
import { parseWebhookSecrets } from "../../../src/core/webhooks/config.ts";
import { importWebhookKeys, webhookAttemptHeaders } from "../../../src/core/webhooks/signature.ts";
import { VECTOR } from "../../core/webhooks/standard-vector.ts";

const OTHER = `whsec_${toBase64(new Uint8Array(32).fill(9))}`;

const headers = (over: Record<string, string | null> = {}) => {
  const h = new Headers({ "webhook-id": VECTOR.id, "webhook-timestamp": String(VECTOR.timestamp), "webhook-signature": VECTOR.signature });
  for (const [k, v] of Object.entries(over)) v === null ? h.delete(k) : h.set(k, v);
  return h;
};

describe("the documented receiver", () => {
  it("is the code docs/teams.md shows", () => {
    expect(teamsDoc).toContain(`\`\`\`ts\n${receiverSource}\`\`\``);
  });

  it("accepts the specification's test vector, and one good signature among several", async () => {
    expect(await verifyWebhook(VECTOR.secret, headers(), VECTOR.body, VECTOR.timestamp)).toBe(true);
    expect(
      await verifyWebhook(VECTOR.secret, headers({ "webhook-signature": `v1,${"A".repeat(43)}= ${VECTOR.signature}` }), VECTOR.body, VECTOR.timestamp),
    ).toBe(true);
  });

  it.each([
    ["a tampered body", VECTOR.secret, headers(), '{"test": 2432232315}', VECTOR.timestamp],
    ["another secret", OTHER, headers(), VECTOR.body, VECTOR.timestamp],
    ["a replayed delivery (6 minutes old)", VECTOR.secret, headers(), VECTOR.body, VECTOR.timestamp + 6 * 60],
    ["a delivery from the future", VECTOR.secret, headers(), VECTOR.body, VECTOR.timestamp - 6 * 60],
    ["a changed id", VECTOR.secret, headers({ "webhook-id": "msg_other" }), VECTOR.body, VECTOR.timestamp],
    ["no signature", VECTOR.secret, headers({ "webhook-signature": null }), VECTOR.body, VECTOR.timestamp],
    ["no id", VECTOR.secret, headers({ "webhook-id": null }), VECTOR.body, VECTOR.timestamp],
    ["a timestamp that is not seconds", VECTOR.secret, headers({ "webhook-timestamp": "1614265330.0" }), VECTOR.body, VECTOR.timestamp],
    ["another scheme's signature", VECTOR.secret, headers({ "webhook-signature": VECTOR.signature.replace("v1,", "v1a,") }), VECTOR.body, VECTOR.timestamp],
    ["a signature that is not base64", VECTOR.secret, headers({ "webhook-signature": "v1,not*base64" }), VECTOR.body, VECTOR.timestamp],
  ])("refuses %s", async (_what, secret, h, body, now) => {
    expect(await verifyWebhook(secret, h, body, now)).toBe(false);
  });

  it("answers 204 to what the shelf signs now, and 401 to a forgery", async () => {
    const parsed = parseWebhookSecrets(OTHER) as { keys: Uint8Array[] };
    const body = JSON.stringify({ type: "shelf.published", timestamp: "2026-12-02T09:00:00Z", data: { seq: 1, lines: ["added alpha"] } });
    const signed = await webhookAttemptHeaders(await importWebhookKeys(parsed.keys), "msg_abc", Math.floor(Date.now() / 1000), body);
    const post = (h: Record<string, string>, b = body) => new Request("https://receiver.test/", { method: "POST", headers: h, body: b });
    const env = { WEBHOOK_SECRET: OTHER };
    const quiet = console.log;
    console.log = () => {};
    try {
      expect((await receiver.fetch(post(signed), env)).status).toBe(204);
      expect((await receiver.fetch(post(signed, body.replace("alpha", "evil")), env)).status).toBe(401);
      expect((await receiver.fetch(post(signed), { WEBHOOK_SECRET: VECTOR.secret })).status).toBe(401);
      expect((await receiver.fetch(new Request("https://receiver.test/"), env)).status).toBe(405);
    } finally {
      console.log = quiet;
    }
  });
});
