// Which skills one /mcp endpoint serves, and whether the single-skill fast path applies. The
// endpoint URL may narrow the shelf with `?include=a,b` (an MCP host is configured with one URL,
// so the URL is where a narrower view is chosen); everything the endpoint answers (skills/list,
// skills/get, resources, tools) stays inside that scope. With exactly one skill in scope and a
// small body, the fast path of agentskills-core applies (seed 000): the body goes into the
// server's instructions and the four body tools are not offered.
import { API_LIMITS, splitList } from "../../../core/api/contract.ts";
import { resolveFastPath, type FastPathDecision } from "../../../core/disclosure/fast-path.ts";
import { NotOnShelfError, SkillBlockedError } from "../../shelf/errors.ts";
import type { ShelfService } from "../../shelf/service.ts";

/** What an endpoint URL asked for: every served skill, or only the named ones. */
export interface McpScope {
  /** Skill names from `?include=` (deduplicated); undefined when the URL names none. */
  include: ReadonlySet<string> | undefined;
}

/** A scope the endpoint URL cannot ask for (too many names); answered 400. */
export class ScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScopeError";
  }
}

/**
 * The scope an endpoint URL asks for: `?include=` (comma-separated, repeatable) narrows it.
 * Names no skill has are kept: they match nothing, as resolve_fast_path ignores them.
 * @example scopeOf(new URL("https://shelf.test/mcp?include=pdf-tools")).include // => Set {"pdf-tools"}
 * @throws ScopeError for more than API_LIMITS.maxNames names
 */
export function scopeOf(url: URL): McpScope {
  const values = url.searchParams.getAll("include");
  if (values.length === 0) return { include: undefined };
  const names = new Set(values.flatMap((v) => splitList(v)));
  if (names.size > API_LIMITS.maxNames) throw new ScopeError(`include names ${names.size} skills; at most ${API_LIMITS.maxNames}`);
  return { include: names };
}

/**
 * True when the scope covers the skill.
 * @example inScope({include: new Set(["a"])}, "b") // => false
 */
export function inScope(scope: McpScope, name: string): boolean {
  return scope.include === undefined || scope.include.has(name);
}

/**
 * The names of the served skills in scope, sorted; undefined when there are certainly more than
 * one and finding out which would mean listing the shelf (more skills published than the
 * advisories in force could hide), since only "exactly one" matters here.
 */
async function scopedNames(shelf: ShelfService, scope: McpScope): Promise<string[] | undefined> {
  if (scope.include !== undefined) {
    const names: string[] = [];
    for (const name of [...scope.include].sort()) {
      try {
        await shelf.skill(name);
        names.push(name);
      } catch (error) {
        if (!(error instanceof NotOnShelfError) && !(error instanceof SkillBlockedError)) throw error;
      }
    }
    return names;
  }
  const generation = await shelf.generation();
  // An advisory blocks at most two skills: one by tree hash (a SKILL.md names its own skill, so no
  // two skills share one) and one by name. With more skills than that can hide, more than one is
  // served, and no request, cold or warm, opens every shard to find out (each /mcp request asks).
  if (generation.manifest.skill_count > 2 * generation.advisories.length + 1) return undefined;
  return (await shelf.skills()).map((s) => s.name);
}

/**
 * The fast path for this endpoint, or why there is none: resolve_fast_path over the skills in
 * scope, reading only the one body it would inline (ShelfService.body, cached by digest).
 */
export async function fastPathOf(shelf: ShelfService, scope: McpScope): Promise<FastPathDecision> {
  const names = await scopedNames(shelf, scope);
  if (names === undefined) return { reason: "no fast path: more than one skill is in play" };
  return resolveFastPath(names, (name) => shelf.body(name));
}
