// Webhooks after the pointer moves: the admin API hands each new history entry here once its
// pointer write has succeeded, and the delivery runs in the request's `waitUntil`, after the
// response, so a slow, dead or misconfigured receiver never delays or fails a publish, a rollback
// or an advisory change. Configured by SHELF_WEBHOOK_URLS and the SHELF_WEBHOOK_SECRET secret.
import { webhookConfig, type WebhookConfig } from "../../core/webhooks/config.ts";
import { webhookEvent, type WebhookEntry } from "../../core/webhooks/event.ts";
import { deliverEvent, type DeliverOptions } from "./deliver.ts";

/** The settings webhooks read: a var (or a secret, when the URLs carry credentials) and a secret. */
export interface WebhookEnv {
  /** Receivers, comma or space separated; `slack:` before a URL sends it the Slack-compatible text. */
  SHELF_WEBHOOK_URLS?: string;
  /** `whsec_<base64>` (`wrangler secret put SHELF_WEBHOOK_SECRET`); two, space separated, while rotating. */
  SHELF_WEBHOOK_SECRET?: string;
}

let reported: string | undefined;

/**
 * The webhook configuration, or null: none configured (silently), or malformed (logged once per
 * distinct problem, so a Worker's logs name the setting to fix; nothing is sent until it is fixed).
 */
export function webhookSettings(env: WebhookEnv): WebhookConfig | null {
  const { config, problem } = webhookConfig(env);
  if (problem && problem !== reported) console.error(`webhooks are off: ${problem} (docs/teams.md, "Webhooks")`);
  reported = problem ?? undefined;
  return config;
}

/**
 * Announces a history entry to the configured receivers after the response. A no-op without
 * receivers; never throws.
 * @example announceEntry(c, { origin, seq, action: "publish", at, generation, previous, changes })
 */
export function announceEntry(
  /** The request's context: its env, and its execution context (hono's getter throws where the runtime gave none). */
  c: { env: WebhookEnv; readonly executionCtx: { waitUntil(promise: Promise<unknown>): void } },
  entry: WebhookEntry,
  options: DeliverOptions = {},
): void {
  let config: WebhookConfig | null;
  try {
    config = webhookSettings(c.env);
  } catch (error) {
    console.error("webhooks not sent", error);
    return;
  }
  if (!config) return;
  let ctx: { waitUntil(promise: Promise<unknown>): void };
  try {
    ctx = c.executionCtx;
  } catch {
    console.error(`webhooks for seq ${entry.seq} not sent: the runtime gave this request no execution context to send them after the response`);
    return;
  }
  ctx.waitUntil(
    (async () => {
      await deliverEvent(webhookEvent(entry), config, options);
    })().catch((error: unknown) => console.error(`webhooks for seq ${entry.seq} not sent`, error)),
  );
}
