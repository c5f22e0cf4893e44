// Tool grants composed with skills' `allowed-tools` (AbstractSkill effective_tools): skills can
// narrow below the operator's grant, never widen beyond it, and a skill that declares nothing
// implies nothing. Unresolved tokens are dropped loudly; policy never relaxes.
import { compareCodePoints } from "../python-compat/py-text.ts";
import { pyRepr } from "../python-compat/pyfmt.ts";

/** Host-owned map from ecosystem tokens (`Bash(git:*)`) to framework tool names. */
export type ToolNameMap = Readonly<Record<string, string | readonly string[]>>;

/** The skill fields tool composition reads. */
export interface ToolDeclaringSkill {
  name: string;
  /** Absent or empty means the skill declared nothing. */
  allowed_tools?: readonly string[];
}

/** The effective toolset and how it was derived. `allowed` is sorted for stable output. */
export interface EffectiveTools {
  allowed: string[];
  declared_bound_active: boolean;
  narrowed_by_skills: boolean;
  declared_skills: string[];
  undeclared_skills: string[];
  /** [skill, framework name] pairs that mapped cleanly but are not granted. */
  out_of_grant_names: [string, string][];
  /** [skill, token] pairs with no mapping and no granted tool of that name. */
  unresolved_tokens: [string, string][];
  warnings: string[];
}

/**
 * grant ∩ union(declared allowed-tools) over the active skills; the whole grant when no skill
 * declares tools. An empty grant denies everything.
 * @example effectiveTools(["read_file"], [{ name: "adr", allowed_tools: ["Read"] }], { Read: "read_file" }).allowed // ["read_file"]
 */
export function effectiveTools(grant: Iterable<string>, skills: Iterable<ToolDeclaringSkill>, nameMap?: ToolNameMap | null): EffectiveTools {
  const granted = new Set(grant);
  const declared: string[] = [];
  const undeclared: string[] = [];
  const union = new Set<string>();
  const outOfGrant: [string, string][] = [];
  const unresolved: [string, string][] = [];
  const warnings: string[] = [];
  for (const skill of skills) {
    if (!skill.allowed_tools?.length) {
      undeclared.push(skill.name);
      continue;
    }
    declared.push(skill.name);
    for (const token of skill.allowed_tools) {
      if (nameMap && Object.hasOwn(nameMap, token)) {
        const mapped = nameMap[token]!;
        for (const name of typeof mapped === "string" ? [mapped] : mapped) {
          if (granted.has(name)) union.add(name);
          else {
            outOfGrant.push([skill.name, name]);
            warnings.push(
              `#FALLBACK: skill ${pyRepr(skill.name)} token ${pyRepr(token)} maps to ${pyRepr(name)}, which is not granted; dropped (policy never relaxes)`,
            );
          }
        }
      } else if (granted.has(token)) union.add(token);
      else {
        unresolved.push([skill.name, token]);
        warnings.push(
          `#FALLBACK: skill ${pyRepr(skill.name)} allowed-tools token ${pyRepr(token)} has no mapping and matches no granted tool; dropped (policy never relaxes)`,
        );
      }
    }
  }
  const allowed = declared.length ? union : granted;
  const narrowed = allowed.size !== granted.size || [...allowed].some((t) => !granted.has(t));
  return {
    allowed: [...allowed].sort(compareCodePoints),
    declared_bound_active: declared.length > 0,
    narrowed_by_skills: narrowed,
    declared_skills: declared,
    undeclared_skills: undeclared,
    out_of_grant_names: outOfGrant,
    unresolved_tokens: unresolved,
    warnings,
  };
}

/** The least-privilege bound while one skill's procedure runs (the enforcement view). */
export function effectiveToolsForSkill(grant: Iterable<string>, skill: ToolDeclaringSkill, nameMap?: ToolNameMap | null): EffectiveTools {
  return effectiveTools(grant, [skill], nameMap);
}
