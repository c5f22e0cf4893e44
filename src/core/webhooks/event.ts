// What a webhook says: one event per history entry (publish, rollback, advisory change), as the
// Standard Webhooks JSON envelope ({type, timestamp, data}) or as a Slack-compatible `{"text"}`
// message. Thin by design: counts, the first lines of the change in words and links; the change
// document itself is one GET away (/v1/changes), so a payload stays far under the specification's
// recommended 20 KB whatever a publish changed.
import { changeLines } from "../changes/atom.ts";
import type { ChangeDocument } from "../changes/document.ts";
import { sha256Hex } from "../skill/hash.ts";

/** The event types, by history action. */
export const WEBHOOK_EVENT_TYPES = {
  publish: "shelf.published",
  rollback: "shelf.rolled_back",
  advisory: "shelf.advisory_changed",
} as const satisfies Record<ChangeDocument["action"], string>;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[keyof typeof WEBHOOK_EVENT_TYPES];

/** Most lines of the change in words an event carries (the rest are counted in `more_lines`). */
export const WEBHOOK_MAX_LINES = 20;

/** What the Worker knows about the history entry an event announces. */
export interface WebhookEntry {
  /** The shelf's origin, as the publisher reached it ("https://skills.acme.example"). */
  origin: string;
  seq: number;
  action: ChangeDocument["action"];
  at: string;
  generation: string;
  /** The generation current before the entry (null: the first publish; an advisory change: the same generation). */
  previous: string | null;
  /** The entry's change document and its digest, or null when it could not be written. */
  changes: { sha256: string; document: ChangeDocument } | null;
}

/** Counts of each kind of change, as the change document lists them. */
export type WebhookSummary = Record<"added" | "removed" | "changed" | "renamed" | "deprecated" | "undeprecated" | "blocked" | "unblocked", number>;

/** The Standard Webhooks envelope a receiver gets. */
export interface WebhookEvent {
  type: WebhookEventType;
  /** When the entry was written (the delivery's own time is the webhook-timestamp header). */
  timestamp: string;
  data: {
    shelf: string;
    seq: number;
    action: ChangeDocument["action"];
    generation: string;
    previous: string | null;
    /** null when the entry has no change document (readers show it as unknown, never as "nothing changed"). */
    summary: WebhookSummary | null;
    lines: string[];
    more_lines: number;
    changes_sha256: string | null;
    links: { changes: string; feed: string; pages: string };
  };
}

/**
 * The event's id (`webhook-id`): the same for every attempt and every receiver of one history
 * entry, different for any other entry of any shelf, so receivers can deduplicate by it.
 * @example await webhookId(webhookEvent(entry)) // => "msg_3f1c…" (32 hex digits)
 */
export async function webhookId(event: WebhookEvent): Promise<string> {
  const { shelf, seq, action, generation } = event.data;
  const digest = await sha256Hex(JSON.stringify([shelf, seq, action, generation, event.timestamp]));
  return `msg_${digest.slice(0, 32)}`;
}

/**
 * The Standard Webhooks event of a history entry.
 * @example webhookEvent(entry).type // => "shelf.published"
 */
export function webhookEvent(entry: WebhookEntry): WebhookEvent {
  const doc = entry.changes?.document ?? null;
  const lines = doc ? changeLines(doc) : [];
  return {
    type: WEBHOOK_EVENT_TYPES[entry.action],
    timestamp: entry.at,
    data: {
      shelf: entry.origin,
      seq: entry.seq,
      action: entry.action,
      generation: entry.generation,
      previous: entry.previous,
      summary: doc
        ? {
            added: doc.added.length,
            removed: doc.removed.length,
            changed: doc.changed.length,
            renamed: doc.renamed.length,
            deprecated: doc.deprecated.length,
            undeprecated: doc.undeprecated.length,
            blocked: doc.blocked.length,
            unblocked: doc.unblocked.length,
          }
        : null,
      lines: lines.slice(0, WEBHOOK_MAX_LINES),
      more_lines: Math.max(0, lines.length - WEBHOOK_MAX_LINES),
      changes_sha256: entry.changes?.sha256 ?? null,
      links: {
        // `since` is exclusive: the entry before this one's seq gives exactly this entry first.
        changes: `${entry.origin}/v1/changes?since=${entry.seq - 1}&limit=1`,
        feed: `${entry.origin}/ui/feed.xml`,
        pages: `${entry.origin}/ui/`,
      },
    },
  };
}

/** Slack's mrkdwn escapes: only &, < and > are special in text. */
function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const SLACK_TITLES = { publish: "Published", rollback: "Rolled back", advisory: "Advisories changed" } as const;

/**
 * The Slack-compatible message of an event (`{"text"}`, what Slack's incoming webhooks and the
 * services that copy them take): a title line linking to the shelf, the change in words, and links.
 * @example slackMessage(webhookEvent(entry)).text.split("\n")[0] // => "*Published* on <https://skills.acme.example/ui/|skills.acme.example> (seq 7, generation 3f1c2a9b0d4e)"
 */
export function slackMessage(event: WebhookEvent): { text: string } {
  const d = event.data;
  const host = new URL(d.shelf).host;
  const title = `*${SLACK_TITLES[d.action]}* on <${slackEscape(d.links.pages)}|${slackEscape(host)}> (seq ${d.seq}, generation ${d.generation.slice(0, 12)})`;
  const body =
    d.summary === null
      ? ["What changed is not known for this entry."]
      : d.lines.length === 0
        ? ["Nothing a reader would notice changed."]
        : d.lines.map((line) => `• ${slackEscape(line)}`);
  if (d.more_lines > 0) body.push(`…and ${d.more_lines} more`);
  const links = `<${slackEscape(d.links.changes)}|What changed> · <${slackEscape(d.links.feed)}|Feed>`;
  return { text: [title, ...body, links].join("\n") };
}

/** The request body a receiver of `format` gets for an event (signed as these exact bytes). */
export function webhookBody(format: "standard" | "slack", event: WebhookEvent): string {
  return JSON.stringify(format === "slack" ? slackMessage(event) : event);
}
