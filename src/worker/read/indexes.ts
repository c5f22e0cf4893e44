// The index documents each client family reads, built from a generation's skill entries (and,
// for the per-skill listing, the skill's record). Pure functions: same inputs, same
// bytes, so an index's ETag can be derived from what it was built from.
import { discoveryType, type EntryAudit, type SkillEntry, type SkillRecord } from "../../core/generation/manifest.ts";
import { hasFindings } from "../../core/audit/published.ts";
import type { SkillSignature } from "../../core/signing/signatures.ts";
import { lifecycleOf, type Lifecycle } from "../../core/changes/lifecycle.ts";
import { DISCOVERY_SCHEMA_V2, immutableArchiveUrl, immutableSkillMdUrl } from "./urls.ts";

/** The resource kinds agentskills-http can reach (RESOURCE_KINDS in agentskills-core). */
const RESOURCE_KINDS = ["references", "scripts", "assets"] as const;

/** Flat resource names agentskills-http accepts (its identifier rule). */
const FLAT_RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The agentskills-http root manifest: `{"skills": [names]}`, sorted.
 * @example staticRootIndex(entries) // => {skills: ["code-review", "commit-messages"]}
 */
export function staticRootIndex(entries: readonly SkillEntry[]): { skills: string[] } {
  return { skills: entries.map((e) => e.name).sort(byCodePoint) };
}

/**
 * The agentskills-http per-skill manifest: every regular file directly inside references/,
 * scripts/ and assets/ (no dotfiles, no sub-folders, names the client can address), each kind
 * sorted, all three keys always present. `files` is the complete path list agentskills-http
 * 0.7's `file_manifest=True` reads (nested paths included, SKILL.md first by sort order).
 */
export function staticSkillIndex(record: Pick<SkillRecord, "files">): {
  references: string[];
  scripts: string[];
  assets: string[];
  files: string[];
} {
  const kinds: Record<(typeof RESOURCE_KINDS)[number], string[]> = { references: [], scripts: [], assets: [] };
  for (const file of record.files) {
    const slash = file.path.indexOf("/");
    if (slash < 0) continue;
    const kind = file.path.slice(0, slash) as (typeof RESOURCE_KINDS)[number];
    const rest = file.path.slice(slash + 1);
    if (!(kind in kinds) || rest.includes("/") || !FLAT_RESOURCE_NAME.test(rest)) continue;
    kinds[kind].push(rest);
  }
  return {
    references: kinds.references.sort(byCodePoint),
    scripts: kinds.scripts.sort(byCodePoint),
    assets: kinds.assets.sort(byCodePoint),
    files: record.files.map((f) => f.path).sort(byCodePoint),
  };
}

/** One entry of the well-known v0.2.0 index. */
export interface DiscoveryEntryV2 {
  name: string;
  type: "skill-md" | "archive";
  description: string;
  url: string;
  digest: string;
}

/**
 * The well-known v0.2.0 index. Each `url` is immutable (pinned to `generation`) and `digest` is
 * the SHA-256 of exactly the bytes served there: SKILL.md for a lone SKILL.md, the .tar.gz
 * archive otherwise. Extra fields (`version` when the skill declares one, `requires_review`, `signature` on a signed shelf, and
 * `deprecated`/`replaced_by` from lifecycle.yaml, and `audit`, the entry's audit summary when the audit found something) ride along;
 * clients ignore unknown fields, as the RFC requires them to.
 */
export function discoveryIndexV2(
  entries: readonly SkillEntry[],
  generation: string,
  accessPrefix: string,
  signatureOf: (name: string) => SkillSignature | null = () => null,
  lifecycle: Lifecycle | null = null,
): {
  $schema: string;
  skills: Array<
    DiscoveryEntryV2 & { version?: string; requires_review?: true; signature?: SkillSignature; deprecated?: string; replaced_by?: string; audit?: EntryAudit }
  >;
} {
  const skills = [...entries]
    .sort((a, b) => byCodePoint(a.name, b.name))
    .map((entry) => {
      const type = discoveryType(entry);
      const artifact = type === "skill-md" ? entry.skill_md : entry.archives.tar_gz;
      const url =
        type === "skill-md" ? immutableSkillMdUrl(accessPrefix, generation, entry.name) : immutableArchiveUrl(accessPrefix, generation, entry.name, "tar.gz");
      const signature = signatureOf(entry.name);
      const { deprecated, replaced_by: replacedBy } = lifecycleOf(lifecycle, entry.name);
      return {
        name: entry.name,
        type,
        description: entry.description,
        url,
        digest: `sha256:${artifact.sha256}`,
        ...(entry.version !== null ? { version: entry.version } : {}),
        ...(entry.trust.requires_review ? { requires_review: true as const } : {}),
        ...(signature ? { signature } : {}),
        ...(deprecated !== null ? { deprecated } : {}),
        ...(replacedBy !== null ? { replaced_by: replacedBy } : {}),
        // The audit summary only when it found something, so an index without findings is as before.
        ...(hasFindings(entry.audit) ? { audit: entry.audit } : {}),
      };
    });
  return { $schema: DISCOVERY_SCHEMA_V2, skills };
}

/** Printable ASCII without `\ ? # [ ]`, relative, no `..`: the v0.1 rule for `files` paths. */
function isLegacyFilePath(path: string): boolean {
  return /^[\x20-\x7e]+$/.test(path) && !/[\\?#[\]]/.test(path) && !path.startsWith("/") && !path.split("/").includes("..");
}

/** One entry of the legacy v0.1 index. */
export interface DiscoveryEntryV1 {
  name: string;
  description: string;
  files: string[];
}

/**
 * The legacy v0.1 index: `files` lists every path, SKILL.md first. The paths come from each
 * entry (the shard carries them), so it needs no record. A skill with a path v0.1 cannot express
 * is left out of this index (and logged) rather than listed incompletely; it stays installable
 * through v0.2, whose archives carry any path. `version` (when declared) and `requires_review`
 * are extra fields, which v0.1 clients ignore.
 */
export function discoveryIndexV1(entries: readonly Pick<SkillEntry, "name" | "description" | "version" | "paths" | "trust">[]): {
  skills: Array<DiscoveryEntryV1 & { version?: string; requires_review?: true }>;
} {
  const out: Array<DiscoveryEntryV1 & { version?: string; requires_review?: true }> = [];
  for (const entry of [...entries].sort((a, b) => byCodePoint(a.name, b.name))) {
    const paths = entry.paths;
    if (!paths.every(isLegacyFilePath)) {
      console.warn(`skill ${entry.name} has a path the v0.1 index cannot express; listed only in v0.2`);
      continue;
    }
    const files = ["SKILL.md", ...paths.filter((p) => p !== "SKILL.md").sort(byCodePoint)];
    out.push({
      name: entry.name,
      description: entry.description,
      files,
      ...(entry.version !== null ? { version: entry.version } : {}),
      ...(entry.trust.requires_review ? { requires_review: true as const } : {}),
    });
  }
  return { skills: out };
}
