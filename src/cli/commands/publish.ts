// skillshelf publish --url <worker-url> [--dir <build>] [--token-env NAME] [--json]: uploads what
// the Worker lacks and makes the build current. Rerunnable: an interrupted publish continues.
import { publishGeneration } from "../../core/publish/client.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import {
  adminCall,
  answeringFetch,
  buildFolderSource,
  progressReporter,
  readTokenFrom,
  renderListings,
  tokenFrom,
  visibilityNote,
  waitTimeout,
  waitUntilServed,
  workerUrl,
} from "../lib/publish.ts";
import { DEFAULT_BUILD_DIR } from "./build.ts";

const USAGE = "skillshelf publish --url <worker-url> [--dir <build>] [--token-env NAME] [--json] [--wait] [--wait-timeout S] [--read-token-env NAME]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      url: { type: "string" },
      dir: { type: "string" },
      "token-env": { type: "string" },
      json: { type: "boolean" },
      wait: { type: "boolean" },
      "wait-timeout": { type: "string" },
      "read-token-env": { type: "string" },
    },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  const timeout = waitTimeout(values["wait-timeout"], USAGE);
  const url = workerUrl(values.url, USAGE);
  const token = tokenFrom(ctx, values["token-env"]);
  const source = await buildFolderSource(values.dir ?? DEFAULT_BUILD_DIR);
  const reporter = progressReporter(ctx);
  const result = await adminCall(() =>
    publishGeneration(source, { url, token, fetch: answeringFetch(url), onProgress: reporter.onProgress, onLog: (line) => ctx.stderr(`${line}\n`) }),
  ).finally(reporter.done);
  if (values.json) {
    ctx.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else if (result.alreadyCurrent) {
    ctx.stdout(`generation ${result.generation} is already current at ${url}; nothing uploaded\n`);
  } else {
    const u = result.uploaded;
    ctx.stdout(
      `published generation ${result.generation} (previous: ${result.previous ?? "none"})\n` +
        `  uploaded ${u.blob} blob(s), ${u.record} record(s), ${u.shard} shard(s), ${u.generation} manifest(s): ${result.bytesUploaded} bytes in ${result.requests} request(s)\n` +
        (result.reuploaded ? `  re-uploaded ${result.reuploaded} object(s) that gc collected while this publish ran\n` : ""),
    );
  }
  if (values.wait) {
    const read = readTokenFrom(ctx, values["read-token-env"]);
    await waitUntilServed(ctx, url, result.generation, timeout, {}, read);
    await renderListings(ctx, url, read);
  } else if (!values.json && !result.alreadyCurrent) ctx.stdout(visibilityNote());
  return 0;
};
