// provenance.yaml: where each imported skill came from (source, the commit or digest pinned, the
// version, when, and the tree hash imported). `skillshelf import` writes it, the build publishes
// each entry on the skill's record (with whether the folder still holds what was imported), and
// `validate` checks every source against the allow-list. Skillshelf's own file, beside the four
// AbstractSkill record files.
import { parseDocument, stringify } from "yaml";
import { z } from "zod";
import { SHA256_HEX_RE } from "../skill/hash.ts";
import { SOURCE_KINDS } from "./sources.ts";

export const PROVENANCE_FILE = "provenance.yaml";

/** One imported skill's entry in provenance.yaml. */
export const ProvenanceEntrySchema = z.strictObject({
  kind: z.enum(SOURCE_KINDS),
  /** The source's identity (sources.ts), what the allow-list is matched against. */
  source: z.string().min(1),
  /** Where import fetched from (a clone URL, an index or registry URL, a folder), for --update. */
  url: z.string().min(1),
  /** The skill's folder inside the source (git, folder), its slug (clawhub), or null. */
  path: z.string().nullable().default(null),
  /** The ref asked for (git: a branch, tag or commit; clawhub: a version), or null for the default branch or latest. */
  ref: z.string().nullable().default(null),
  /** The commit the ref resolved to (git), or null. */
  commit: z.string().nullable().default(null),
  /** What was checked: `sha256:<hex>` of the artifact a well-known index served, `fingerprint:<hex>` of a ClawHub version's files; or null. */
  digest: z.string().nullable().default(null),
  /** The skill's version (frontmatter, or the registry's), or null. */
  version: z.string().nullable().default(null),
  imported_at: z.string().min(1),
  /** The tree hash of the folder as imported: the folder differs from it once the team edits it. */
  tree_hash: z.string().regex(SHA256_HEX_RE, "expected 64 lowercase hex characters"),
});
export type ProvenanceEntry = z.infer<typeof ProvenanceEntrySchema>;

/** What a published record says about an imported skill: its entry, and whether the team changed it since. */
export const PublishedProvenanceSchema = ProvenanceEntrySchema.omit({ url: true }).extend({
  /** True when the folder's tree hash is not the one imported (the team edited it). */
  modified: z.boolean(),
});
export type PublishedProvenance = z.infer<typeof PublishedProvenanceSchema>;

/** A malformed provenance.yaml; every problem is listed. */
export class ProvenanceError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`${PROVENANCE_FILE}: ${problems.join("; ")}`);
    this.problems = problems;
    this.name = "ProvenanceError";
  }
}

/**
 * Parses provenance.yaml into entries by skill name (an empty or absent `skills:` is none).
 * @example parseProvenance(text).get("pdf-tools")?.commit
 */
export function parseProvenance(text: string): Map<string, ProvenanceEntry> {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw new ProvenanceError(doc.errors.map((e) => e.message.split("\n")[0]!));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (error) {
    throw new ProvenanceError([(error as Error).message]);
  }
  if (value === null || value === undefined) return new Map();
  if (typeof value !== "object" || Array.isArray(value)) throw new ProvenanceError(["expected a mapping with skills:"]);
  const { skills, ...rest } = value as { skills?: unknown };
  const extra = Object.keys(rest);
  if (extra.length) throw new ProvenanceError([`unknown key(s) ${extra.join(", ")} (the file holds skills:)`]);
  if (skills === undefined || skills === null) return new Map();
  if (typeof skills !== "object" || Array.isArray(skills)) throw new ProvenanceError(["skills: must map skill names to entries"]);
  const out = new Map<string, ProvenanceEntry>();
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(skills)) {
    const parsed = ProvenanceEntrySchema.safeParse(entry);
    if (parsed.success) out.set(name, parsed.data);
    else problems.push(...parsed.error.issues.map((i) => `skills.${name}${i.path.length ? `.${i.path.join(".")}` : ""}: ${i.message}`));
  }
  if (problems.length) throw new ProvenanceError(problems);
  return out;
}

const HEADER = `# Where each imported skill came from. Written by \`skillshelf import\`; published by the build on
# the skill's record (/v1/skills/{name} provenance, MCP _meta, the skill's page). tree_hash is the
# folder as imported: once the team edits the folder, import --update leaves it alone.
`;

/** provenance.yaml's text for the entries, skills in name order, fields in schema order. */
export function serializeProvenance(entries: ReadonlyMap<string, ProvenanceEntry>): string {
  const skills: Record<string, ProvenanceEntry> = {};
  for (const name of [...entries.keys()].sort()) skills[name] = ProvenanceEntrySchema.parse(entries.get(name));
  return `${HEADER}${stringify({ skills }, { lineWidth: 0 })}`;
}

/**
 * The provenance a record publishes for a skill whose folder now has `treeHash`.
 * @example publishedProvenance(entry, entry.tree_hash).modified // => false
 */
export function publishedProvenance(entry: ProvenanceEntry, treeHash: string): PublishedProvenance {
  const { url: _url, ...rest } = entry;
  return { ...rest, modified: treeHash !== entry.tree_hash };
}
