// The URL scheme of the read surface, in one place. Every URL a response points at is built
// here, path-absolute, behind the caller's access prefix ("" or a capability `/c/<token>`).
// Immutable URLs pin a generation: `/g/<generation>/…` serves exactly what that generation
// published, for as long as it is kept, so an index entry's digest can never go stale.

/** The well-known v0.2.0 base path. */
const AGENT_SKILLS_BASE = "/.well-known/agent-skills";
/** The discovery RFC v0.2.0 schema identifier (clients match it exactly). */
export const DISCOVERY_SCHEMA_V2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/** The immutable prefix for one generation behind an access prefix. */
function generationPrefix(accessPrefix: string, generation: string): string {
  return `${accessPrefix}/g/${generation}`;
}

/** Immutable URL of a skill's SKILL.md in one generation (the v0.2 `skill-md` artifact). */
export function immutableSkillMdUrl(accessPrefix: string, generation: string, name: string): string {
  return `${generationPrefix(accessPrefix, generation)}${AGENT_SKILLS_BASE}/${name}/SKILL.md`;
}

/** Immutable URL of a skill's archive in one generation (the v0.2 `archive` artifact). */
export function immutableArchiveUrl(accessPrefix: string, generation: string, name: string, format: "tar.gz" | "zip"): string {
  return `${generationPrefix(accessPrefix, generation)}${AGENT_SKILLS_BASE}/${name}.${format}`;
}
