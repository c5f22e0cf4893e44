// skillshelf rollback --url <worker-url> <generation> [--token-env NAME]: makes an earlier
// generation current again. The advisories in force still apply, so a rollback never brings a
// blocked skill back; a generation gc has collected is republished instead, as the refusal says.
import { PublishError } from "../../core/publish/client.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf rollback --url <worker-url> <generation> [--token-env NAME]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { url: { type: "string" }, "token-env": { type: "string" } }, USAGE);
  if (positionals.length !== 1 || !isSha256Hex(positionals[0]!)) {
    throw new UsageError(`expected one generation id (64 lowercase hex; see skillshelf history)\nusage: ${USAGE}`);
  }
  const url = workerUrl(values.url, USAGE);
  const client = adminClient(ctx, url, tokenFrom(ctx, values["token-env"]));
  const target = positionals[0]!;
  const previous = await adminCall(() => client.current());
  if (previous === target) {
    ctx.stdout(`generation ${target} is already current\n`);
    return 0;
  }
  await adminCall(async () => {
    try {
      return await client.rollback({ generation: target, previous });
    } catch (error) {
      if (error instanceof PublishError && error.code === "generation_collected") throw new CliError(collectedHelp(target, url));
      throw error;
    }
  });
  ctx.stdout(`rolled back to ${target} (was ${previous})\n`);
  return 0;
};

/** What to do about a generation gc has collected: rebuild the shelf as it was, and publish it. */
function collectedHelp(generation: string, url: string): string {
  return [
    `generation ${generation} was collected by gc: the history remembers it, but its objects are no longer stored, so it cannot be rolled back to. Nothing changed.`,
    "To make it current again, rebuild the shelf as it was then (the same shelf always gives the same generation id) and publish that build:",
    "  npx skillshelf build <shelf-dir> --out <build-dir>",
    `  npx skillshelf publish --url ${url} --dir <build-dir>`,
  ].join("\n");
}
