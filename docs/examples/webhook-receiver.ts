// A receiver for a skillshelf shelf's webhooks: a Cloudflare Worker (WebCrypto only, so the same
// verifyWebhook runs on Node 20+ and Deno) that checks the Standard Webhooks signature before it
// trusts an event. WEBHOOK_SECRET is the shelf's SHELF_WEBHOOK_SECRET (whsec_…).

/** How far a delivery's webhook-timestamp may be from now: older ones are replays. */
const TOLERANCE_SECONDS = 5 * 60;

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

/** True when one of the delivery's signatures is the shelf's HMAC-SHA256 of "<id>.<timestamp>.<body>". */
export async function verifyWebhook(secret: string, headers: Headers, body: string, now = Math.floor(Date.now() / 1000)): Promise<boolean> {
  const id = headers.get("webhook-id");
  const timestamp = headers.get("webhook-timestamp");
  const signatures = headers.get("webhook-signature");
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  if (!secret.startsWith("whsec_")) throw new Error("WEBHOOK_SECRET is not a whsec_ secret");
  const key = await crypto.subtle.importKey("raw", bytesOf(secret.slice("whsec_".length)), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  // Several signatures while the shelf rotates its secret: one match is enough.
  for (const entry of signatures.split(" ")) {
    const [version, signature] = entry.split(",");
    if (version !== "v1" || !signature) continue;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = bytesOf(signature);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time, unlike comparing base64 strings.
    if (await crypto.subtle.verify("HMAC", key, mac, signed)) return true;
  }
  return false;
}

export default {
  async fetch(request: Request, env: { WEBHOOK_SECRET: string }): Promise<Response> {
    if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
    // Verify the exact bytes that were signed, before parsing them.
    const body = await request.text();
    if (!(await verifyWebhook(env.WEBHOOK_SECRET, request.headers, body))) return new Response("bad signature\n", { status: 401 });
    const event = JSON.parse(body);
    // A retry after a lost answer repeats the webhook-id: act once per id if acting twice would hurt.
    console.log(`${event.type} seq ${event.data.seq} (${request.headers.get("webhook-id")}): ${event.data.lines.join("; ")}`);
    return new Response(null, { status: 204 });
  },
};
