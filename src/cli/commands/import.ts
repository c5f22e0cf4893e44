// skillshelf import <source> --to <shelf> [--skill <name>…] [--ref <ref>] [--dry-run]: bring public
// skills onto a team's shelf from a git repository, a well-known index or a folder, only from a
// source the shelf's skillshelf.yaml allows, audited (findings print before anything is written),
// recorded in provenance.yaml, never over a folder the team wrote or edited.
// `import --update [<name>…]` shows what the pinned source changed and replaces only with --yes.
import { lstat } from "node:fs/promises";
import path from "node:path";
import { auditSkill, type Finding } from "../../core/audit/scan.ts";
import { findingId } from "../../core/audit/verdict.ts";
import { diffTrees, type SkillChange, type TreeSnapshot } from "../../core/generation/diff.ts";
import { PROVENANCE_FILE, type ProvenanceEntry } from "../../core/import/provenance.ts";
import { allowedBy, SHELF_CONFIG_FILE } from "../../core/import/sources.ts";
import { sha256Hex } from "../../core/skill/hash.ts";
import { buildInventory } from "../../core/skill/inventory.ts";
import type { SkillFile } from "../../core/skill/skill.ts";
import { validateSkillFolder } from "../../core/skill/validate.ts";
import { CliError, parseCommandArgs, printable, UsageError, type CliContext, type Command } from "../lib/cli.ts";
import { fetchSkills, resolveSource, type FetchedSkill, type ResolvedSource } from "../lib/import/fetch.ts";
import { readAllowList, readProvenanceFile, writeProvenanceFile } from "../lib/import/shelf-files.ts";
import { writeSkillFolder } from "../lib/import/write.ts";
import { isShelfDir, readSkillDir, requireDir } from "../lib/skill-dir.ts";

const USAGE =
  "skillshelf import <source> --to <shelf> [--skill <name> ...] [--ref <ref>] [--registry <url>] [--dry-run] | import --update [<name> ...] --to <shelf> [--ref <ref>] [--yes]";

async function treeHashOf(files: readonly SkillFile[]): Promise<string> {
  return (await buildInventory(files, sha256Hex)).tree_hash;
}

/** Prints a skill's audit findings; they always come before anything is written. */
function printFindings(ctx: CliContext, name: string, findings: readonly Finding[]): void {
  if (!findings.length) {
    ctx.stdout(`${name}: audit: no findings\n`);
    return;
  }
  ctx.stdout(`${name}: audit: ${findings.length} finding(s)\n`);
  for (const f of findings) {
    ctx.stdout(`  ${f.severity.padEnd(8)} ${findingId(f)}\n    ${f.message}\n`);
    if (f.excerpt) ctx.stdout(`    > ${printable(f.excerpt)}\n`);
  }
}

/** The allow-list entry that lets `identity` in, or a refusal naming the line to add. */
async function requireAllowed(shelf: string, identity: string): Promise<string> {
  const allow = await readAllowList(shelf);
  const file = path.join(shelf, SHELF_CONFIG_FILE);
  if (!allow)
    throw new CliError(
      `${file} names no sources: import brings skills only from sources a shelf allows. Add\n  sources:\n    - ${identity}\nafter reading what that source publishes`,
    );
  const entry = allowedBy(
    allow.entries.map((e) => e.identity),
    identity,
  );
  if (entry === null)
    throw new CliError(
      `${identity} is not an allowed source (${file} sources: ${allow.entries.map((e) => e.written).join(", ") || "none"}); refused, nothing written`,
    );
  return entry;
}

/** Whether a skills/<name> path is absent, a folder, or something import must not touch. */
async function destState(dest: string): Promise<"absent" | "folder" | "other"> {
  const st = await lstat(dest).catch(() => null);
  if (!st) return "absent";
  return st.isDirectory() && !st.isSymbolicLink() ? "folder" : "other";
}

function entryFor(source: ResolvedSource, skill: FetchedSkill, treeHash: string): ProvenanceEntry {
  return {
    kind: source.kind,
    source: source.identity,
    url: source.url,
    path: skill.path,
    ref: source.ref,
    commit: skill.commit,
    digest: skill.digest,
    version: skill.version,
    imported_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    tree_hash: treeHash,
  };
}

/** Refuses a fetched skill that is not a valid skill under its name. */
function requireValid(skill: FetchedSkill): void {
  const validation = validateSkillFolder(skill.name, skill.files, skill.path ?? skill.name);
  const errors = validation.problems.filter((p) => p.severity === "error");
  if (errors.length)
    throw new CliError(`${printable(skill.name)} is not a valid skill, so it is not imported:\n${errors.map((p) => `  ${p.field}: ${p.message}`).join("\n")}`);
}

async function importNew(
  ctx: CliContext,
  spec: string,
  shelf: string,
  opts: { skills: string[] | null; ref: string | null; registry: string | null; dryRun: boolean },
): Promise<number> {
  const source = await resolveSource(spec, opts.ref, process.cwd(), opts.registry);
  const allowedByEntry = await requireAllowed(shelf, source.identity);
  ctx.stdout(`source: ${source.identity} (${source.kind}${source.ref ? ` at ${source.ref}` : ""}), allowed by ${allowedByEntry}\n`);
  let skills = await fetchSkills(source, opts.skills, ctx.env.SKILLSHELF_IMPORT_TOKEN);
  if (opts.skills) {
    const missing = opts.skills.filter((n) => !skills.some((s) => s.name === n));
    if (missing.length) throw new UsageError(`${spec} has no skill named ${missing.join(", ")} (it has: ${skills.map((s) => s.name).join(", ") || "none"})`);
    skills = skills.filter((s) => opts.skills!.includes(s.name));
  }
  if (!skills.length) throw new CliError(`${spec} holds no skills (no folder with a SKILL.md)`);
  for (const s of skills) requireValid(s);

  // Everything the audit finds is printed first: the user reads it before any file is written.
  const plans: { skill: FetchedSkill; treeHash: string; action: "add" | "unchanged" | "kept"; why?: string }[] = [];
  const provenance = await readProvenanceFile(shelf);
  for (const skill of skills) {
    printFindings(ctx, skill.name, auditSkill(skill.files).findings);
    const treeHash = await treeHashOf(skill.files);
    const dest = path.join(shelf, "skills", skill.name);
    const state = await destState(dest);
    if (state === "absent") plans.push({ skill, treeHash, action: "add" });
    else if (state === "other") plans.push({ skill, treeHash, action: "kept", why: `${dest} is not a plain folder; left alone` });
    else {
      const current = await treeHashOf(await readSkillDir(dest));
      const known = provenance.get(skill.name);
      if (current === treeHash)
        plans.push({
          skill,
          treeHash,
          action: known ? "unchanged" : "kept",
          why: known ? undefined : "the same files are already on the shelf, with no provenance; left alone",
        });
      else if (known)
        plans.push({ skill, treeHash, action: "kept", why: `already imported from ${known.source}; use import --update ${skill.name} to see what changed` });
      else
        plans.push({
          skill,
          treeHash,
          action: "kept",
          why: `the team's own folder ${dest} has that name; never overwritten (import it under another name by hand, or remove that folder first)`,
        });
    }
  }
  for (const p of plans) {
    if (p.action === "kept") ctx.stdout(`${p.skill.name}: kept: ${p.why}\n`);
    if (p.action === "unchanged") ctx.stdout(`${p.skill.name}: unchanged (already imported, same tree ${p.treeHash.slice(0, 12)})\n`);
  }
  const adds = plans.filter((p) => p.action === "add");
  if (opts.dryRun) {
    for (const p of adds) ctx.stdout(`${p.skill.name}: would import (tree ${p.treeHash.slice(0, 12)}${pinText(p.skill)})\n`);
    ctx.stdout("dry run: nothing written\n");
    return 0;
  }
  for (const p of adds) {
    await writeSkillFolder(path.join(shelf, "skills", p.skill.name), p.skill.files);
    provenance.set(p.skill.name, entryFor(source, p.skill, p.treeHash));
    ctx.stdout(`${p.skill.name}: imported (tree ${p.treeHash.slice(0, 12)}${pinText(p.skill)}); it requires review until attested\n`);
  }
  if (adds.length) {
    await writeProvenanceFile(shelf, provenance);
    ctx.stdout(
      `wrote ${path.join(shelf, PROVENANCE_FILE)}. Read each imported skill in full, then attest it: skillshelf attest ${shelf} ${adds.map((p) => p.skill.name).join(" ")} --by <you> --level adopted --method manual-review\n`,
    );
  }
  return 0;
}

function pinText(skill: FetchedSkill): string {
  if (skill.commit) return `, commit ${skill.commit.slice(0, 12)}`;
  if (skill.digest) return `, ${skill.digest.slice(0, 19)}`;
  return "";
}

/** One skill's change in a reviewer's words (the diff module's fields). */
function describeChange(c: SkillChange, fromVersion: string | null, toVersion: string | null): string[] {
  const lines: string[] = [];
  const list = (label: string, items: readonly string[]) => items.length && lines.push(`  ${label}: ${items.join(", ")}`);
  if (fromVersion !== toVersion) lines.push(`  version: ${printable(fromVersion ?? "none")} → ${printable(toVersion ?? "none")}`);
  list("files added", c.files_added);
  list("files removed", c.files_removed);
  list("files changed", c.files_changed);
  list("scripts added or changed", c.scripts_changed);
  list("new executable files", c.new_executables);
  list("new network hosts", c.new_hosts);
  for (const f of c.new_findings) lines.push(`  new finding: ${f.severity} ${findingId(f)}`);
  if (c.loses_attachable) lines.push(`  not attachable on the old record's word: ${c.loses_attachable}`);
  return lines;
}

async function snapshot(name: string, files: readonly SkillFile[]): Promise<TreeSnapshot> {
  const inventory = await buildInventory(files, sha256Hex);
  const digests = new Map(inventory.files.map((f) => [f.path, f.sha256]));
  return {
    name,
    tree_hash: inventory.tree_hash,
    files: files.map((f) => ({ path: f.path, sha256: digests.get(f.path) ?? "", bytes: f.bytes })),
    findings: auditSkill(files).findings,
  };
}

async function importUpdate(ctx: CliContext, names: string[], shelf: string, opts: { ref: string | null; yes: boolean; dryRun: boolean }): Promise<number> {
  const provenance = await readProvenanceFile(shelf);
  if (!provenance.size) throw new CliError(`${path.join(shelf, PROVENANCE_FILE)} records no imported skills; nothing to update`);
  const unknown = names.filter((n) => !provenance.has(n));
  if (unknown.length) throw new UsageError(`not imported (no ${PROVENANCE_FILE} entry): ${unknown.join(", ")}; imported: ${[...provenance.keys()].join(", ")}`);
  const wanted = names.length ? names : [...provenance.keys()].sort();
  // One fetch per source and ref, however many skills came from it.
  const fetched = new Map<string, Promise<FetchedSkill[]>>();
  let replaced = 0;
  let pending = 0;
  let changedProvenance = false;
  for (const name of wanted) {
    const entry = provenance.get(name)!;
    const ref = opts.ref ?? entry.ref;
    await requireAllowed(shelf, entry.source);
    const source: ResolvedSource = {
      kind: entry.kind,
      identity: entry.source,
      url: entry.url,
      ref,
      ...(entry.kind === "clawhub" ? { slug: entry.path ?? name } : {}),
    };
    const key = `${entry.kind}\0${entry.url}\0${ref ?? ""}`;
    if (!fetched.has(key)) fetched.set(key, fetchSkills(source, entry.kind === "well-known" ? [...wanted] : null, ctx.env.SKILLSHELF_IMPORT_TOKEN));
    const upstream = (await fetched.get(key)!).find((s) => (entry.path !== null ? s.path === entry.path : s.name === name));
    if (!upstream) {
      ctx.stdout(`${name}: the source no longer has it (${entry.source}${entry.path ? ` ${entry.path}` : ""}); left as it is\n`);
      continue;
    }
    upstream.name = name;
    requireValid(upstream);
    const dest = path.join(shelf, "skills", name);
    if ((await destState(dest)) !== "folder") {
      ctx.stdout(`${name}: ${dest} is not a folder any more; left alone\n`);
      continue;
    }
    const current = await snapshot(name, await readSkillDir(dest));
    const next = await snapshot(name, upstream.files);
    const edited = current.tree_hash !== entry.tree_hash;
    if (next.tree_hash === entry.tree_hash || next.tree_hash === current.tree_hash) {
      ctx.stdout(
        `${name}: up to date (tree ${next.tree_hash.slice(0, 12)}${pinText(upstream)})${edited ? "; the team has edited the folder since it was imported" : ""}\n`,
      );
      continue;
    }
    const change = diffTrees(current, next);
    ctx.stdout(`${name}: changed upstream (tree ${current.tree_hash.slice(0, 12)} → ${next.tree_hash.slice(0, 12)}${pinText(upstream)})\n`);
    for (const line of describeChange(change, entry.version, upstream.version)) ctx.stdout(`${line}\n`);
    printFindings(ctx, name, next.findings ?? []);
    if (edited) {
      ctx.stdout(
        `${name}: kept: the team edited ${dest} since it was imported (tree ${entry.tree_hash.slice(0, 12)}, now ${current.tree_hash.slice(0, 12)}); never overwritten. Merge the change by hand, or remove the folder and import again\n`,
      );
      continue;
    }
    if (!opts.yes || opts.dryRun) {
      pending++;
      continue;
    }
    await writeSkillFolder(dest, upstream.files);
    provenance.set(name, entryFor(source, upstream, next.tree_hash));
    changedProvenance = true;
    replaced++;
    ctx.stdout(`${name}: replaced; its validation record bound tree ${current.tree_hash.slice(0, 12)}, so it requires review until attested again\n`);
  }
  if (changedProvenance) await writeProvenanceFile(shelf, provenance);
  if (pending)
    ctx.stdout(
      `${pending} skill(s) changed upstream; nothing written${opts.dryRun ? " (dry run)" : ": read the changes above, then rerun with --yes to replace them"}\n`,
    );
  else if (replaced) ctx.stdout(`replaced ${replaced} skill(s); updated ${path.join(shelf, PROVENANCE_FILE)}\n`);
  return 0;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      to: { type: "string" },
      skill: { type: "string", multiple: true },
      ref: { type: "string" },
      "dry-run": { type: "boolean" },
      update: { type: "boolean" },
      yes: { type: "boolean" },
      registry: { type: "string" },
    },
    USAGE,
  );
  if (!values.to) throw new UsageError(`--to <shelf> is required\nusage: ${USAGE}`);
  await requireDir(values.to, "shelf folder");
  if (!(await isShelfDir(values.to))) throw new UsageError(`${values.to} is not a shelf (it has no skills/ folder)`);
  const ref = values.ref ?? null;
  if (values.registry !== undefined && values.update) throw new UsageError("--update reads each skill's registry from provenance.yaml; drop --registry");
  if (values.update) {
    if (values.skill) throw new UsageError(`--update takes skill names as arguments, not --skill\nusage: ${USAGE}`);
    return importUpdate(ctx, positionals, values.to, { ref, yes: values.yes ?? false, dryRun: values["dry-run"] ?? false });
  }
  if (values.yes) throw new UsageError("--yes confirms an --update; a first import writes without asking (use --dry-run to look first)");
  if (positionals.length !== 1) throw new UsageError(`expected one source\nusage: ${USAGE}`);
  return importNew(ctx, positionals[0]!, values.to, {
    skills: values.skill ?? null,
    ref,
    registry: values.registry ?? null,
    dryRun: values["dry-run"] ?? false,
  });
};
