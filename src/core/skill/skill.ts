// The shared vocabulary of src/core: a skill folder as bytes, and the normalized metadata of a
// valid SKILL.md. Everything here is plain data so the Worker and the CLI can exchange it.

/**
 * The spec's name rule, the one every layer applies (validation, trust records, request paths):
 * lowercase ASCII letters and digits in runs joined by single hyphens, at most MAX_NAME_CHARS.
 */
export const SKILL_NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;

/** One regular file of a skill folder; `path` is relative to the skill root, POSIX separators. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

/** The normalized view of a valid SKILL.md frontmatter (see validate.ts for the rules). */
export interface SkillMetadata {
  name: string;
  description: string;
  /** A semver string when declared (seed 000 extension). */
  version?: string;
  license?: string;
  compatibility?: string;
  /** `allowed-tools`, split on whitespace (a YAML list is accepted too). */
  allowed_tools?: string[];
  /** Selection hints (seed 000 extension); empty when not declared. */
  when_to_use: string[];
  when_not_to_use: string[];
  /** `metadata.tags`; empty when not declared. */
  tags: string[];
  /** `metadata.requires_mcp` / `metadata.requires_tools`; a bare string becomes one item. */
  requires_mcp: string[];
  requires_tools: string[];
  /** The `metadata` map as parsed (string keys). */
  metadata: Record<string, unknown>;
}
