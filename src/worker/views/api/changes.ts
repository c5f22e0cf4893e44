// GET /v1/changes: the shelf's history entries after `since` with their change documents, a thin
// view over shelf/changes.ts. The ETag names the history's state (historyTag: seq, newest entry) and the query, so a poller that
// has seen the newest entry gets a 304 after one R2 read of the pointer.
import { CHANGES_API, CHANGES_PAGE } from "../../../core/api/changes.ts";
import { etagFor } from "../../http/conditional.ts";
import { generated } from "../../read/context.ts";
import { changesPage, historyTag, shelfHistory } from "../../shelf/changes.ts";
import { bindRoute, queryOf, type ApiApp } from "./routes.ts";

/** Binds the changes group. */
export function changeRoutes(app: ApiApp): void {
  bindRoute(app, CHANGES_API.list, async (c) => {
    const { since, limit } = queryOf(c, CHANGES_API.list);
    const size = limit === undefined ? CHANGES_PAGE.default : Number(limit);
    const pointer = await shelfHistory(c.env);
    const etag = etagFor(`changes-${historyTag(pointer)}-${since ?? "all"}-${size}`.replaceAll(":", "_").replaceAll("+", "p"));
    return generated(c, etag, () => changesPage(c.env, pointer, since, size));
  });
}
