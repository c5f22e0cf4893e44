// skillshelf inspect <skill-dir> [--json]: inventory, content and tree hash, parsed frontmatter;
// a summary for people by default, the whole report with --json.
import { CliError, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { loadSkill } from "../lib/skill-dir.ts";

const USAGE = "skillshelf inspect <skill-dir> [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(ctx.args, { json: { type: "boolean" } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected one skill folder\nusage: ${USAGE}`);
  const skill = await loadSkill(positionals[0]!);
  if (!skill.inventory) throw new CliError(skill.validation.problems[0]?.message ?? "not a skill folder");
  const report = {
    name: skill.name,
    content_hash: skill.inventory.content_hash,
    tree_hash: skill.inventory.tree_hash,
    total_bytes: skill.inventory.total_bytes,
    has_scripts: skill.inventory.has_scripts,
    files: skill.inventory.files,
    frontmatter: skill.validation.parsed?.frontmatter ?? null,
    metadata: skill.validation.metadata ?? null,
    valid: skill.validation.ok,
    problems: skill.validation.problems,
  };
  ctx.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : summary(report));
  return skill.validation.ok ? 0 : 1;
};

/** The report for people: what the skill is, its files with sizes, its hashes, its frontmatter's keys. */
function summary(report: {
  name: string;
  content_hash: string;
  tree_hash: string;
  total_bytes: number;
  files: { path: string; size: number }[];
  frontmatter: Record<string, unknown> | null;
  valid: boolean;
  problems: { severity: string; field: string; message: string }[];
}): string {
  const fm = report.frontmatter ?? {};
  const text = (key: string) => (typeof fm[key] === "string" ? (fm[key] as string) : undefined);
  const width = Math.max(...report.files.map((f) => String(f.size).length));
  const lines = [
    `${report.name}${text("version") ? ` ${text("version")}` : ""}`,
    `  ${text("description") ?? "(no description)"}`,
    "",
    `files (${report.files.length}, ${report.total_bytes} bytes):`,
    ...report.files.map((f) => `  ${String(f.size).padStart(width)}  ${f.path}`),
    "",
    `content hash (SKILL.md): ${report.content_hash}`,
    `tree hash (all files):   ${report.tree_hash}`,
    "",
    "frontmatter:",
    ...Object.entries(fm).map(([key, value]) => `  ${key}: ${brief(value)}`),
  ];
  if (report.problems.length)
    lines.push("", `${report.valid ? "warnings" : "problems"}:`, ...report.problems.map((p) => `  ${p.severity} ${p.field}: ${p.message}`));
  return `${lines.join("\n")}\n`;
}

/** A frontmatter value on one line: short strings whole, long ones cut, lists and maps by size. */
function brief(value: unknown): string {
  if (typeof value === "string") return value.length > 72 ? `${value.slice(0, 71)}…` : value;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value && typeof value === "object") return `${Object.keys(value).join(", ")} (a map)`;
  return String(value);
}
