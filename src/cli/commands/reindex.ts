// skillshelf reindex --url <worker-url> [--token-env NAME] [--json]: rebuilds the shelf's version
// index from the pointer's history (POST /admin/v1/versions/rebuild), continuing until complete.
import { VERSIONS_ADMIN_API, type ReindexReport } from "../../core/versions/admin.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf reindex --url <worker-url> [--token-env NAME] [--json]";
/** Calls after which a rebuild that still is not complete is reported instead of continued. */
const MAX_CALLS = 50;

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { url: { type: "string" }, "token-env": { type: "string" }, json: { type: "boolean" } }, USAGE);
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  const client = adminClient(ctx, workerUrl(values.url, USAGE), tokenFrom(ctx, values["token-env"]));
  let report: ReindexReport | null = null;
  let applied = 0;
  for (let call = 0; call < MAX_CALLS && !report?.complete; call++) {
    report = (await adminCall(() => client.request(VERSIONS_ADMIN_API.reindex, { json: { fresh: call === 0 } }))).body as ReindexReport;
    applied += report.applied;
    if (!report.complete) ctx.stderr(`applied ${applied} move(s); the index reflects seq ${report.pointer_seq} of ${report.current_seq}, continuing\n`);
  }
  if (values.json) ctx.stdout(`${JSON.stringify({ ...report, applied }, null, 2)}\n`);
  else
    ctx.stdout(
      `version index rebuilt from ${applied} pointer move(s) up to seq ${report!.pointer_seq} of ${report!.current_seq}${report!.complete ? "" : " (incomplete: rerun)"}\n`,
    );
  return report!.complete ? 0 : 1;
};
