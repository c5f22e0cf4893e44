// Delivering one event to every receiver, inside the request's `waitUntil`: all receivers at once,
// each tried a bounded number of times with a short backoff, every attempt re-signed with its own
// timestamp under the one webhook-id (receivers deduplicate by it). The bounds keep a delivery
// inside what one Worker request may spend after its response (docs/teams.md, "Webhooks").
import type { WebhookConfig, WebhookReceiver } from "../../core/webhooks/config.ts";
import { webhookBody, webhookId, type WebhookEvent } from "../../core/webhooks/event.ts";
import { importWebhookKeys, webhookAttemptHeaders } from "../../core/webhooks/signature.ts";
import type { WebCryptoKey } from "../../core/signing/ed25519.ts";

/** How long and how often a delivery tries. */
export interface WebhookTiming {
  /** Attempts per receiver (the first included). */
  attempts: number;
  /** Each attempt is abandoned after this long (AbortSignal.timeout). */
  attemptTimeoutMs: number;
  /** Waits between attempts: the first after attempt 1, and so on (the last repeats). */
  backoffMs: readonly number[];
  /** No attempt starts, and none runs, past this long after the delivery began. */
  deadlineMs: number;
}

/**
 * 3 attempts, 5 s each, 1 s then 3 s apart: at worst 19 s per receiver, and every receiver runs at
 * once, so a delivery ends inside the 25 s deadline, under the ~30 s `waitUntil` allows after the
 * response. At most 5 receivers (core/webhooks/config.ts) × 3 attempts = 15 fetches per event.
 */
export const WEBHOOK_TIMING: WebhookTiming = { attempts: 3, attemptTimeoutMs: 5_000, backoffMs: [1_000, 3_000], deadlineMs: 25_000 };

/** What became of one receiver's delivery. */
export interface DeliveryOutcome {
  receiver: WebhookReceiver;
  delivered: boolean;
  attempts: number;
  /** The last answer: "HTTP 503", "timed out", "no answer: …" (or "HTTP 2xx" when delivered). */
  last: string;
}

/** Options of {@link deliverEvent}: tests shorten the timing. */
export interface DeliverOptions {
  timing?: Partial<WebhookTiming>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A receiver as a log line may show it: scheme and host (a Slack URL's path is its credential). */
export function receiverLabel(receiver: WebhookReceiver): string {
  const url = new URL(receiver.url);
  return `${receiver.format === "slack" ? "slack:" : ""}${url.protocol}//${url.host}`;
}

async function deliverTo(
  receiver: WebhookReceiver,
  event: WebhookEvent,
  id: string,
  keys: readonly WebCryptoKey[],
  timing: WebhookTiming,
  started: number,
): Promise<DeliveryOutcome> {
  const body = webhookBody(receiver.format, event);
  let last = "not attempted: the deadline had passed";
  let attempts = 0;
  while (attempts < timing.attempts) {
    const left = timing.deadlineMs - (Date.now() - started);
    if (left <= 0) break;
    attempts++;
    const signed = await webhookAttemptHeaders(keys, id, Math.floor(Date.now() / 1000), body);
    try {
      const response = await fetch(receiver.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "skillshelf-webhooks/1", ...signed },
        body,
        // The specification counts a redirect as a failure (update the URL instead of following it).
        redirect: "manual",
        signal: AbortSignal.timeout(Math.min(timing.attemptTimeoutMs, left)),
      });
      // The answer's body is not read: release the connection.
      await response.body?.cancel().catch(() => {});
      last = `HTTP ${response.status}`;
      if (response.ok) return { receiver, delivered: true, attempts, last };
      // 410 Gone: the receiver asked not to be sent this again.
      if (response.status === 410) break;
    } catch (error) {
      last = (error as Error).name === "TimeoutError" ? "timed out" : `no answer: ${(error as Error).message}`;
    }
    if (attempts < timing.attempts) {
      const wait = timing.backoffMs[Math.min(attempts - 1, timing.backoffMs.length - 1)] ?? 0;
      await sleep(Math.max(0, Math.min(wait, timing.deadlineMs - (Date.now() - started))));
    }
  }
  return { receiver, delivered: false, attempts, last };
}

/**
 * Sends `event` to every configured receiver and says what became of each. Never throws for a
 * receiver's failure; each outcome is logged (without the URL's path).
 * @example ctx.waitUntil(deliverEvent(webhookEvent(entry), config))
 */
export async function deliverEvent(event: WebhookEvent, config: WebhookConfig, options: DeliverOptions = {}): Promise<DeliveryOutcome[]> {
  const timing = { ...WEBHOOK_TIMING, ...options.timing };
  const started = Date.now();
  const [id, keys] = await Promise.all([webhookId(event), importWebhookKeys(config.keys)]);
  const outcomes = await Promise.all(config.receivers.map((receiver) => deliverTo(receiver, event, id, keys, timing, started)));
  for (const o of outcomes) {
    const what = `webhook ${event.type} seq ${event.data.seq} (${id}) to ${receiverLabel(o.receiver)}`;
    if (o.delivered) console.log(`${what}: delivered on attempt ${o.attempts}`);
    else console.warn(`${what}: not delivered after ${o.attempts} attempt(s), last ${o.last}`);
  }
  return outcomes;
}
