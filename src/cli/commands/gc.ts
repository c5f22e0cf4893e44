// skillshelf gc --url <worker-url> [--keep N] [--grace-hours H] [--apply] [--token-env NAME] [--json]:
// lists (or, with --apply, deletes) stored objects that no kept generation references and that
// are older than the grace period. A dry run by default.
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf gc --url <worker-url> [--keep N] [--grace-hours H] [--apply] [--token-env NAME] [--json]";

function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, not ${value}\nusage: ${USAGE}`);
  return Number(value);
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      url: { type: "string" },
      keep: { type: "string" },
      "grace-hours": { type: "string" },
      apply: { type: "boolean" },
      "token-env": { type: "string" },
      json: { type: "boolean" },
    },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  const keep = wholeNumber(values.keep, "--keep");
  const graceHours = wholeNumber(values["grace-hours"], "--grace-hours");
  const client = adminClient(ctx, workerUrl(values.url, USAGE), tokenFrom(ctx, values["token-env"]));
  const json = await adminCall(() =>
    client.gc({ keep, grace_seconds: graceHours === undefined ? undefined : graceHours * 3600, apply: Boolean(values.apply) }),
  );
  if (values.json) {
    ctx.stdout(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  if (graceHours !== undefined && graceHours * 3600 < json.grace_seconds) {
    ctx.stderr(
      `note: gc keeps everything uploaded within the last ${json.grace_seconds / 3600} h whatever --grace-hours says, so a publish in flight keeps what it uploaded\n`,
    );
  }
  const d = json.deletable;
  ctx.stdout(`kept generations (${json.kept_generations.length}): ${json.kept_generations.join(", ") || "none"}\n`);
  ctx.stdout(
    `unreferenced and older than ${json.grace_seconds / 3600} h: ${d.generation} manifest(s), ${d.shard} shard(s), ${d.record} record(s), ${d.blob} blob(s), ${json.deletable_bytes} bytes\n`,
  );
  if (json.applied) ctx.stdout(`deleted ${json.deleted.generation + json.deleted.shard + json.deleted.record + json.deleted.blob} object(s)\n`);
  else ctx.stdout("dry run: nothing deleted; rerun with --apply to delete\n");
  return 0;
};
