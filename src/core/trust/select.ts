// The one trust-gated activation pipeline (AbstractSkill select_skills_for_context): resolve each
// named skill from a source, derive its provenance, take the worst verdict over every candidate
// source, and gate: blocked never activates, requires_review only when the operator enabled it.
// The source is abstract so the Worker can resolve from hashes computed at build time.
import type { Finding } from "../audit/scan.ts";
import { applyAudit } from "../audit/verdict.ts";
import { evaluateTrust, sourceCandidates, strongest, validationsFor, worseVerdict, type TrustVerdict } from "./evaluate.ts";
import { pyRepr, pyTypeName } from "../python-compat/pyfmt.ts";
import { compareCodePoints, pyStrip } from "../python-compat/py-text.ts";
import { isSha256Hex } from "../skill/hash.ts";
import { checkSkillName, type TrustRecords } from "./records.ts";

/** The parts of a skill's metadata selection reads. */
export interface SelectableSkill {
  name: string;
  description: string;
  allowed_tools?: readonly string[];
  /** The frontmatter `metadata` map as parsed (requires_mcp / requires_tools live here). */
  metadata: Readonly<Record<string, unknown>>;
}

/** A skill a source resolved: its metadata and the facts its bytes establish. */
export interface ResolvedSkill {
  skill: SelectableSkill;
  tree_hash: string;
  has_scripts: boolean;
  /** Where the winning copy lives (a folder path, or a shelf key); named in operator notes. */
  location: string;
  /** The audit's findings for these bytes, when the source scanned them: critical blocks, high holds for review. */
  audit_findings?: readonly Finding[];
}

/**
 * A source's answer for one name. A failure either gives a `reason` (reported as "not
 * loadable: <reason>") or, with `verbatim`, the complete note (e.g. a parse/hash mismatch).
 */
export type SkillResolution = { ok: true; resolved: ResolvedSkill } | { ok: false; message: string; verbatim?: boolean };

/** Where selection finds skills. `note` receives loud-but-harmless notes (skipped broken copies). */
export interface SkillSource {
  resolve(name: string, note: (message: string) => void): SkillResolution | Promise<SkillResolution>;
}

/** Declared runtime dependencies (metadata.requires_mcp / requires_tools). */
export interface SkillRequires {
  mcp_servers: string[];
  tools: string[];
}

export interface SelectOptions {
  /** Explicit provenance per skill name; blank or non-string values are noted and ignored. */
  sources?: Readonly<Record<string, unknown>>;
  /** Operator enables: bare names or `name@<64 hex tree hash>` pins (a string is one entry). */
  enabled?: unknown;
}

/** A held or blocked skill with the verdict that put it there. */
export interface GatedSkill {
  name: string;
  verdict: TrustVerdict;
}

/** The trust-gated outcome for one context. Only `active` may be composed into a prompt. */
export interface SkillSelection {
  active: SelectableSkill[];
  active_names: string[];
  held: GatedSkill[];
  blocked: GatedSkill[];
  missing: string[];
  /** Overrides from records bound to the current tree hash only. */
  activation_descriptions: Record<string, string>;
  warnings: string[];
  resolved_locations: Record<string, string>;
  /** The value an operator pins (`name@hash`), for every name that resolved. */
  resolved_tree_hashes: Record<string, string>;
  requires: Record<string, SkillRequires>;
  /** The `<available_skills>` block for the active skills. */
  activation_block: string;
}

/** Splits operator enables into bare-name grants and hash pins; malformed entries grant nothing. */
export function parseEnabled(entries: unknown, note: (m: string) => void): { bare: Set<string>; pins: Map<string, Set<string>> } {
  const bare = new Set<string>();
  const pins = new Map<string, Set<string>>();
  // A scalar is one entry, never iterated character by character.
  const list: unknown[] =
    entries === null || entries === undefined
      ? []
      : typeof entries === "string"
        ? [entries]
        : Array.isArray(entries)
          ? entries
          : [...(entries as Iterable<unknown>)];
  for (const entry of list) {
    if (typeof entry !== "string" || !pyStrip(entry)) {
      note(`#FALLBACK: malformed enabled entry ${pyRepr(entry)} ignored (no grant)`);
      continue;
    }
    const text = pyStrip(entry);
    const at = text.indexOf("@");
    if (at < 0) {
      bare.add(text);
      continue;
    }
    const checked = checkSkillName(text.slice(0, at));
    if (!checked.ok) {
      note(`#FALLBACK: malformed enabled pin ${pyRepr(entry)} ignored (no grant): ${checked.message}`);
      continue;
    }
    const hash = pyStrip(text.slice(at + 1)).toLowerCase();
    if (!isSha256Hex(hash)) {
      note(`#FALLBACK: malformed enabled pin ${pyRepr(entry)} ignored (no grant): the pin must be the full 64-hex sha256 tree hash`);
      continue;
    }
    if (!pins.has(checked.name)) pins.set(checked.name, new Set());
    pins.get(checked.name)!.add(hash);
  }
  for (const name of [...bare].filter((n) => pins.has(n)).sort(compareCodePoints)) {
    note(
      `#FALLBACK: enabled entries for skill ${pyRepr(name)} mix a bare name with hash pin(s); the pins govern and the bare entry is ignored (a bare grant would make the pin decorative)`,
    );
    bare.delete(name);
  }
  return { bare, pins };
}

/** Reads requires_mcp / requires_tools loudly: a string is one item, malformed items are noted. */
function parseRequires(skill: SelectableSkill, note: (m: string) => void): SkillRequires {
  const read = (key: string): string[] => {
    let raw = skill.metadata[key];
    if (raw === null || raw === undefined) return [];
    if (typeof raw === "string") raw = [raw];
    if (!Array.isArray(raw)) {
      note(
        `#FALLBACK: skill ${pyRepr(skill.name)} declares ${key} with a non-list value (${pyTypeName(raw)}); treating as undeclared — hosts cannot check what they cannot read`,
      );
      return [];
    }
    const out: string[] = [];
    for (const item of raw) {
      if (typeof item === "string" && pyStrip(item)) out.push(pyStrip(item));
      else note(`#FALLBACK: skill ${pyRepr(skill.name)} ${key} entry ${pyRepr(item)} is not a non-empty string; skipped`);
    }
    return [...new Set(out)];
  };
  return { mcp_servers: read("requires_mcp"), tools: read("requires_tools") };
}

/** Input for judging one resolved skill. */
export interface JudgeInput {
  name: string;
  tree_hash: string;
  has_scripts: boolean;
  /** A caller-supplied source (may be anything; non-strings and blanks are noted and ignored). */
  explicit_source?: unknown;
}

/**
 * The verdict selection uses for one skill: evaluated against the explicit source and every
 * registry-derived candidate, keeping the worst, with every verdict's warnings noted.
 */
export function judgeSkill(records: TrustRecords, input: JudgeInput, note: (m: string) => void): TrustVerdict {
  const { name, tree_hash: treeHash } = input;
  let explicit: string | null = null;
  const raw = input.explicit_source;
  if (raw !== null && raw !== undefined) {
    if (typeof raw !== "string") {
      note(`#FALLBACK: non-string source supplied for skill ${pyRepr(name)} (${pyTypeName(raw)}); treating as absent (deriving from the registry instead)`);
    } else if (!pyStrip(raw)) {
      note(`#FALLBACK: blank source supplied for skill ${pyRepr(name)}; treating as absent (deriving from the registry instead)`);
    } else explicit = pyStrip(raw);
  }
  const derived = sourceCandidates(records, name, treeHash);
  const check: string[] = explicit !== null ? [explicit] : [];
  for (const c of derived) if (!check.includes(c.source)) check.push(c.source);
  if (derived.length) {
    const derivedSources = pyRepr([...new Set(derived.map((c) => c.source))].sort(compareCodePoints));
    if (explicit === null && derived[0]!.binding === "name") {
      note(
        `#FALLBACK: source for skill ${pyRepr(name)} derived from name-bound validation record(s) (${derivedSources}); these bytes match no validated tree, so the provenance is a prior tree's claim`,
      );
    }
    if (derived[0]!.ambiguous) {
      note(`#FALLBACK: registry records disagree on the source of skill ${pyRepr(name)} (${derivedSources}); checking advisories against every candidate`);
    }
    if (explicit !== null && !derived.some((c) => c.source === explicit)) {
      note(
        `#FALLBACK: caller-supplied source ${pyRepr(explicit)} for skill ${pyRepr(name)} contradicts registry provenance (${derivedSources}, ${derived[0]!.binding}-bound); checking advisories against all of them`,
      );
    }
  }
  if (!check.length && records.advisories.some((a) => a.status === "active" && a.tree_hash === null && a.name === name)) {
    note(
      `#FALLBACK: no source for skill ${pyRepr(name)} (none supplied, none in the registry); name/source advisory matching is disabled for it (hash-anchored advisories still apply)`,
    );
  }
  const verdicts = (check.length ? check : [null]).map((source) =>
    evaluateTrust(records, { tree_hash: treeHash, name, source, has_scripts: input.has_scripts }),
  );
  let verdict = verdicts[0]!;
  for (const other of verdicts.slice(1)) verdict = worseVerdict(verdict, other);
  for (const w of new Set(verdicts.flatMap((v) => v.warnings))) note(w);
  return verdict;
}

/**
 * Resolves a context's named skills into a trust-gated selection.
 * @example await selectSkills(records, source, ["adr", "review"], { enabled: ["review@<hash>"] })
 */
export async function selectSkills(
  records: TrustRecords,
  source: SkillSource,
  names: readonly unknown[],
  options: SelectOptions = {},
): Promise<SkillSelection> {
  const warnings: string[] = [];
  const note = (m: string) => {
    warnings.push(m);
  };
  const out: SkillSelection = {
    active: [],
    active_names: [],
    held: [],
    blocked: [],
    missing: [],
    activation_descriptions: {},
    warnings,
    resolved_locations: {},
    resolved_tree_hashes: {},
    requires: {},
    activation_block: "",
  };
  const { bare, pins } = parseEnabled(options.enabled, note);
  const unique = [...new Set(names)];
  if (unique.length !== names.length) {
    const dupes = unique
      .filter((n) => names.filter((m) => m === n).length > 1)
      .map(String)
      .sort(compareCodePoints);
    note(`#FALLBACK: duplicate skill name(s) in context config ignored: ${pyRepr(dupes)}`);
  }
  for (const rawName of unique) {
    const nameLabel = pyRepr(rawName);
    if (typeof rawName !== "string") {
      out.missing.push(String(rawName));
      note(`#FALLBACK: skill ${nameLabel} named for this context is not loadable: skill name must be a string`);
      continue;
    }
    const name = rawName;
    const checked = checkSkillName(name);
    const resolution: SkillResolution = checked.ok ? await source.resolve(name, note) : { ok: false, message: checked.message };
    if (!resolution.ok) {
      out.missing.push(name);
      note(resolution.verbatim ? resolution.message : `#FALLBACK: skill ${nameLabel} named for this context is not loadable: ${resolution.message}`);
      continue;
    }
    const { skill, tree_hash: treeHash, has_scripts: hasScripts, location } = resolution.resolved;
    out.resolved_locations[name] = location;
    out.resolved_tree_hashes[name] = treeHash;
    const requires = parseRequires(skill, note);
    if (requires.mcp_servers.length || requires.tools.length) out.requires[name] = requires;

    const judged = judgeSkill(
      records,
      {
        name,
        tree_hash: treeHash,
        has_scripts: hasScripts,
        explicit_source: options.sources && Object.hasOwn(options.sources, name) ? options.sources[name] : undefined,
      },
      note,
    );
    // Without gating findings applyAudit returns the verdict itself: selection is unchanged.
    const findings = resolution.resolved.audit_findings;
    const verdict = findings ? applyAudit(judged, findings) : judged;
    if (verdict.blocked) {
      out.blocked.push({ name, verdict });
      continue;
    }
    let granted = false;
    let pinned = false;
    if (verdict.requires_review) {
      const pinSet = pins.get(name);
      if (pinSet) {
        if (pinSet.has(treeHash)) granted = pinned = true;
        else {
          const shown = pyRepr([...pinSet].map((p) => `${p.slice(0, 16)}…`).sort(compareCodePoints));
          note(
            `#FALLBACK: operator enable for skill ${nameLabel} is pinned to tree(s) ${shown}, but the winning copy at ${location} has tree ${treeHash.slice(0, 16)}…; the grant does not apply (held — re-pin deliberately after reviewing the new bytes)`,
          );
        }
      } else if (bare.has(name)) granted = true;
    }
    if (verdict.attachable || granted) {
      if (verdict.requires_review && pinned)
        note(`skill ${nameLabel} activated by hash-pinned operator enable from ${location} (tree ${treeHash.slice(0, 16)}…)`);
      else if (verdict.requires_review)
        note(`skill ${nameLabel} activated by operator enable with requires_review bytes from ${location} (tree ${treeHash.slice(0, 16)}…)`);
      out.active.push(skill);
      out.active_names.push(skill.name);
      const described = strongest(validationsFor(records, treeHash).filter((r) => r.activation_description));
      if (described) out.activation_descriptions[name] = described.activation_description ?? "";
      continue;
    }
    out.held.push({ name, verdict });
  }
  out.activation_block = formatAvailableSkills(out.active, out.activation_descriptions);
  return out;
}

// Python html.escape(s, quote=True).
function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/**
 * AbstractSkill's `<available_skills>` block: skills sorted by name, descriptions overridable
 * per name (pass the selection's activation_descriptions), HTML-escaped, no trailing newline.
 */
export function formatAvailableSkills(skills: readonly { name: string; description: string }[], descriptions: Readonly<Record<string, string>> = {}): string {
  if (!skills.length) return "<available_skills></available_skills>";
  const lines = ["<available_skills>"];
  const sorted = skills.map((s, i) => ({ s, i })).sort((a, b) => compareCodePoints(a.s.name, b.s.name) || a.i - b.i);
  for (const { s } of sorted) {
    const description = Object.hasOwn(descriptions, s.name) ? descriptions[s.name]! : s.description;
    lines.push("  <skill>", `    <name>${escapeHtml(s.name)}</name>`, `    <description>${escapeHtml(description)}</description>`, "  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
