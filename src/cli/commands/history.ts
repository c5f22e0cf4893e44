// skillshelf history --url <worker-url> [--token-env NAME] [--json]: the pointer's moves, newest first.
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf history --url <worker-url> [--token-env NAME] [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { url: { type: "string" }, "token-env": { type: "string" }, json: { type: "boolean" } }, USAGE);
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  const client = adminClient(ctx, workerUrl(values.url, USAGE), tokenFrom(ctx, values["token-env"]));
  const json = await adminCall(() => client.history());
  if (values.json) {
    ctx.stdout(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  if (!json.current) {
    ctx.stdout("nothing has been published yet\n");
    return 0;
  }
  for (const h of json.history)
    ctx.stdout(`${h.seq}\t${h.at}\t${h.action}\t${h.generation}${h.generation === json.current && h === json.history[0] ? "\t(current)" : ""}\n`);
  return 0;
};
