// Which receivers a shelf's webhooks go to and with what secret, read from two Worker settings:
// SHELF_WEBHOOK_URLS (receivers, comma or space separated; `slack:` before a URL picks the Slack
// formatter) and SHELF_WEBHOOK_SECRET (Standard Webhooks `whsec_<base64>`; several, space
// separated, while a secret is rotated). Pure: the Worker reads it before sending, and
// `skillshelf init --check` reads the same rules, so a mistake is named the same way in both.
import { fromBase64 } from "../signing/ed25519.ts";

/**
 * Most receivers per shelf. Deliveries to all of them run at once inside the publish request's
 * `waitUntil` (about 30 s), and a Worker keeps at most 6 outgoing connections open per request:
 * five leaves one spare, so no receiver waits for another's connection. 5 receivers × 3 attempts
 * is 15 fetches, well under the Free plan's 50 subrequests per request.
 */
export const MAX_WEBHOOK_RECEIVERS = 5;
/** The Standard Webhooks secret prefix (`whsec_` then standard base64 of the key). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Key sizes the Standard Webhooks specification allows for HMAC-SHA256 (24 to 64 bytes). */
export const WEBHOOK_SECRET_BYTES = { min: 24, max: 64 } as const;

/** How a receiver wants the event: the signed Standard Webhooks JSON, or a Slack-compatible `{"text"}` message. */
export type WebhookFormat = "standard" | "slack";

/** One receiver. */
export interface WebhookReceiver {
  url: string;
  format: WebhookFormat;
}

/** Everything a delivery needs: the receivers and the raw HMAC keys (newest first; each signs every delivery). */
export interface WebhookConfig {
  receivers: readonly WebhookReceiver[];
  keys: readonly Uint8Array[];
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** A URL as an error message may show it: scheme and host only (a Slack URL's path is its credential). */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

/**
 * Parses SHELF_WEBHOOK_URLS. Each entry is an https URL (http only on a loopback host, for local
 * runs), without userinfo or fragment, optionally prefixed `slack:`. Empty or unset: no receivers.
 * @example parseWebhookReceivers("https://ci.example/hook slack:https://hooks.slack.com/services/T/B/X")
 * // => { receivers: [{ url: "https://ci.example/hook", format: "standard" }, { url: "https://hooks.slack.com/…", format: "slack" }] }
 */
export function parseWebhookReceivers(value: string | undefined): { receivers: WebhookReceiver[] } | { problem: string } {
  const receivers: WebhookReceiver[] = [];
  const entries = (value ?? "").split(/[\s,]+/).filter((e) => e !== "");
  for (const [i, entry] of entries.entries()) {
    const which = `SHELF_WEBHOOK_URLS entry ${i + 1}`;
    const prefixed = /^([a-z][a-z0-9-]*):(?!\/\/)(.*)$/i.exec(entry);
    let format: WebhookFormat = "standard";
    let text = entry;
    if (prefixed) {
      if (prefixed[1]!.toLowerCase() !== "slack")
        return { problem: `${which} starts with "${prefixed[1]}:", which is not a format; the only prefix is "slack:"` };
      format = "slack";
      text = prefixed[2]!;
    }
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { problem: `${which} is not a URL; write https://host/path, or slack:https://… for a Slack-compatible receiver` };
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.test(url.hostname)))
      return { problem: `${which} (${shown(url)}) is not https: webhooks go only to https receivers (http only to localhost, for local runs)` };
    if (url.username || url.password)
      return { problem: `${which} (${shown(url)}) carries a user name or password; put credentials in the path or use the signature` };
    if (url.hash) return { problem: `${which} (${shown(url)}) has a #fragment, which is never sent; remove it` };
    if (receivers.some((r) => r.url === url.href)) return { problem: `${which} (${shown(url)}) is listed twice; each receiver gets each event once` };
    receivers.push({ url: url.href, format });
  }
  if (receivers.length > MAX_WEBHOOK_RECEIVERS)
    return {
      problem: `SHELF_WEBHOOK_URLS lists ${receivers.length} receivers; at most ${MAX_WEBHOOK_RECEIVERS} fit one request's connections and time (docs/teams.md, "Webhooks"): fan out from one receiver instead`,
    };
  return { receivers };
}

/**
 * Parses SHELF_WEBHOOK_SECRET: one or more `whsec_<standard base64>` secrets (space separated; the
 * first is the new one during a rotation), each decoding to 24 to 64 bytes. The message never
 * repeats a secret. Empty or unset: no keys.
 * @example parseWebhookSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") // => { keys: [<24 bytes>] }
 */
export function parseWebhookSecrets(value: string | undefined): { keys: Uint8Array[] } | { problem: string } {
  const keys: Uint8Array[] = [];
  const entries = (value ?? "").split(/\s+/).filter((e) => e !== "");
  for (const [i, entry] of entries.entries()) {
    const which = entries.length > 1 ? `SHELF_WEBHOOK_SECRET (secret ${i + 1})` : "SHELF_WEBHOOK_SECRET";
    if (!entry.startsWith(WEBHOOK_SECRET_PREFIX))
      return { problem: `${which} does not start with "${WEBHOOK_SECRET_PREFIX}"; make one with: echo "whsec_$(openssl rand -base64 32)"` };
    const key = fromBase64(entry.slice(WEBHOOK_SECRET_PREFIX.length));
    if (!key) return { problem: `${which} is not "${WEBHOOK_SECRET_PREFIX}" followed by standard base64 (A-Z a-z 0-9 + /, padded with =)` };
    if (key.length < WEBHOOK_SECRET_BYTES.min || key.length > WEBHOOK_SECRET_BYTES.max)
      return {
        problem: `${which} decodes to ${key.length} bytes; the Standard Webhooks specification wants ${WEBHOOK_SECRET_BYTES.min} to ${WEBHOOK_SECRET_BYTES.max}`,
      };
    keys.push(key);
  }
  return { keys };
}

/**
 * The webhook configuration of a Worker: null with no problem when no receiver is configured;
 * null with a problem when a setting is malformed or a Standard Webhooks receiver has no secret
 * (a Slack-compatible receiver alone needs none: Slack does not check signatures).
 * @example webhookConfig({ SHELF_WEBHOOK_URLS: "https://ci.example/hook", SHELF_WEBHOOK_SECRET: "whsec_…" }).config?.receivers.length // => 1
 */
export function webhookConfig(settings: { SHELF_WEBHOOK_URLS?: string; SHELF_WEBHOOK_SECRET?: string }): {
  config: WebhookConfig | null;
  problem: string | null;
} {
  const urls = parseWebhookReceivers(settings.SHELF_WEBHOOK_URLS);
  if ("problem" in urls) return { config: null, problem: urls.problem };
  const secrets = parseWebhookSecrets(settings.SHELF_WEBHOOK_SECRET);
  if ("problem" in secrets) return { config: null, problem: secrets.problem };
  if (urls.receivers.length === 0) return { config: null, problem: null };
  if (secrets.keys.length === 0 && urls.receivers.some((r) => r.format === "standard"))
    return {
      config: null,
      problem:
        'SHELF_WEBHOOK_URLS names a receiver but the SHELF_WEBHOOK_SECRET secret is not set: echo "whsec_$(openssl rand -base64 32)" | npx wrangler secret put SHELF_WEBHOOK_SECRET',
    };
  return { config: { receivers: urls.receivers, keys: secrets.keys }, problem: null };
}
