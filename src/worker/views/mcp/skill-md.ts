// What the MCP views need from a SKILL.md beyond the build's record: the frontmatter as the MCP
// SDK reads it (YAML 1.2; SkillsClient checks an entry's frontmatter against its own reading of
// the file, and the record holds the YAML 1.1 reading), and get_skill_metadata's text (Python's
// json.dumps of PyYAML's reading, so `1.0` stays a float). Both come from one read of the bytes
// and are kept per isolate by the SKILL.md's digest, so a warm skills/list reads nothing.
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { isScalar, visit } from "yaml";
import type { SkillRecord } from "../../../core/generation/manifest.ts";
import { parsePyYaml, pyTypeOfNode } from "../../../core/python-compat/yaml11.ts";
import { decodeSkillMd, parseSkillMd } from "../../../core/skill/skill-md.ts";
import { readVerified, type ServedSkill, type ShelfService } from "../../shelf/service.ts";
import { MemoryCache } from "../../memory-cache.ts";
import { PyJsonTypeError, pyJsonDumps } from "../../../core/python-compat/py-json.ts";

/** What one SKILL.md gives the MCP views. */
export interface SkillMdFacts {
  /** The frontmatter as the MCP SDK parses it; undefined when its YAML subset reader refuses the file. */
  sdkFrontmatter: Record<string, unknown> | undefined;
  /** get_skill_metadata's text, or the message of the error Python raises building it. */
  metadata: { text: string } | { error: string };
}

/** Bounded: a few hundred bytes per skill, so 10,000 skills fit well under it. */
const FACTS_CACHE_BYTES = 8 * 1024 * 1024;
const facts = new MemoryCache<SkillMdFacts>(FACTS_CACHE_BYTES);

/** Forgets every cached SKILL.md reading (tests that count storage reads start cold). */
export function resetSkillMdFacts(): void {
  facts.clear();
}

/**
 * The facts of a served skill's SKILL.md: one verified R2 read the first time an isolate needs
 * this SKILL.md (by digest), none after.
 * @throws NotOnShelfError, SkillBlockedError, StorageUnavailableError
 */
export async function skillMdFacts(shelf: ShelfService, skill: ServedSkill): Promise<SkillMdFacts> {
  const cached = facts.get(skill.skill_md.sha256);
  if (cached !== undefined) return cached;
  const bytes = await readVerified(await shelf.file(skill.name, "SKILL.md"));
  const found: SkillMdFacts = { sdkFrontmatter: await sdkFrontmatterOf(skill.name, bytes), metadata: metadataOf(bytes) };
  facts.set(skill.skill_md.sha256, found, JSON.stringify(found).length * 2 + 64);
  return found;
}

/** The frontmatter an SEP-2640 entry carries: the SDK's reading, else (a file it refuses) the record's. */
export function entryFrontmatter(found: SkillMdFacts, record: Pick<SkillRecord, "frontmatter">): Record<string, unknown> {
  return found.sdkFrontmatter ?? record.frontmatter;
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
