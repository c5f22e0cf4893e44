// What the MCP views need from a SKILL.md beyond the build's record: the frontmatter as the MCP
// SDK reads it (YAML 1.2; SkillsClient checks an entry's frontmatter against its own reading of
// the file, and the record holds the YAML 1.1 reading), and get_skill_metadata's text (Python's
// json.dumps of PyYAML's reading, so `1.0` stays a float). Both are read from the SKILL.md head a
// shard entry carries (no storage read), else from one read of the file, and kept per isolate by
// the SKILL.md's digest, so a warm skills/list reads nothing.
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { isScalar, visit } from "yaml";
import { parsePyYaml, pyTypeOfNode } from "../../../core/python-compat/yaml11.ts";
import { decodeSkillMd, parseSkillMd } from "../../../core/skill/skill-md.ts";
import type { ServedSkill, ShelfService } from "../../shelf/service.ts";
import { MemoryCache } from "../../memory-cache.ts";
import { PyJsonTypeError, pyJsonDumps } from "../../../core/python-compat/py-json.ts";

/** What one SKILL.md gives the MCP views. */
export interface SkillMdFacts {
  /** The frontmatter as the MCP SDK parses it; undefined when its YAML subset reader refuses the file. */
  sdkFrontmatter: Record<string, unknown> | undefined;
  /** get_skill_metadata's text, or the message of the error Python raises building it. */
  metadata: { text: string } | { error: string };
}

/** Bounded: a few hundred bytes per skill and fact, so 10,000 skills fit well under it. */
const FACTS_CACHE_BYTES = 8 * 1024 * 1024;
/** Each fact is computed when first asked for (a listing needs only the SDK's frontmatter), keyed by kind and SKILL.md digest. */
const facts = new MemoryCache<{ value: unknown }>(FACTS_CACHE_BYTES);

/** Forgets every cached SKILL.md reading (tests that count storage reads start cold). */
export function resetSkillMdFacts(): void {
  facts.clear();
}

/**
 * The SKILL.md bytes the facts are read from: the head its shard entry carries (frontmatter
 * through the closing line, which both readers end at as in the whole file), else one verified
 * R2 read (entries built before `listing`, or a head the build could not cut exactly).
 */
async function factSource(shelf: ShelfService, skill: ServedSkill): Promise<Uint8Array> {
  const head = skill.listing?.skill_md_head;
  if (head !== undefined) return new TextEncoder().encode(head);
  return (await shelf.file(skill.name, "SKILL.md")).readChecked();
}

async function fact<K extends keyof SkillMdFacts>(
  shelf: ShelfService,
  skill: ServedSkill,
  kind: K,
  compute: (bytes: Uint8Array) => Promise<SkillMdFacts[K]> | SkillMdFacts[K],
): Promise<SkillMdFacts[K]> {
  const key = `${kind}:${skill.skill_md.sha256}`;
  const cached = facts.get(key);
  if (cached !== undefined) return cached.value as SkillMdFacts[K];
  const value = await compute(await factSource(shelf, skill));
  facts.set(key, { value }, (JSON.stringify(value) ?? "").length * 2 + 64);
  return value;
}

/**
 * The frontmatter the MCP SDK reads from a served skill's SKILL.md (undefined when it refuses
 * it): no storage read when the entry carries the SKILL.md head, else one verified R2 read the
 * first time an isolate needs this SKILL.md (by digest); none after.
 * @throws NotOnShelfError, SkillBlockedError, StorageUnavailableError
 */
export function sdkFrontmatter(shelf: ShelfService, skill: ServedSkill): Promise<Record<string, unknown> | undefined> {
  return fact(shelf, skill, "sdkFrontmatter", (bytes) => sdkFrontmatterOf(skill.name, bytes));
}

/**
 * get_skill_metadata's text for a served skill, read as {@link sdkFrontmatter} reads.
 * @throws NotOnShelfError, SkillBlockedError, StorageUnavailableError
 */
export function skillMetadata(shelf: ShelfService, skill: ServedSkill): Promise<SkillMdFacts["metadata"]> {
  return fact(shelf, skill, "metadata", metadataOf);
}

async function sdkFrontmatterOf(name: string, bytes: Uint8Array): Promise<Record<string, unknown> | undefined> {
  try {
    // skillEntry hashes only what it is given: SKILL.md alone, to use the SDK's own reader.
    return (await skillEntry(name, { "SKILL.md": bytes })).frontmatter as Record<string, unknown>;
  } catch (error) {
    console.warn(`skill ${name}: the MCP SDK cannot read its SKILL.md frontmatter; the entry carries the build's reading`, error);
    return undefined;
  }
}

/**
 * json.dumps of what PyYAML reads from the frontmatter, as agentskills-fs's get_metadata returns it;
 * a timestamp anywhere is refused as Python's encoder refuses a date.
 */
function metadataOf(bytes: Uint8Array): SkillMdFacts["metadata"] {
  try {
    const { frontmatterText } = parseSkillMd(decodeSkillMd(bytes));
    const { doc } = parsePyYaml(frontmatterText);
    let timestamp: string | undefined;
    visit(doc, {
      Scalar(_key, node) {
        const type = isScalar(node) ? pyTypeOfNode(node) : "str";
        if ((type === "date" || type === "datetime") && timestamp === undefined) timestamp = type;
      },
    });
    if (timestamp !== undefined) throw new PyJsonTypeError(timestamp);
    return { text: pyJsonDumps(doc.toJS() ?? {}) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
