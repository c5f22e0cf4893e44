// Progressive disclosure over the shelf service: what an agent reads of one skill after the
// catalog (the outline the build stored, one section, one resource as text), computed from the stored record and bytes with the core's functions, never re-derived
// from anything the build already computed. Views (the /v1 skills routes, later /mcp) call these.
import { z } from "zod";
import { RESOURCE_KINDS, type ResourceKind } from "../../core/api/skills.ts";
import type { SkillRecord } from "../../core/generation/manifest.ts";
import { outlineOf, sectionOf, type SkillOutline } from "../../core/disclosure/outline.ts";
import { classifyResource, encodeResourceContent } from "../../core/disclosure/resources.ts";
import type { ShelfFile, ShelfService } from "./service.ts";

/** What sectionOf needs of a stored section: its lines' offsets in the body. */
const StoredSectionSchema = z.looseObject({
  key: z.string(),
  title: z.string(),
  level: z.number().int().min(0),
  tokens: z.number().int().min(0),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
});
const StoredOutlineSchema = z.looseObject({
  skill_id: z.string().optional(),
  total_tokens: z.number().int().min(0),
  sections: z.array(StoredSectionSchema),
});

/**
 * The outline the build stored (outlineOf at build time), as the core's type; undefined when
 * the record lacks the section offsets (a record written before they were stored).
 */
export function storedOutline(record: SkillRecord): SkillOutline | undefined {
  const parsed = StoredOutlineSchema.safeParse(record.outline);
  if (!parsed.success) return undefined;
  return { skill_id: parsed.data.skill_id ?? record.name, total_tokens: parsed.data.total_tokens, sections: parsed.data.sections };
}

/**
 * The stored outline as renderOutline reads it: skill_id, total_tokens and each section's key,
 * title, level and tokens, all stored. The offsets are not read by renderOutline.
 */
export function renderableOutline(record: SkillRecord): SkillOutline {
  return (
    storedOutline(record) ??
    ({ skill_id: record.name, total_tokens: record.outline.total_tokens, sections: record.outline.sections } as unknown as SkillOutline)
  );
}

/**
 * The keys of the stored outline, in body order, when `key` is not one of them (so an unknown
 * key is answered before the body is read); undefined when it is.
 */
export function missingSectionKeys(record: SkillRecord, key: string): string[] | undefined {
  const keys = record.outline.sections.map((s) => s.key);
  return keys.includes(key) ? undefined : keys;
}

/**
 * One section's text, exactly as `skillshelf section` prints it: the core's sectionOf over the
 * body (ShelfService.body: one R2 read cold) and the stored outline.
 * @throws SectionNotFoundError (listing the keys), NotOnShelfError, SkillBlockedError, StorageUnavailableError
 */
export async function sectionText(shelf: ShelfService, name: string, key: string): Promise<string> {
  const { record } = await shelf.record(name);
  const stored = storedOutline(record);
  // An unknown key throws the core's error from the stored outline alone: no body read.
  if (stored && missingSectionKeys(record, key)) sectionOf("", stored, key);
  const body = await shelf.body(name);
  return sectionOf(body, stored ?? outlineOf(record.name, body), key);
}

/** A skill-relative path as a resource: its folder and its name inside it; undefined for anything else (SKILL.md, other folders). */
export function resourceOf(path: string): { kind: ResourceKind; name: string } | undefined {
  const slash = path.indexOf("/");
  if (slash < 0 || slash === path.length - 1) return undefined;
  const kind = RESOURCE_KINDS.find((k) => k === path.slice(0, slash));
  return kind === undefined ? undefined : { kind, name: path.slice(slash + 1) };
}

/** A resource as an agent is given it (agentskills-core's get_skill_reference and classify_resource). */
export interface ResourceText {
  path: string;
  name: string;
  media_type: string;
  renderable: boolean;
  is_text: boolean;
  size: number;
  sha256: string;
  content: string;
}

/**
 * One resource as text: encode_resource_content of its bytes (UTF-8 verbatim, else the JSON
 * envelope) under its name inside its folder, with classify_resource's media type and flags.
 * @example (await resourceText(file, "logo.png")).renderable // => true for a PNG
 */
export async function resourceText(file: ShelfFile, name: string): Promise<ResourceText> {
  const bytes = await file.readChecked();
  const media = classifyResource(name, bytes);
  return {
    path: file.path,
    name,
    media_type: media.media_type,
    renderable: media.renderable,
    is_text: media.is_text,
    size: file.size,
    sha256: file.sha256,
    content: encodeResourceContent(name, bytes),
  };
}
