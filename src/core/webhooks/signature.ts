// Standard Webhooks signing (https://www.standardwebhooks.com, spec 1.0.0, symmetric scheme):
// HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", sent as `v1,<base64>` in
// `webhook-signature` (one per key, space separated, so a receiver can rotate its secret), with the
// id and the attempt's Unix time in their own headers. WebCrypto only: the Worker signs with it.
import { toBase64, type WebCryptoKey } from "../signing/ed25519.ts";

/** The three Standard Webhooks headers, lowercase as the specification writes them. */
export const WEBHOOK_HEADERS = { id: "webhook-id", timestamp: "webhook-timestamp", signature: "webhook-signature" } as const;

/** HMAC-SHA256 signing keys from raw secret bytes (import once per event, sign per attempt). */
export function importWebhookKeys(keys: readonly Uint8Array[]): Promise<WebCryptoKey[]> {
  return Promise.all(keys.map((raw) => crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])));
}

/**
 * The `webhook-signature` value: `v1,<base64 HMAC>` per key, space separated. The id must not
 * contain "." (the specification's rule: it would make the signed content ambiguous).
 * @example await webhookSignature(keys, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')
 * // => "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" (the specification's test vector)
 */
export async function webhookSignature(keys: readonly WebCryptoKey[], id: string, timestamp: number, body: string): Promise<string> {
  if (id.includes(".")) throw new Error(`a webhook id must not contain ".": ${id}`);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error(`a webhook timestamp is whole Unix seconds, not ${timestamp}`);
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const macs = await Promise.all(keys.map((key) => crypto.subtle.sign("HMAC", key, content)));
  return macs.map((mac) => `v1,${toBase64(new Uint8Array(mac))}`).join(" ");
}

/**
 * The headers of one delivery attempt (no signature header without keys: a Slack-compatible
 * receiver may be configured without a secret).
 */
export async function webhookAttemptHeaders(keys: readonly WebCryptoKey[], id: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { [WEBHOOK_HEADERS.id]: id, [WEBHOOK_HEADERS.timestamp]: String(timestamp) };
  if (keys.length) headers[WEBHOOK_HEADERS.signature] = await webhookSignature(keys, id, timestamp, body);
  return headers;
}
