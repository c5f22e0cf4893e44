// skillshelf catalog <shelf-dir> [flags]: the catalog an agent's system prompt would carry for
// this shelf, byte-identical to agentskills-core's, printed exactly (no newline added). Skills the
// shelf folder's own trust records block are left out, as the Worker leaves out skills blocked by
// the advisories in force, and stderr names them.
import { CatalogError, renderCatalog, type CatalogFormat } from "../../core/disclosure/catalog.ts";
import type { ShelfRecords } from "../../core/trust/records.ts";
import { judgeSkill } from "../../core/trust/select.ts";
import { CliError, commaList, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readShelfRecords } from "../lib/shelf-records.ts";
import { loadValidShelf, type ValidSkill } from "../lib/valid-skill.ts";

const USAGE =
  "skillshelf catalog <shelf-dir> [--format xml|markdown] [--tags a,b] [--include a,b] [--exclude a,b] " + "[--max-chars N] [--total N] [--no-selection-hints]";

function nonNegativeInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be a whole number of characters or skills, got "${value}"\nusage: ${USAGE}`);
  }
  return Number(value);
}

// parseArgs reads "--max-chars -1" as a flag missing its value ("ambiguous"); name the real
// mistake instead: a negative number where a count belongs.
function refuseDashValues(args: readonly string[]): void {
  args.forEach((arg, i) => {
    const next = args[i + 1];
    if ((arg === "--max-chars" || arg === "--total") && next !== undefined && /^-\d/.test(next)) nonNegativeInteger(arg, next);
  });
}

/**
 * The skills the shelf's records block, judged as the build judges them (it refuses them): the
 * tree hash and provenance against advisories.yaml, validations.yaml and the registry records.
 */
function blockedByRecords(skills: readonly ValidSkill[], records: ShelfRecords): Set<string> {
  const blocked = new Set<string>();
  for (const skill of skills) {
    const { tree_hash, has_scripts } = skill.inventory;
    // Verdict notes (#FALLBACK provenance remarks) are `skillshelf trust`'s to show, not the catalog's.
    if (judgeSkill(records, { name: skill.metadata.name, tree_hash, has_scripts }, () => {}).blocked) blocked.add(skill.metadata.name);
  }
  return blocked;
}

export const run: Command = async (ctx) => {
  refuseDashValues(ctx.args);
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      format: { type: "string" },
      tags: { type: "string" },
      include: { type: "string" },
      exclude: { type: "string" },
      "max-chars": { type: "string" },
      total: { type: "string" },
      "no-selection-hints": { type: "boolean" },
    },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one shelf folder\nusage: ${USAGE}`);
  const format = values.format ?? "xml";
  if (format !== "xml" && format !== "markdown") {
    throw new UsageError(`--format must be xml or markdown, got "${format}"\nusage: ${USAGE}`);
  }
  const maxChars = nonNegativeInteger("--max-chars", values["max-chars"]);
  const total = nonNegativeInteger("--total", values.total);
  const shelfDir = positionals[0]!;
  const loaded = await loadValidShelf(shelfDir);
  // Malformed records refuse the catalog (exit 1, every problem listed): what they block is unknown.
  const blocked = blockedByRecords(loaded, await readShelfRecords(shelfDir, () => {}));
  const skills = loaded.filter((s) => !blocked.has(s.metadata.name));
  if (blocked.size > 0) {
    ctx.stderr(`left out ${blocked.size} skill(s) blocked by this shelf's advisories: ${[...blocked].join(", ")} (skillshelf trust ${shelfDir} says why)\n`);
  }
  try {
    ctx.stdout(
      renderCatalog(
        skills.map((s) => s.metadata),
        {
          format: format as CatalogFormat,
          tags: commaList(values.tags),
          include: commaList(values.include),
          exclude: commaList(values.exclude),
          maxChars,
          total,
          selectionHints: !values["no-selection-hints"],
        },
      ),
    );
  } catch (error) {
    if (error instanceof CatalogError) throw new CliError(error.message);
    throw error;
  }
  return 0;
};
