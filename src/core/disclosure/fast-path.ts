// The single-skill fast path of agentskills-core: when exactly one skill is in play and its body
// is small, the body goes straight into the prompt instead of a catalog plus tool calls.
import { estimateTokens } from "./outline.ts";
import { compareCodePoints, pyRstrip } from "../python-compat/py-text.ts";

/** Largest body (estimated tokens) inlined on every turn; at 300 the fast path wins at any length. */
export const DEFAULT_FAST_PATH_MAX_TOKENS = 300;

/** Tools an agent no longer needs once the body is inlined. Resource tools are always kept. */
export const FAST_PATH_DROPPED_TOOLS: ReadonlySet<string> = new Set(["get_skill_body", "get_skill_metadata", "get_skill_outline", "get_skill_section"]);

/** The resource half of the usage instructions, appended to the fast-path prompt (exact text). */
export const FAST_PATH_RESOURCE_INSTRUCTIONS =
  "### Bundled resources\n\n" +
  "The instructions above may name reference documents, scripts or assets. Retrieve one only when the instructions call for it:\n\n" +
  "- `get_skill_reference(skill_id, name)` - reference documents (policies, templates, runbooks)\n" +
  "- `get_skill_script(skill_id, name)` - executable scripts\n" +
  "- `get_skill_asset(skill_id, name)` - diagrams, data files, or other assets\n\n" +
  "Do not guess resource names. Fetch only what the instructions name, or what `list_skill_resources(skill_id)` reports. " +
  "That tool reports that it is unsupported on backends that cannot be enumerated - when it does, rely on the instructions above alone.";

/** A resolved fast path: the one skill, its body, its cost and the prompt that replaces the catalog. */
export interface FastPath {
  skill_id: string;
  body: string;
  tokens: number;
  prompt: string;
}

/** The fast path, or why there is none (for logs: choosing a prompt shape silently is not ok). */
export type FastPathDecision = { fastPath: FastPath; reason?: undefined } | { fastPath?: undefined; reason: string };

/** Options of resolveFastPath; defaults match agentskills-core. */
export interface FastPathOptions {
  /** Narrow to these skills first; unknown names are ignored (unlike the catalog's include). */
  include?: readonly string[];
  /** Default DEFAULT_FAST_PATH_MAX_TOKENS; a body of exactly this many tokens still qualifies. */
  maxTokens?: number;
}

/**
 * The prompt injected instead of a catalog (neither id nor body is escaped).
 * @example fastPathPrompt("solo", "# Solo\nDo it.\n").startsWith("You have one skill, `solo`")
 */
function fastPathPrompt(skillId: string, body: string): string {
  return (
    `You have one skill, \`${skillId}\`, and its full instructions are below. ` +
    `Follow them when the task aligns with their domain.\n\n` +
    `<skill id="${skillId}">\n${pyRstrip(body)}\n</skill>\n\n` +
    FAST_PATH_RESOURCE_INSTRUCTIONS
  );
}

/** Whether a tool should still be offered while the fast path is active. */
export function keepsTool(toolName: string): boolean {
  return !FAST_PATH_DROPPED_TOOLS.has(toolName);
}

/**
 * Which single skill the fast path would inline, needing no bodies: the skills (sorted by name,
 * narrowed by `include`) must be exactly one. Otherwise the reason there is none.
 */
export function fastPathCandidate(
  skillIds: readonly string[],
  include?: readonly string[],
): { skillId: string; reason?: undefined } | { skillId?: undefined; reason: string } {
  let ids = [...new Set(skillIds)].sort(compareCodePoints);
  if (include !== undefined) {
    const wanted = new Set(include);
    ids = ids.filter((id) => wanted.has(id));
  }
  if (ids.length !== 1) return { reason: `no fast path: ${ids.length} skills are in play, the fast path needs exactly 1` };
  return { skillId: ids[0]! };
}

/** The fast path for one skill's body, or why its body is too large to inline. */
function fastPathFor(skillId: string, body: string, maxTokens = DEFAULT_FAST_PATH_MAX_TOKENS): FastPathDecision {
  const tokens = estimateTokens(body);
  if (tokens > maxTokens) {
    return {
      reason: `no fast path for '${skillId}': its body is ~${tokens} tokens, over the ${maxTokens}-token ceiling; inlining it every turn would cost more than one tool call`,
    };
  }
  return { fastPath: { skill_id: skillId, body, tokens, prompt: fastPathPrompt(skillId, body) } };
}

/**
 * agentskills-core's `resolve_fast_path`: exactly one skill after `include`, and its body at most
 * `maxTokens` estimated tokens. Only that one body is loaded.
 * @example await resolveFastPath(["solo"], async () => "# Solo\nDo it.") // {fastPath: {skill_id: "solo", …}}
 */
export async function resolveFastPath(
  skillIds: readonly string[],
  loadBody: (skillId: string) => string | Promise<string>,
  options: FastPathOptions = {},
): Promise<FastPathDecision> {
  const maxTokens = options.maxTokens ?? DEFAULT_FAST_PATH_MAX_TOKENS;
  if (!Number.isSafeInteger(maxTokens)) throw new RangeError(`fast path maxTokens must be an integer, got ${maxTokens}`);
  const candidate = fastPathCandidate(skillIds, options.include);
  if (candidate.skillId === undefined) return { reason: candidate.reason };
  return fastPathFor(candidate.skillId, await loadBody(candidate.skillId), maxTokens);
}
