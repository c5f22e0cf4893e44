// skillshelf advise --url <worker-url> [<advisories.yaml | shelf-dir>] [--token-env NAME]:
// publishes advisories on their own. They are merged into the advisories in force (a withdrawal
// replaces its entry; nothing is dropped) and every route applies them at request time, so a
// new do-not-use advisory takes effect without a rebuild.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseAdvisories } from "../../core/trust/records.ts";
import { advisoryToDict } from "../../core/trust/serialize.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, tokenFrom, workerUrl } from "../lib/publish.ts";

const USAGE = "skillshelf advise --url <worker-url> [<advisories.yaml | shelf-dir>] [--token-env NAME]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { url: { type: "string" }, "token-env": { type: "string" } }, USAGE);
  if (positionals.length > 1) throw new UsageError(`expected at most one file or shelf folder\nusage: ${USAGE}`);
  let file = positionals[0] ?? "shelf";
  try {
    if ((await stat(file)).isDirectory()) file = path.join(file, "advisories.yaml");
  } catch {
    throw new UsageError(`not found: ${file}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const parsed = parseAdvisories(bytes, file);
  for (const w of parsed.warnings) ctx.stderr(`warning: ${w}\n`);
  if (parsed.problems.length) {
    throw new CliError(`${file} has ${parsed.problems.length} problem(s); nothing was published:\n${parsed.problems.map((p) => `  ${p.message}`).join("\n")}`);
  }
  const client = adminClient(ctx, workerUrl(values.url, USAGE), tokenFrom(ctx, values["token-env"]));
  const { changed, record } = await adminCall(() => client.mergeAdvisories(parsed.entries.map(advisoryToDict)));
  ctx.stdout(
    changed
      ? `advisories updated: ${record.advisories.length} in force (seq ${record.seq}); every edge applies them within the propagation bound (docs/storage.md)\n`
      : `advisories unchanged: ${record.advisories.length} in force\n`,
  );
  return 0;
};
