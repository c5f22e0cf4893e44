// What changed between two trees of a skill, or two generations of a shelf: files added, removed
// and changed, scripts changed, executable files added, network hosts the text names for the first
// time, and audit findings that are new. Pure: the CLI's `audit --since` and a change feed give it
// the trees (paths, digests, and bytes where a host or finding is wanted).
import { compareFindings, type Finding } from "../audit/scan.ts";
import { severityRank } from "../audit/rules.ts";
import { hasScripts } from "../skill/inventory.ts";

/** One skill tree: its files by path, with their digests and (optionally) their bytes. */
export interface TreeSnapshot {
  name: string;
  tree_hash: string;
  files: readonly { path: string; sha256: string; bytes?: Uint8Array }[];
  /** The audit's findings for this tree, when known. */
  findings?: readonly Finding[];
}

export type ChangeStatus = "added" | "removed" | "changed" | "unchanged";

export interface SkillChange {
  name: string;
  status: ChangeStatus;
  from_tree: string | null;
  to_tree: string | null;
  files_added: string[];
  files_removed: string[];
  files_changed: string[];
  /** Added or changed files that are code (AbstractSkill's has_scripts rule, per file). */
  scripts_changed: string[];
  /** Added files that are code or executables (ELF, Mach-O, PE). */
  new_executables: string[];
  /** Hosts named in URLs of the new tree's text that the old tree never named. */
  new_hosts: string[];
  /** Findings of the new tree with no counterpart (same rule, file and excerpt) in the old one. */
  new_findings: Finding[];
  /**
   * Why the update cannot be attached on the old tree's word: a new high or critical finding, or a
   * new executable file; null when neither.
   */
  loses_attachable: string | null;
}

const EXECUTABLE_MAGIC: readonly (readonly number[])[] = [
  [0x7f, 0x45, 0x4c, 0x46],
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0x4d, 0x5a],
];

function isExecutable(path: string, bytes: Uint8Array | undefined): boolean {
  if (hasScripts([path])) return true;
  if (!bytes) return false;
  return EXECUTABLE_MAGIC.some((m) => m.every((b, i) => bytes[i] === b));
}

const URL_HOST = /\b(?:https?|wss?|ftp|stratum\+tcp):\/\/([A-Za-z0-9.-]+)(?::\d+)?/g;
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/**
 * The hosts named in URLs of a tree's text files, lower-cased and sorted.
 * @example networkHosts([{ path: "a.sh", sha256: "…", bytes: utf8("curl https://X.example/a") }]) // ["x.example"]
 */
export function networkHosts(files: TreeSnapshot["files"]): string[] {
  const hosts = new Set<string>();
  for (const f of files) {
    if (!f.bytes || f.bytes.includes(0)) continue;
    for (const m of decoder.decode(f.bytes).matchAll(URL_HOST)) hosts.add(m[1]!.toLowerCase().replace(/\.$/, ""));
  }
  return [...hosts].sort();
}

const findingKey = (f: Finding) => `${f.rule}\0${f.file}\0${f.excerpt}`;

/**
 * The change from `before` to `after` (either may be null: a skill added or removed).
 * @example diffTrees(published, current).files_added
 */
export function diffTrees(before: TreeSnapshot | null, after: TreeSnapshot | null): SkillChange {
  const name = (after ?? before)?.name ?? "";
  const old = new Map((before?.files ?? []).map((f) => [f.path, f]));
  const now = new Map((after?.files ?? []).map((f) => [f.path, f]));
  const added = [...now.keys()].filter((p) => !old.has(p)).sort();
  const removed = [...old.keys()].filter((p) => !now.has(p)).sort();
  const changed = [...now.keys()].filter((p) => old.has(p) && old.get(p)!.sha256 !== now.get(p)!.sha256).sort();
  const scripts = [...added, ...changed].filter((p) => isExecutable(p, now.get(p)!.bytes)).sort();
  const executables = added.filter((p) => isExecutable(p, now.get(p)!.bytes));
  const oldHosts = new Set(networkHosts(before?.files ?? []));
  const hosts = networkHosts(after?.files ?? []).filter((h) => !oldHosts.has(h));
  const oldFindings = new Set((before?.findings ?? []).map(findingKey));
  const findings = (after?.findings ?? []).filter((f) => !oldFindings.has(findingKey(f))).sort(compareFindings);

  const status: ChangeStatus = !before ? "added" : !after ? "removed" : before.tree_hash === after.tree_hash ? "unchanged" : "changed";
  let loses: string | null = null;
  if (status === "changed") {
    const gating = findings.filter((f) => severityRank(f.severity) >= severityRank("high"));
    const why: string[] = [];
    if (gating.length)
      why.push(
        `adds ${gating.length} ${gating[0]!.severity} finding(s): ${gating
          .slice(0, 3)
          .map((f) => `${f.rule} at ${f.file}:${f.line}`)
          .join(", ")}`,
      );
    if (executables.length) why.push(`adds executable file(s) ${executables.slice(0, 3).join(", ")}${executables.length > 3 ? ", …" : ""}`);
    if (why.length) loses = `changed since tree ${before!.tree_hash.slice(0, 12)}: ${why.join("; ")}`;
  }
  return {
    name,
    status,
    from_tree: before?.tree_hash ?? null,
    to_tree: after?.tree_hash ?? null,
    files_added: added,
    files_removed: removed,
    files_changed: changed,
    scripts_changed: scripts,
    new_executables: executables,
    new_hosts: hosts,
    new_findings: findings,
    loses_attachable: loses,
  };
}

/**
 * Every skill's change between two generations (or shelves), in name order.
 * @example diffGenerations(publishedSkills, builtSkills).filter((c) => c.status !== "unchanged")
 */
export function diffGenerations(before: readonly TreeSnapshot[], after: readonly TreeSnapshot[]): SkillChange[] {
  const old = new Map(before.map((s) => [s.name, s]));
  const now = new Map(after.map((s) => [s.name, s]));
  const names = [...new Set([...old.keys(), ...now.keys()])].sort();
  return names.map((n) => diffTrees(old.get(n) ?? null, now.get(n) ?? null));
}
