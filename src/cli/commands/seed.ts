// `skillshelf seed --from <bundle-shelf | curated> --to <team-shelf> [--exclude a,b] [--json]`: copy a curated shelf
// into a team's shelf folder without clobbering their edits (AbstractSkill seed_registry semantics). `--from
// curated` is the shelf this skillshelf package ships, so a team re-seeds from the version it depends on.
import { commaList, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { curatedShelfDir } from "../lib/package-root.ts";
import { SEED_BUCKETS, SEED_MANIFEST, seedShelf, type SeedReport } from "../lib/seed.ts";

const USAGE = "skillshelf seed --from <bundle-shelf | curated> --to <team-shelf> [--exclude a,b ...] [--json]";

/** The human report: one line per non-empty bucket, items listed. */
export function formatSeedReport(report: SeedReport): string {
  const lines = [
    `seeded ${report.dest} from bundle ${report.bundled_version}${report.previous_version ? ` (previously ${report.previous_version})` : " (no earlier seed)"}`,
  ];
  for (const bucket of [...SEED_BUCKETS, "not_in_bundle"] as const) {
    const items = report[bucket];
    if (items.length) lines.push(`  ${bucket} (${items.length}): ${items.join(", ")}`);
  }
  if (report.excluded?.length)
    lines.push(`  excluded (${report.excluded.length}): ${report.excluded.join(", ")} (left as they are; pass --exclude on every seed to keep them out)`);
  if (report.not_in_bundle.length) lines.push("  not_in_bundle items were left in place; remove them yourself if they are no longer wanted");
  if (report.manifest_written) lines.push(`  wrote ${SEED_MANIFEST}${report.changed ? "" : " (no item changed)"}`);
  else if (!report.changed) lines.push("  nothing written");
  return `${lines.join("\n")}\n`;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { from: { type: "string" }, to: { type: "string" }, exclude: { type: "string", multiple: true }, json: { type: "boolean" } },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  if (!values.from || !values.to) throw new UsageError(`--from and --to are required\nusage: ${USAGE}`);
  const exclude = values.exclude?.flatMap((v) => commaList(v) ?? []);
  if (values.exclude && !exclude?.length) throw new UsageError(`--exclude needs at least one skill name\nusage: ${USAGE}`);
  const from = values.from === "curated" ? await curatedShelfDir() : values.from;
  const report = await seedShelf(from, values.to, exclude ? { exclude } : {});
  ctx.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatSeedReport(report));
  return 0;
};
