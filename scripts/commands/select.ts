// `skillshelf select <shelf-dir> --names a,b [--enable name|name@hash ...] [--root <dir> ...]`:
// the trust-gated selection for a context, and the <available_skills> block it would compose.
import path from "node:path";
import { selectSkills } from "../../src/core/trust/select.ts";
import { commaList, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readShelfRecords } from "../lib/shelf-records.ts";
import { requireDir } from "../lib/skill-dir.ts";
import { filesystemSkillSource } from "../lib/skill-source.ts";

const USAGE = "skillshelf select <shelf-dir> --names a,b [--enable name|name@hash ...] [--root <dir> ...] [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { names: { type: "string" }, enable: { type: "string", multiple: true }, root: { type: "string", multiple: true }, json: { type: "boolean" } },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one shelf folder\nusage: ${USAGE}`);
  const names = commaList(values.names);
  if (!names?.length) throw new UsageError(`--names is required (comma-separated skill names)\nusage: ${USAGE}`);
  const shelf = positionals[0]!;
  await requireDir(shelf, "shelf folder");
  for (const root of values.root ?? []) await requireDir(root, "skill root");
  const warnings: string[] = [];
  const records = await readShelfRecords(shelf, (w) => warnings.push(w));
  // The shelf's own skills first; each --root after it takes precedence, in order.
  const roots = [path.join(shelf, "skills"), ...(values.root ?? [])];
  const selection = await selectSkills(records, filesystemSkillSource(roots), names, { enabled: values.enable ?? [] });
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ...selection, record_warnings: warnings }, null, 2)}\n`);
    return 0;
  }
  for (const w of warnings) ctx.stderr(`warning: ${w}\n`);
  const line = (label: string, items: string[]) => ctx.stdout(`${label}: ${items.length ? items.join(", ") : "(none)"}\n`);
  line("active", selection.active_names);
  line("held (requires review; enable with --enable name or name@hash)", selection.held.map((h) => `${h.name}@${selection.resolved_tree_hashes[h.name]}`));
  for (const h of selection.held) for (const r of h.verdict.reasons) ctx.stdout(`    ${h.name}: ${r}\n`);
  line("blocked (never activates)", selection.blocked.map((b) => b.name));
  for (const b of selection.blocked) for (const r of b.verdict.reasons) ctx.stdout(`    ${b.name}: ${r}\n`);
  line("missing", selection.missing);
  for (const [name, req] of Object.entries(selection.requires)) {
    ctx.stdout(`requires ${name}: ${[...req.mcp_servers.map((s) => `mcp:${s}`), ...req.tools.map((t) => `tool:${t}`)].join(", ")}\n`);
  }
  for (const w of selection.warnings) ctx.stdout(`note: ${w}\n`);
  ctx.stdout(`\n${selection.activation_block}\n`);
  return 0;
};
