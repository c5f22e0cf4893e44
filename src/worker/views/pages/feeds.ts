// The Atom feeds of what changed (RFC 4287): the shelf's (<ui>/feed.xml, and /feed.xml sends
// readers there) and one skill's (<ui>/skills/<name>/feed.xml), rendered by core from the
// history's change documents. Behind the pages' read access; the ETag names the history's seq.
import type { Context } from "hono";
import { ATOM_MEDIA_TYPE, renderAtomFeed } from "../../../core/changes/atom.ts";
import { SKILL_NAME_RE } from "../../../core/skill/skill.ts";
import { etagFor, ifNoneMatchMatches } from "../../http/conditional.ts";
import type { ReadEnv } from "../../read/context.ts";
import { recentChanges, shelfHistory } from "../../shelf/changes.ts";
import { MessagePage } from "./messages.tsx";
import { htmlResponse, pageLinks, uiBase } from "./page-context.ts";

/** The feed of the shelf (`skill` null) or of one skill. */
export async function feedResponse(c: Context<ReadEnv>, skill: string | null): Promise<Response> {
  if (skill !== null && !SKILL_NAME_RE.test(skill)) {
    return htmlResponse(MessagePage({ links: pageLinks(c), title: "Not on this shelf", message: "No skill could have that name." }), 404);
  }
  const pointer = await shelfHistory(c.env);
  const etag = etagFor(`feed-${pointer?.seq ?? 0}-${skill ?? "shelf"}`);
  const headers = { "Content-Type": `${ATOM_MEDIA_TYPE}; charset=utf-8`, ETag: etag, "Cache-Control": "public, max-age=60, must-revalidate" };
  if (ifNoneMatchMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  const origin = new URL(c.req.url).origin;
  const ui = `${origin}${uiBase(c)}`;
  const frame =
    skill === null
      ? { self: `${ui}/feed.xml`, alternate: `${ui}/`, title: "What changed on this shelf", skill }
      : { self: `${ui}/skills/${skill}/feed.xml`, alternate: `${ui}/skills/${skill}`, title: `What changed in ${skill}`, skill };
  const body = renderAtomFeed(frame, await recentChanges(c.env, pointer), pointer?.published_at ?? new Date(0).toISOString());
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}
