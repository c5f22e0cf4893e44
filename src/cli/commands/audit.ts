// skillshelf audit <skill-or-shelf> [--json | --sarif] [--min-severity S]: every skill's audit
// findings (core/audit), with the acknowledgements its validation record holds. Exit 0 when no
// unacknowledged finding is at or above --min-severity (default high), 1 otherwise. --since lists
// what changed per skill relative to a build folder, or to what a shelf publishes (its URL, or a
// generation id with --url): files, scripts, executables, network hosts, new findings.
import path from "node:path";
import { AUDIT_RULE_SET, SEVERITIES, type Severity } from "../../core/audit/rules.ts";
import { toSarif } from "../../core/audit/sarif.ts";
import { findingFields } from "../../core/audit/published.ts";
import { findingId, parseSeverity, unacknowledgedAtLeast } from "../../core/audit/verdict.ts";
import { diffGenerations, type SkillChange } from "../../core/generation/diff.ts";
import { auditTarget } from "../lib/audit.ts";
import { readBuildTrees } from "../lib/build-trees.ts";
import { parseCommandArgs, printable, UsageError, type Command } from "../lib/cli.ts";
import { readTokenFrom } from "../lib/install.ts";
import { publishedSource, readPublishedTrees } from "../lib/shelf-trees.ts";
import { isShelfDir } from "../lib/skill-dir.ts";

const USAGE =
  "skillshelf audit <skill-or-shelf-dir> [--json | --sarif] [--since <build-dir | shelf-url | generation> [--url <shelf-url>] [--token-env NAME]] [--min-severity critical|high|medium|low|info]";

/** One skill's change since `then` ("the build", "generation 1a2b…"), in a reviewer's words (nothing for an unchanged skill). */
function describeChange(c: SkillChange, then: string): string[] {
  if (c.status === "unchanged") return [];
  if (c.status === "removed") return [`${c.name}: removed since ${then}`];
  if (c.status === "added") return [`${c.name}: new since ${then} (${c.files_added.length} file(s))`, ...detail(c)];
  return [`${c.name}: changed since ${then} (tree ${c.from_tree?.slice(0, 12)} → ${c.to_tree?.slice(0, 12)})`, ...detail(c)];
}

function detail(c: SkillChange): string[] {
  const lines: string[] = [];
  const list = (label: string, items: readonly string[]) => items.length && lines.push(`  ${label}: ${items.join(", ")}`);
  if (c.status === "changed") list("files added", c.files_added);
  list("files removed", c.files_removed);
  list("files changed", c.files_changed);
  list("scripts added or changed", c.scripts_changed);
  list("new executable files", c.new_executables);
  list("new network hosts", c.new_hosts);
  for (const f of c.new_findings) lines.push(`  new finding: ${f.severity} ${f.rule}@${f.file}:${f.line}`);
  if (c.loses_attachable) lines.push(`  not attachable on the old record's word: ${c.loses_attachable}`);
  return lines;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      json: { type: "boolean" },
      sarif: { type: "boolean" },
      "min-severity": { type: "string" },
      since: { type: "string" },
      url: { type: "string" },
      "token-env": { type: "string" },
    },
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
  if (values.since !== undefined && values.sarif) throw new UsageError("--since reports changes, which SARIF cannot carry; use it with --json or alone");
  const published = values.since !== undefined ? publishedSource(values.since, values.url, USAGE) : null;
  if (values.url !== undefined && !(values.since !== undefined && /^[0-9a-f]{64}$/.test(values.since)))
    throw new UsageError(`--url names the shelf a --since <generation id> is read from\nusage: ${USAGE}`);
  const token = published ? readTokenFrom(ctx.env, values["token-env"], USAGE) : undefined;
  const warnings: string[] = [];
  const { skills } = await auditTarget(target, (w) => warnings.push(w));
  let before: Awaited<ReturnType<typeof readBuildTrees>> | null = null;
  let then = "the build";
  let sinceJson: Record<string, string> = {};
  if (published) {
    const local = new Map(skills.flatMap((s) => (s.tree_hash ? [[s.name, s.tree_hash] as const] : [])));
    const read = await readPublishedTrees(published, token, local);
    before = read.trees;
    then = `generation ${read.generation.slice(0, 12)}`;
    sinceJson = { shelf: printable(new URL(published.base).origin), generation: read.generation };
  } else if (values.since !== undefined) {
    before = await readBuildTrees(values.since);
    sinceJson = { build: values.since };
  }
  // One skill folder is compared with its own published tree, not with the whole shelf's.
  if (before && !(await isShelfDir(target))) before = before.filter((t) => skills.some((s) => s.name === t.name));
  const open = skills.map((s) => unacknowledgedAtLeast(s.findings, s.acknowledged, min));
  const failing = open.reduce((n, fs) => n + fs.length, 0);
  const changes = before
    ? diffGenerations(
        before,
        skills.flatMap((s) => (s.tree_hash ? [{ name: s.name, tree_hash: s.tree_hash, files: s.files, findings: s.findings }] : [])),
      )
    : null;

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
          ...findingFields(f),
          id: findingId(f),
          acknowledged: s.acknowledged.has(findingId(f)),
        })),
      })),
      ...(changes ? { since: { ...sinceJson, changes: changes.filter((c) => c.status !== "unchanged") } } : {}),
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
    if (changes) {
      const lines = changes.flatMap((c) => describeChange(c, then));
      const label = published ? `${then} of ${printable(new URL(published.base).origin)}` : values.since;
      ctx.stdout(lines.length ? `since ${label}:\n${lines.join("\n")}\n` : `since ${label}: nothing changed\n`);
    }
    const total = skills.reduce((n, s) => n + s.findings.length, 0);
    ctx.stdout(
      `${skills.length} skill(s) audited (${AUDIT_RULE_SET}): ${total} finding(s), ${failing} unacknowledged at ${min} or above${failing ? "; accept one only after reading it: skillshelf attest <shelf> <name> --by <you> --accept <id>" : ""}\n`,
    );
  }
  return failing > 0 ? 1 : 0;
};
