// Standard Webhooks signing against the specification's own test vector, the two settings' rules
// (every refusal named, no secret ever echoed), and the event and Slack formatters.
import { describe, expect, it } from "vitest";
import type { ChangeDocument } from "../../../src/core/changes/document.ts";
import { toBase64 } from "../../../src/core/signing/ed25519.ts";
import { MAX_WEBHOOK_RECEIVERS, parseWebhookReceivers, parseWebhookSecrets, webhookConfig } from "../../../src/core/webhooks/config.ts";
import { slackMessage, WEBHOOK_MAX_LINES, webhookBody, webhookEvent, webhookId, type WebhookEntry } from "../../../src/core/webhooks/event.ts";
import { importWebhookKeys, webhookAttemptHeaders, webhookSignature } from "../../../src/core/webhooks/signature.ts";
import { VECTOR } from "./standard-vector.ts";

const keysOf = async (secret: string) => {
  const parsed = parseWebhookSecrets(secret);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return importWebhookKeys(parsed.keys);
};

describe("Standard Webhooks signature", () => {
  it("matches the specification's test vector", async () => {
    expect(await webhookSignature(await keysOf(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it("signs with every key during a rotation, newest first", async () => {
    const other = `whsec_${toBase64(new Uint8Array(32).fill(7))}`;
    const both = await webhookSignature(await keysOf(`${other} ${VECTOR.secret}`), VECTOR.id, VECTOR.timestamp, VECTOR.body);
    const parts = both.split(" ");
    expect(parts).toHaveLength(2);
    expect(parts[1]).toBe(VECTOR.signature);
    expect(parts[0]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(parts[0]).not.toBe(VECTOR.signature);
  });

  it("sends id, timestamp and signature headers, and no signature without a key", async () => {
    expect(await webhookAttemptHeaders(await keysOf(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual({
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": VECTOR.signature,
    });
    expect(await webhookAttemptHeaders([], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual({
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
    });
  });

  it("refuses an id with a full stop and a timestamp that is not whole seconds", async () => {
    const keys = await keysOf(VECTOR.secret);
    await expect(webhookSignature(keys, "msg.1", 1, "{}")).rejects.toThrow(/must not contain/);
    await expect(webhookSignature(keys, "msg_1", 1.5, "{}")).rejects.toThrow(/whole Unix seconds/);
  });
});

describe("SHELF_WEBHOOK_URLS", () => {
  it("reads https receivers and slack: ones, comma or space separated", () => {
    expect(parseWebhookReceivers(" https://ci.example/hook,slack:https://hooks.slack.com/services/T0/B0/x  http://localhost:9000/h ")).toEqual({
      receivers: [
        { url: "https://ci.example/hook", format: "standard" },
        { url: "https://hooks.slack.com/services/T0/B0/x", format: "slack" },
        { url: "http://localhost:9000/h", format: "standard" },
      ],
    });
    expect(parseWebhookReceivers(undefined)).toEqual({ receivers: [] });
    expect(parseWebhookReceivers("  ")).toEqual({ receivers: [] });
  });

  it.each([
    ["not a url", /entry 1 is not a URL/],
    ["http://ci.example/hook", /entry 1 \(http:\/\/ci\.example\/…\) is not https/],
    ["https://ok.example/a slack:http://hooks.slack.com/services/T0/B0/SECRETPATH", /entry 2 \(http:\/\/hooks\.slack\.com\/…\) is not https/],
    ["https://user:pw@ci.example/hook", /user name or password/],
    ["https://ci.example/hook#x", /#fragment/],
    ["discord:https://discord.com/api/webhooks/1/x", /"discord:", which is not a format/],
    ["https://ci.example/hook https://ci.example/hook", /listed twice/],
  ])("refuses %s, naming the entry", (value, message) => {
    const parsed = parseWebhookReceivers(value);
    expect("problem" in parsed && parsed.problem).toMatch(message);
    // A Slack URL's path is its credential: never in a message.
    expect(JSON.stringify(parsed)).not.toContain("SECRETPATH");
  });

  it(`refuses more than ${MAX_WEBHOOK_RECEIVERS} receivers`, () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://r${i}.example/h`).join(" ");
    expect(parseWebhookReceivers(urls(MAX_WEBHOOK_RECEIVERS))).toHaveProperty("receivers");
    const parsed = parseWebhookReceivers(urls(MAX_WEBHOOK_RECEIVERS + 1));
    expect("problem" in parsed && parsed.problem).toMatch(`lists ${MAX_WEBHOOK_RECEIVERS + 1} receivers; at most ${MAX_WEBHOOK_RECEIVERS}`);
  });
});

describe("SHELF_WEBHOOK_SECRET", () => {
  const b64 = (n: number) => toBase64(new Uint8Array(n).fill(65));
  it.each([
    [b64(32), /does not start with "whsec_"/],
    [`whsec_${b64(32).replace("=", "")}`, /standard base64/],
    [`whsec_${b64(32)}!`, /standard base64/],
    [`whsec_${b64(16)}`, /decodes to 16 bytes; .* 24 to 64/],
    [`whsec_${b64(65)}`, /decodes to 65 bytes/],
    [`whsec_${b64(32)} nope`, /\(secret 2\) does not start/],
  ])("refuses %s without repeating it", (value, message) => {
    const parsed = parseWebhookSecrets(value);
    expect("problem" in parsed && parsed.problem).toMatch(message);
    expect(JSON.stringify(parsed)).not.toContain(b64(16).slice(0, 12));
  });

  it("takes 24 to 64 bytes, and several secrets", () => {
    for (const n of [24, 32, 64]) expect((parseWebhookSecrets(`whsec_${b64(n)}`) as { keys: Uint8Array[] }).keys[0]).toHaveLength(n);
    expect((parseWebhookSecrets(`whsec_${b64(32)}  whsec_${b64(24)}`) as { keys: Uint8Array[] }).keys.map((k) => k.length)).toEqual([32, 24]);
  });
});

describe("webhookConfig", () => {
  const secret = `whsec_${toBase64(new Uint8Array(32).fill(1))}`;
  it("is off without receivers, and needs the secret for a Standard Webhooks receiver", () => {
    expect(webhookConfig({})).toEqual({ config: null, problem: null });
    expect(webhookConfig({ SHELF_WEBHOOK_SECRET: secret })).toEqual({ config: null, problem: null });
    expect(webhookConfig({ SHELF_WEBHOOK_URLS: "https://ci.example/h" }).problem).toMatch(/SHELF_WEBHOOK_SECRET secret is not set/);
    expect(webhookConfig({ SHELF_WEBHOOK_URLS: "slack:https://hooks.slack.com/services/a" }).config?.keys).toEqual([]);
    expect(webhookConfig({ SHELF_WEBHOOK_URLS: "https://ci.example/h", SHELF_WEBHOOK_SECRET: secret }).config?.receivers).toHaveLength(1);
    expect(webhookConfig({ SHELF_WEBHOOK_URLS: "https://ci.example/h", SHELF_WEBHOOK_SECRET: "whsec_x" }).problem).toMatch(/SHELF_WEBHOOK_SECRET/);
  });
});

describe("the event", () => {
  const gen = (c: string) => c.repeat(64);
  const doc = (added: string[]): ChangeDocument => ({
    schema: "skillshelf.changes/1",
    seq: 7,
    action: "publish",
    at: "2026-12-02T09:00:00.000Z",
    generation: gen("b"),
    previous: gen("a"),
    added: added.map((name) => ({ name, version: null, tree_hash: gen("c") })),
    removed: [],
    changed: [],
    renamed: [],
    deprecated: [],
    undeprecated: [],
    blocked: [{ name: "a<b>&c", advisory_id: "ASA-1", severity: "critical" }],
    unblocked: [],
  });
  const entry = (names: string[], action: WebhookEntry["action"] = "publish"): WebhookEntry => ({
    origin: "https://skills.acme.example",
    seq: 7,
    action,
    at: "2026-12-02T09:00:00.000Z",
    generation: gen("b"),
    previous: gen("a"),
    changes: { sha256: gen("d"), document: doc(names) },
  });

  it("is the Standard Webhooks envelope with counts, lines and links", () => {
    const event = webhookEvent(entry(["alpha"]));
    expect(event).toEqual({
      type: "shelf.published",
      timestamp: "2026-12-02T09:00:00.000Z",
      data: {
        shelf: "https://skills.acme.example",
        seq: 7,
        action: "publish",
        generation: gen("b"),
        previous: gen("a"),
        summary: { added: 1, removed: 0, changed: 0, renamed: 0, deprecated: 0, undeprecated: 0, blocked: 1, unblocked: 0 },
        lines: ["added alpha cccccccccccc", "BLOCKED a<b>&c by advisory ASA-1 (critical)"],
        more_lines: 0,
        changes_sha256: gen("d"),
        links: {
          changes: "https://skills.acme.example/v1/changes?since=6&limit=1",
          feed: "https://skills.acme.example/ui/feed.xml",
          pages: "https://skills.acme.example/ui/",
        },
      },
    });
    expect(webhookEvent(entry([], "rollback")).type).toBe("shelf.rolled_back");
    expect(webhookEvent(entry([], "advisory")).type).toBe("shelf.advisory_changed");
    expect(webhookEvent({ ...entry([]), changes: null }).data).toMatchObject({ summary: null, lines: [], changes_sha256: null });
  });

  it("stays small on a large publish", () => {
    const names = Array.from({ length: 1000 }, (_, i) => `skill-${String(i).padStart(4, "0")}`);
    const event = webhookEvent(entry(names));
    expect(event.data.lines).toHaveLength(WEBHOOK_MAX_LINES);
    expect(event.data.more_lines).toBe(1001 - WEBHOOK_MAX_LINES);
    expect(webhookBody("standard", event).length).toBeLessThan(20_000);
  });

  it("has one id per entry, the same however often it is computed", async () => {
    const a = await webhookId(webhookEvent(entry(["alpha"])));
    expect(a).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(await webhookId(webhookEvent(entry(["other"])))).toBe(a);
    expect(await webhookId(webhookEvent({ ...entry(["alpha"]), seq: 8 }))).not.toBe(a);
    expect(await webhookId(webhookEvent({ ...entry(["alpha"]), origin: "https://other.example" }))).not.toBe(a);
  });

  it("is a Slack message with mrkdwn escaped", () => {
    const { text } = slackMessage(webhookEvent(entry(["alpha"])));
    expect(text.split("\n")).toEqual([
      "*Published* on <https://skills.acme.example/ui/|skills.acme.example> (seq 7, generation bbbbbbbbbbbb)",
      "• added alpha cccccccccccc",
      "• BLOCKED a&lt;b&gt;&amp;c by advisory ASA-1 (critical)",
      "<https://skills.acme.example/v1/changes?since=6&amp;limit=1|What changed> · <https://skills.acme.example/ui/feed.xml|Feed>",
    ]);
    expect(JSON.parse(webhookBody("slack", webhookEvent(entry([]))))).toEqual({ text: expect.stringContaining("*Published*") });
  });
});
