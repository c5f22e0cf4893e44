// skillshelf rollback --url <worker-url> <generation> [--token-env NAME]: makes an earlier
// generation current again. Blobs are immutable, so nothing is lost; the advisories in force
// still apply, so a rollback never brings a blocked skill back.
import { isSha256Hex } from "../../core/skill/hash.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf rollback --url <worker-url> <generation> [--token-env NAME]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { url: { type: "string" }, "token-env": { type: "string" } }, USAGE);
  if (positionals.length !== 1 || !isSha256Hex(positionals[0]!)) {
    throw new UsageError(`expected one generation id (64 lowercase hex; see skillshelf history)\nusage: ${USAGE}`);
  }
  const client = adminClient(ctx, workerUrl(values.url, USAGE), tokenFrom(ctx, values["token-env"]));
  const target = positionals[0]!;
  const previous = await adminCall(() => client.current());
  if (previous === target) {
    ctx.stdout(`generation ${target} is already current\n`);
    return 0;
  }
  await adminCall(() => client.rollback({ generation: target, previous }));
  ctx.stdout(`rolled back to ${target} (was ${previous})\n`);
  return 0;
};
