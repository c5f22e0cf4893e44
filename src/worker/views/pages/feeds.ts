// The Atom feeds of what changed (RFC 4287): the shelf's (<ui>/feed.xml, and /feed.xml sends
// readers there) and one skill's (<ui>/skills/<name>/feed.xml), rendered by core from the
// history's change documents. Behind the pages' read access; the ETag names the history's state (its seq and newest entry).
// The shelf's feed is kept rendered in the isolate's generated-document cache (read/generated.ts)
// under a key naming everything its bytes depend on (its URLs, the newest history entries with
// their change documents' digests, the pointer's publish time), so a repeated request reads the
// pointer (one small R2 read) and copies bytes: at 10,000 skills the first publish lists every
// skill, ~1.2 MiB of change document and ~300 KiB of feed. A skill's feed is small and cheap to
// render from the change documents the isolate keeps (storage/changes.ts), and is not kept: one
// copy per skill would crowd the indexes out of that cache.
import type { Context } from "hono";
import { ATOM_MEDIA_TYPE, renderAtomFeed } from "../../../core/changes/atom.ts";
import { sha256Hex } from "../../../core/skill/hash.ts";
import { SKILL_NAME_RE } from "../../../core/skill/skill.ts";
import { etagFor, ifNoneMatchMatches } from "../../http/conditional.ts";
import type { ReadEnv } from "../../read/context.ts";
import { cachedGenerated, keepGenerated } from "../../read/generated.ts";
import { historyTag, recentChanges, recentChangesKey, shelfHistory } from "../../shelf/changes.ts";
import { MessagePage } from "./messages.tsx";
import { htmlResponse, pageLinks, uiBase } from "./page-context.ts";

const encoder = new TextEncoder();
const FEED_TYPE = `${ATOM_MEDIA_TYPE}; charset=utf-8`;

/** The feed of the shelf (`skill` null) or of one skill. */
export async function feedResponse(c: Context<ReadEnv>, skill: string | null): Promise<Response> {
  if (skill !== null && !SKILL_NAME_RE.test(skill)) {
    return htmlResponse(MessagePage({ links: pageLinks(c), title: "Not on this shelf", message: "No skill could have that name." }), 404);
  }
  const pointer = await shelfHistory(c.env);
  const etag = etagFor(`feed-${historyTag(pointer)}-${skill ?? "shelf"}`);
  const headers = { "Content-Type": FEED_TYPE, ETag: etag, "Cache-Control": "public, max-age=60, must-revalidate" };
  if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  const origin = new URL(c.req.url).origin;
  const ui = `${origin}${uiBase(c)}`;
  const frame =
    skill === null
      ? { self: `${ui}/feed.xml`, alternate: `${ui}/`, title: "What changed on this shelf", skill }
      : { self: `${ui}/skills/${skill}/feed.xml`, alternate: `${ui}/skills/${skill}`, title: `What changed in ${skill}`, skill };
  const updated = pointer?.published_at ?? new Date(0).toISOString();
  const render = async () => renderAtomFeed(frame, await recentChanges(c.env, pointer), updated);
  const body = skill === null ? await keptFeed([frame, updated, recentChangesKey(pointer)], etag, render) : await render();
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}

/**
 * A feed's bytes from the generated-document cache under `keyParts` (everything they depend on),
 * rendered and kept on a miss. The seq alone would not do: tests, or a bucket restored from a
 * backup, can give another history the same seq in the same isolate; its entries and their
 * documents' digests are its own.
 */
async function keptFeed(keyParts: unknown, etag: string, render: () => Promise<string>): Promise<Uint8Array> {
  const key = `feed ${await sha256Hex(JSON.stringify(keyParts))}`;
  return (cachedGenerated(key) ?? keepGenerated(key, { etag, contentType: FEED_TYPE, body: encoder.encode(await render()) })).body;
}
