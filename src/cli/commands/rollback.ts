// skillshelf rollback --url <worker-url> (<generation> | --previous | --seq N) [--token-env NAME]:
// makes an earlier generation current again, naming it (id, history seq, when) before it acts.
// The advisories in force still apply, so a rollback never brings a blocked skill back; a
// generation gc has collected is republished instead, as the refusal says.
import type { History } from "../../core/publish/contract.ts";
import { PublishError } from "../../core/publish/client.ts";
import type { HistoryEntry } from "../../core/generation/manifest.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { adminCall, adminClient, readTokenFrom, renderListings, tokenFrom, visibilityNote, waitTimeout, waitUntilServed, workerUrl } from "../lib/publish.ts";

const USAGE =
  "skillshelf rollback --url <worker-url> (<generation> | --previous | --seq N) [--token-env NAME] [--wait] [--wait-timeout S] [--read-token-env NAME]";

/** A generation id prefix must be this long to name one generation with any confidence. */
const MIN_PREFIX = 8;

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      url: { type: "string" },
      "token-env": { type: "string" },
      previous: { type: "boolean" },
      seq: { type: "string" },
      wait: { type: "boolean" },
      "wait-timeout": { type: "string" },
      "read-token-env": { type: "string" },
    },
    USAGE,
  );
  const ways = positionals.length + (values.previous ? 1 : 0) + (values.seq !== undefined ? 1 : 0);
  if (ways !== 1 || positionals.length > 1) {
    throw new UsageError(
      `name one generation: its id (or a unique prefix of ${MIN_PREFIX}+ hex digits), --previous, or --seq N (see skillshelf history)\nusage: ${USAGE}`,
    );
  }
  const id = positionals[0];
  if (id !== undefined && !new RegExp(`^[0-9a-f]{${MIN_PREFIX},64}$`).test(id)) {
    throw new UsageError(`${id} is not a generation id or a prefix of at least ${MIN_PREFIX} lowercase hex digits\nusage: ${USAGE}`);
  }
  if (values.seq !== undefined && !/^[1-9][0-9]*$/.test(values.seq))
    throw new UsageError(`--seq must be a history sequence number (1 or more), not ${values.seq}\nusage: ${USAGE}`);
  const timeout = waitTimeout(values["wait-timeout"], USAGE);
  const url = workerUrl(values.url, USAGE);
  const client = adminClient(ctx, url, tokenFrom(ctx, values["token-env"]));
  const history = await adminCall(() => client.history());
  const previous = history.current;
  const target = values.previous ? previousOf(history) : values.seq !== undefined ? bySeq(history, Number(values.seq)) : byId(history, id!);
  if (previous === target) {
    ctx.stdout(`generation ${target} is already current\n`);
    return 0;
  }
  ctx.stdout(`rolling back to ${describe(history, target)}\n`);
  await adminCall(async () => {
    try {
      return await client.rollback({ generation: target, previous });
    } catch (error) {
      if (error instanceof PublishError && error.code === "generation_collected") throw new CliError(collectedHelp(target, url));
      throw error;
    }
  });
  ctx.stdout(`rolled back to ${target} (was ${previous})\n`);
  if (values.wait) {
    const read = readTokenFrom(ctx, values["read-token-env"]);
    await waitUntilServed(ctx, url, target, timeout, {}, read);
    await renderListings(ctx, url, read);
  } else ctx.stdout(visibilityNote());
  return 0;
};

/** The generation that was current before the current one. */
function previousOf(history: History): string {
  const earlier = history.history.find((h) => h.generation !== history.current);
  if (!history.current || !earlier) throw new CliError("no earlier generation to roll back to (see skillshelf history)");
  return earlier.generation;
}

function bySeq(history: History, seq: number): string {
  const entry = history.history.find((h) => h.seq === seq);
  if (!entry) {
    const seqs = history.history.map((h) => h.seq);
    throw new CliError(
      `no history entry with seq ${seq}${seqs.length ? ` (the history holds ${Math.min(...seqs)}–${Math.max(...seqs)})` : ""}; see skillshelf history`,
    );
  }
  return entry.generation;
}

/** A full id is taken as given (the Worker knows generations the history no longer lists); a prefix must match exactly one. */
function byId(history: History, id: string): string {
  if (isSha256Hex(id)) return id;
  const matches = [...new Set(history.history.map((h) => h.generation).filter((g) => g.startsWith(id)))];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError(`no generation in the history starts with ${id}; see skillshelf history`);
  const lines = matches.map((g) => `  ${describe(history, g)}`);
  throw new CliError(`${id} names ${matches.length} generations; give more of the id:\n${lines.join("\n")}`);
}

/** "<id> (seq N, published <when>)" from the history's newest entry for the generation. */
function describe(history: History, generation: string): string {
  const entry: HistoryEntry | undefined = history.history.find((h) => h.generation === generation);
  return entry
    ? `${generation} (seq ${entry.seq}, ${{ publish: "published", rollback: "rolled back to", advisory: "advisories changed" }[entry.action]} ${entry.at})`
    : `${generation} (not in the history)`;
}

/** What to do about a generation gc has collected: rebuild the shelf as it was, and publish it. */
function collectedHelp(generation: string, url: string): string {
  return [
    `generation ${generation} was collected by gc: the history remembers it, but its objects are no longer stored, so it cannot be rolled back to. Nothing changed.`,
    "To make it current again, rebuild the shelf as it was then (the same shelf always gives the same generation id) and publish that build:",
    "  npx skillshelf build <shelf-dir> --out <build-dir>",
    `  npx skillshelf publish --url ${url} --dir <build-dir>`,
  ].join("\n");
}
