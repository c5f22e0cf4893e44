// Webhooks from the admin path inside workerd: a receiver served by the test (a stubbed fetch)
// checks every signature with the documented receiver (docs/examples/webhook-receiver.ts), sees
// one accepted delivery per publish, advisory change and rollback even when each first attempt
// fails, and a dead or hanging receiver never delays or fails a publish.
import { createExecutionContext, reset, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangesPage } from "../../../src/core/api/changes.ts";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { publishGeneration } from "../../../src/core/publish/client.ts";
import { toBase64 } from "../../../src/core/signing/ed25519.ts";
import type { WebhookEvent } from "../../../src/core/webhooks/event.ts";
import { createShelfApp } from "../../../src/worker/app.ts";
import type { WebhookTiming } from "../../../src/worker/webhooks/deliver.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { verifyWebhook } from "../../../docs/examples/webhook-receiver.ts";
import { adminEnv, adminRequest, buildGeneration, memorySource, skillInput, TOKEN, WORKER_URL } from "../admin/helpers.ts";

const SECRET = `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
const HOOKS = "https://hooks.test";
/** Short enough for a test, with the production shape: 3 attempts, a timeout each, backoff between. */
const FAST: Partial<WebhookTiming> = { attempts: 3, attemptTimeoutMs: 300, backoffMs: [20, 40], deadlineMs: 5_000 };

/** What the test's receiver does with one attempt: answer a status, hang until aborted, or drop the connection. */
type Answer = number | "hang" | "drop";

interface Attempt {
  path: string;
  id: string;
  timestamp: number;
  verified: boolean;
  body: string;
  answer: Answer;
  /** Set when the attempt ended: answered, or aborted by the sender's timeout. */
  ended: "answered" | "aborted" | null;
}

let attempts: Attempt[];
let timeline: string[];
let plan: (path: string, nth: number) => Answer;

beforeEach(async () => {
  await reset();
  resetStorageMemory();
  attempts = [];
  timeline = [];
  plan = () => 200;
  const real = globalThis.fetch;
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(HOOKS)) return real(input, init);
    const body = await request.text();
    const path = new URL(request.url).pathname;
    const id = request.headers.get("webhook-id") ?? "";
    const nth = attempts.filter((a) => a.path === path && a.id === id).length + 1;
    const attempt: Attempt = {
      path,
      id,
      timestamp: Number(request.headers.get("webhook-timestamp")),
      verified: await verifyWebhook(SECRET, request.headers, body),
      body,
      answer: plan(path, nth),
      ended: null,
    };
    attempts.push(attempt);
    timeline.push(`attempt ${path} ${nth}`);
    if (attempt.answer === "drop") {
      attempt.ended = "answered";
      throw new TypeError("connection reset by the test's receiver");
    }
    if (attempt.answer === "hang") {
      const signal = init?.signal;
      return new Promise<Response>((_, reject) =>
        signal?.addEventListener("abort", () => {
          attempt.ended = "aborted";
          timeline.push(`aborted ${path} ${nth}`);
          reject(signal.reason);
        }),
      );
    }
    attempt.ended = "answered";
    return new Response(null, { status: attempt.answer });
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** The Worker with fast webhook timing, whose requests answer without waiting for their waitUntil work. */
async function worker(vars: Record<string, string>, timing: Partial<WebhookTiming> = FAST) {
  const app = createShelfApp({ admin: { webhooks: { timing } } });
  const workerEnv = { ...(await adminEnv()), ...vars };
  const after: Promise<void>[] = [];
  const call = async (request: Request) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(request, workerEnv as Cloudflare.Env, ctx);
    if (request.method === "POST") timeline.push(`answered POST ${new URL(request.url).pathname}`);
    after.push(waitOnExecutionContext(ctx));
    return response;
  };
  const publish = async (g: BuiltGeneration) => {
    await publishGeneration(memorySource(g), { url: WORKER_URL, token: TOKEN, fetch: call, sleep: async () => {} });
    timeline.push("publish answered");
  };
  /** Waits for every request's work after its response (the deliveries). */
  const settle = async () => {
    while (after.length) await Promise.all(after.splice(0));
  };
  return { call, publish, settle };
}

const accepted = (path: string) => attempts.filter((a) => a.path === path && a.verified && a.answer === 200);
const eventOf = (a: Attempt) => JSON.parse(a.body) as WebhookEvent;

describe("webhooks on publish, advisory change and rollback", () => {
  it("each event arrives signed, once, under one id even when its first attempt fails", async () => {
    // Every event's first attempt gets a 503; its second succeeds.
    plan = (_path, nth) => (nth === 1 ? 503 : 200);
    const shelf = await worker({ SHELF_WEBHOOK_URLS: `${HOOKS}/ci, slack:${HOOKS}/slack`, SHELF_WEBHOOK_SECRET: SECRET });
    const alpha = await skillInput("alpha");
    const v1 = await buildGeneration([alpha]);
    const v2 = await buildGeneration([alpha, await skillInput("gamma")]);
    await shelf.publish(v1);
    await shelf.publish(v2);
    const advisory = {
      name: "alpha",
      source: "elsewhere",
      official_intent: "Guides.",
      hidden_issue: "Exfiltrates secrets.",
      severity: "critical",
      reference: "https://example.com/ASA-WH-1",
      tree_hash: alpha.record.tree_hash,
      advisory_id: "ASA-WH-1",
    };
    expect((await shelf.call(adminRequest("POST", "/advisories", { advisories: [advisory] }))).status).toBe(200);
    expect((await shelf.call(adminRequest("POST", "/rollback", { generation: v1.id, previous: v2.id }))).status).toBe(200);
    await shelf.settle();

    // Every attempt to either receiver carried a valid signature, and each event's attempts shared one id.
    expect(attempts.length).toBe(16);
    expect(attempts.every((a) => a.verified)).toBe(true);
    const ci = accepted("/ci").map(eventOf);
    expect(ci.map((e) => [e.type, e.data.seq, e.data.generation, e.data.previous])).toEqual([
      ["shelf.published", 1, v1.id, null],
      ["shelf.published", 2, v2.id, v1.id],
      ["shelf.advisory_changed", 3, v2.id, v2.id],
      ["shelf.rolled_back", 4, v1.id, v2.id],
    ]);
    const ids = accepted("/ci").map((a) => a.id);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(attempts.filter((a) => a.path === "/ci" && a.id === id).map((a) => a.answer)).toEqual([503, 200]);
    // Both receivers get the same event ids; the Slack one gets the text form.
    expect(accepted("/slack").map((a) => a.id)).toEqual(ids);
    const texts = accepted("/slack").map((a) => (JSON.parse(a.body) as { text: string }).text.split("\n")[0] ?? "");
    expect(texts.map((t) => t.split(" on ")[0])).toEqual(["*Published*", "*Published*", "*Advisories changed*", "*Rolled back*"]);

    // What each event says is its entry's change document, and its link reads that entry.
    expect(ci[1]!.data).toMatchObject({ summary: { added: 1, changed: 0, blocked: 0 }, lines: [expect.stringMatching(/^added gamma /)] });
    expect(ci[2]!.data).toMatchObject({ summary: { blocked: 1 }, lines: ["BLOCKED alpha by advisory ASA-WH-1 (critical)"] });
    expect(ci[3]!.data).toMatchObject({ summary: { removed: 1 }, lines: [expect.stringMatching(/^removed gamma/)] });
    for (const event of ci) {
      resetStorageMemory();
      const page = (await (await shelf.call(new Request(event.data.links.changes))).json()) as ChangesPage;
      expect(page.entries[0]).toMatchObject({ seq: event.data.seq, generation: event.data.generation, changes: { action: event.data.action } });
      expect(event.data.shelf).toBe(WORKER_URL);
    }
  });

  it("a hanging receiver never delays a publish: it answers first, the attempts time out after", async () => {
    plan = () => "hang";
    // A second per attempt: ample margin for a loaded machine between the response and the first timeout.
    const shelf = await worker({ SHELF_WEBHOOK_URLS: `${HOOKS}/dead`, SHELF_WEBHOOK_SECRET: SECRET }, { ...FAST, attemptTimeoutMs: 1_000 });
    const v1 = await buildGeneration([await skillInput("alpha")]);
    await shelf.publish(v1);
    // The publish has answered while the first attempt is still open.
    expect(timeline.indexOf("publish answered")).toBeGreaterThan(-1);
    expect(timeline.filter((t) => t.startsWith("aborted"))).toEqual([]);
    const pointer = (await (await shelf.call(adminRequest("GET", "/pointer"))).json()) as { pointer: { generation: string } };
    expect(pointer.pointer.generation).toBe(v1.id);
    await shelf.settle();
    // Then each of the three attempts was abandoned by its timeout; none was answered.
    expect(timeline.filter((t) => !t.includes("answered"))).toEqual([
      "attempt /dead 1",
      "aborted /dead 1",
      "attempt /dead 2",
      "aborted /dead 2",
      "attempt /dead 3",
      "aborted /dead 3",
    ]);
    // The pointer move's answer came before the first attempt was abandoned.
    expect(timeline.indexOf("answered POST /admin/v1/pointer")).toBeGreaterThan(-1);
    expect(timeline.indexOf("answered POST /admin/v1/pointer")).toBeLessThan(timeline.indexOf("aborted /dead 1"));
  });

  it("a receiver that drops the connection or answers 410 changes nothing for the publish", async () => {
    plan = (path) => (path === "/gone" ? 410 : "drop");
    const shelf = await worker({ SHELF_WEBHOOK_URLS: `${HOOKS}/drop ${HOOKS}/gone`, SHELF_WEBHOOK_SECRET: SECRET });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const v1 = await buildGeneration([await skillInput("alpha")]);
    await shelf.publish(v1);
    await shelf.settle();
    expect(attempts.filter((a) => a.path === "/drop")).toHaveLength(3);
    // 410 Gone: the receiver asked not to be sent this again.
    expect(attempts.filter((a) => a.path === "/gone")).toHaveLength(1);
    const lines = warn.mock.calls.map((c) => String(c[0]));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/to https:\/\/hooks\.test: not delivered after 3 attempt\(s\), last no answer: connection reset/),
        expect.stringMatching(/to https:\/\/hooks\.test: not delivered after 1 attempt\(s\), last HTTP 410/),
      ]),
    );
  });

  it("stays within the subrequest bound: 5 failing receivers cost 15 fetches", async () => {
    plan = () => 500;
    const urls = Array.from({ length: 5 }, (_, i) => `${HOOKS}/r${i}`).join(" ");
    const shelf = await worker({ SHELF_WEBHOOK_URLS: urls, SHELF_WEBHOOK_SECRET: SECRET });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await shelf.publish(await buildGeneration([await skillInput("alpha")]));
    await shelf.settle();
    expect(attempts).toHaveLength(15);
    expect(attempts.length).toBeLessThanOrEqual(50);
  });

  it("a misconfigured webhook is logged and sends nothing; publishes and reads answer as before", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const shelf = await worker({ SHELF_WEBHOOK_URLS: `${HOOKS}/ci`, SHELF_WEBHOOK_SECRET: "whsec_tooshort" });
    const v1 = await buildGeneration([await skillInput("alpha")]);
    await shelf.publish(v1);
    await shelf.settle();
    expect(attempts).toEqual([]);
    expect(error.mock.calls.map((c) => String(c[0]))).toContainEqual(
      expect.stringMatching(/^webhooks are off: SHELF_WEBHOOK_SECRET decodes to 6 bytes; .* 24 to 64/),
    );
    expect(JSON.stringify(error.mock.calls)).not.toContain("tooshort");
    resetStorageMemory();
    expect((await shelf.call(new Request(`${WORKER_URL}/v1/shelf`))).status).toBe(200);
    expect((await shelf.call(new Request(`${WORKER_URL}/v1/changes`))).status).toBe(200);
  });

  it("sends nothing when no receiver is configured", async () => {
    const shelf = await worker({});
    await shelf.publish(await buildGeneration([await skillInput("alpha")]));
    await shelf.settle();
    expect(attempts).toEqual([]);
    expect((env as unknown as Record<string, unknown>).SHELF_WEBHOOK_URLS).toBeUndefined();
  });
});
