// `skillshelf select <shelf-dir> --names a,b [--enable name|name@hash[,…] ...] [--root <dir> ...]`:
// the trust-gated selection for a context, and the <available_skills> block it would compose.
import path from "node:path";
import { checkSkillName } from "../../core/trust/records.ts";
import { selectSkills } from "../../core/trust/select.ts";
import { commaList, forPeople, parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { readShelfRecords } from "../lib/shelf-records.ts";
import { requireDir } from "../lib/skill-dir.ts";
import { filesystemSkillSource } from "../lib/skill-source.ts";

const USAGE = "skillshelf select <shelf-dir> --names a,b [--enable name|name@hash[,…] ...] [--root <dir> ...] [--json]";

/**
 * Notes for --enable entries that cannot do what the operator meant: a bare name that is not a
 * skill name, or an entry for a skill not in --names (it grants nothing in this selection).
 * Malformed pins are already noted by selectSkills.
 */
function enableNotes(enabled: readonly string[], names: readonly string[]): string[] {
  const notes: string[] = [];
  for (const entry of enabled) {
    const at = entry.indexOf("@");
    const name = at < 0 ? entry : entry.slice(0, at);
    const checked = checkSkillName(name);
    if (!checked.ok) {
      if (at < 0) notes.push(`--enable ${JSON.stringify(entry)} is not a skill name or a name@<64-hex tree hash> pin (${checked.message}); it grants nothing`);
    } else if (!names.includes(checked.name)) {
      notes.push(`--enable ${JSON.stringify(entry)} names no requested skill (--names ${names.join(",")}); it grants nothing`);
    }
  }
  return notes;
}

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
  const enabled = (values.enable ?? []).flatMap((v) => commaList(v) ?? []);
  const selection = await selectSkills(records, filesystemSkillSource(roots), names, { enabled });
  selection.warnings.push(...enableNotes(enabled, names));
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ...selection, record_warnings: warnings }, null, 2)}\n`);
    return 0;
  }
  for (const w of warnings) ctx.stderr(`warning: ${w}\n`);
  const line = (label: string, items: string[]) => ctx.stdout(`${label}: ${items.length ? items.join(", ") : "(none)"}\n`);
  line("active", selection.active_names);
  line(
    "held (requires review; enable with --enable name or name@hash)",
    selection.held.map((h) => `${h.name}@${selection.resolved_tree_hashes[h.name]}`),
  );
  for (const h of selection.held) for (const r of h.verdict.reasons) ctx.stdout(`    ${h.name}: ${forPeople(r)}\n`);
  line(
    "blocked (never activates)",
    selection.blocked.map((b) => b.name),
  );
  for (const b of selection.blocked) for (const r of b.verdict.reasons) ctx.stdout(`    ${b.name}: ${forPeople(r)}\n`);
  line("missing", selection.missing);
  for (const [name, req] of Object.entries(selection.requires)) {
    ctx.stdout(`requires ${name}: ${[...req.mcp_servers.map((s) => `mcp:${s}`), ...req.tools.map((t) => `tool:${t}`)].join(", ")}\n`);
  }
  for (const w of selection.warnings) ctx.stdout(`note: ${forPeople(w)}\n`);
  ctx.stdout(`\n${selection.activation_block}\n`);
  return 0;
};
