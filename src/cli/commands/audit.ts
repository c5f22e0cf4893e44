// skillshelf audit <skill-or-shelf> [--json | --sarif] [--min-severity S]: every skill's audit
// findings (core/audit), with the acknowledgements its validation record holds. Exit 0 when no
// unacknowledged finding is at or above --min-severity (default high), 1 otherwise.
import path from "node:path";
import { AUDIT_RULE_SET, SEVERITIES, type Severity } from "../../core/audit/rules.ts";
import { toSarif } from "../../core/audit/sarif.ts";
import { findingId, parseSeverity, unacknowledgedAtLeast } from "../../core/audit/verdict.ts";
import { auditTarget } from "../lib/audit.ts";
import { parseCommandArgs, printable, UsageError, type Command } from "../lib/cli.ts";

const USAGE = "skillshelf audit <skill-or-shelf-dir> [--json | --sarif] [--min-severity critical|high|medium|low|info]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { json: { type: "boolean" }, sarif: { type: "boolean" }, "min-severity": { type: "string" } },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one skill or shelf folder\nusage: ${USAGE}`);
  if (values.json && values.sarif) throw new UsageError("--json and --sarif are two formats; pass one");
  let min: Severity = "high";
  if (values["min-severity"] !== undefined) {
    const parsed = parseSeverity(values["min-severity"]);
    if (!parsed) throw new UsageError(`--min-severity must be one of ${SEVERITIES.join(", ")}; got "${values["min-severity"]}"`);
    min = parsed;
  }
  const target = positionals[0]!;
  const warnings: string[] = [];
  const { skills } = await auditTarget(target, (w) => warnings.push(w));
  const open = skills.map((s) => unacknowledgedAtLeast(s.findings, s.acknowledged, min));
  const failing = open.reduce((n, fs) => n + fs.length, 0);

  if (values.sarif) {
    const cwd = process.cwd();
    const sarif = toSarif(
      skills.map((s) => ({
        name: s.name,
        tree_hash: s.tree_hash,
        uriBase: path.relative(cwd, path.resolve(s.dir)).split(path.sep).join("/"),
        findings: s.findings,
        acknowledged: s.acknowledged,
      })),
      AUDIT_RULE_SET,
    );
    ctx.stdout(`${JSON.stringify(sarif, null, 2)}\n`);
  } else if (values.json) {
    const out = {
      rule_set: AUDIT_RULE_SET,
      min_severity: min,
      skills: skills.map((s) => ({
        name: s.name,
        tree_hash: s.tree_hash,
        findings: s.findings.map((f) => ({
          rule: f.rule,
          severity: f.severity,
          file: f.file,
          line: f.line,
          column: f.column,
          message: f.message,
          excerpt: f.excerpt,
          id: findingId(f),
          acknowledged: s.acknowledged.has(findingId(f)),
        })),
      })),
    };
    ctx.stdout(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    for (const w of warnings) ctx.stderr(`warning: ${w}\n`);
    for (const s of skills) {
      if (s.findings.length === 0) continue;
      ctx.stdout(`${s.name}  (tree ${s.tree_hash ?? "none"})\n`);
      for (const f of s.findings) {
        const ack = s.acknowledged.has(findingId(f)) ? "  [acknowledged]" : "";
        ctx.stdout(`  ${f.severity.padEnd(8)} ${findingId(f)}${ack}\n    ${f.message}\n`);
        if (f.excerpt) ctx.stdout(`    > ${printable(f.excerpt)}\n`);
      }
    }
    const total = skills.reduce((n, s) => n + s.findings.length, 0);
    ctx.stdout(
      `${skills.length} skill(s) audited (${AUDIT_RULE_SET}): ${total} finding(s), ${failing} unacknowledged at ${min} or above${failing ? "; accept one only after reading it: skillshelf attest <shelf> <name> --by <you> --accept <id>" : ""}\n`,
    );
  }
  return failing > 0 ? 1 : 0;
};
