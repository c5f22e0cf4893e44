// The skill catalog that goes into every system prompt, in agentskills-core's XML and Markdown
// forms, byte for byte: select (include/exclude), filter by tag, then fit to max_chars by
// dropping whole entries from the end, always saying so.
import { pyRepr } from "../python-compat/pyfmt.ts";
import { casefold, codePointLength, compareCodePoints, isPyBlank, pyStrip } from "../python-compat/py-text.ts";

/** What a catalog entry needs from a skill. `SkillMetadata` (skill.ts) satisfies it. */
export interface CatalogSkill {
  name: string;
  /** Missing renders as `<description />` in XML and "No description available." in Markdown. */
  description?: string;
  /** Absent, null (as a generation manifest stores it) or "" means none. */
  version?: string | null;
  when_to_use?: readonly string[];
  when_not_to_use?: readonly string[];
  /**
   * `metadata.tags`; matched case-insensitively (casefold, whitespace stripped). validate reads
   * them from a comma-separated string too, which the library's own filter ignores.
   */
  tags?: readonly string[];
}

/** The two catalog formats agentskills-core renders. */
export type CatalogFormat = "xml" | "markdown";

/** Every catalog option, with agentskills-core's defaults. */
export interface CatalogOptions {
  /** Default "xml". */
  format?: CatalogFormat;
  /** Keep skills carrying any of these tags. `[]` keeps none; undefined filters nothing. */
  tags?: readonly string[];
  /** Keep only these skill names; naming an unknown skill is an error. */
  include?: readonly string[];
  /** Drop these skill names (unknown ones ignored); wins over include. */
  exclude?: readonly string[];
  /** Ceiling on the catalog's length in code points; whole entries are dropped from the end. */
  maxChars?: number;
  /** Include when_to_use / when_not_to_use. Default true. */
  selectionHints?: boolean;
  /** Size of the set these skills were chosen from; the shortfall is reported as truncation. */
  total?: number;
}

/** Why a catalog could not be built: an unknown include, a max_chars too small, a bad format,
 * or two skills with one name in the input. */
export class CatalogError extends Error {
  readonly kind: "unknown-include" | "duplicate" | "max-chars" | "format";
  constructor(kind: CatalogError["kind"], message: string) {
    super(message);
    this.name = "CatalogError";
    this.kind = kind;
  }
}

/** Escapes element text as ElementTree does: `&`, `<`, `>` only; quotes and newlines stay. */
function escapeText(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** A selection-hint list without its blank entries. */
function cases(list: readonly string[] | undefined): readonly string[] {
  if (!list || list.length === 0) return [];
  return list.every((c) => !isPyBlank(c)) ? list : list.filter((c) => !isPyBlank(c));
}

const HINT_FIELDS = [
  ["when_to_use", "When to use"],
  ["when_not_to_use", "When not to use"],
] as const;

/** One `<skill>` element, indented as ElementTree.indent(space="  ") leaves it. */
function xmlEntry(skill: CatalogSkill, hints: boolean): string {
  let out = `  <skill>\n    <name>${escapeText(skill.name)}</name>\n`;
  const description = skill.description ?? "";
  out += description === "" ? "    <description />\n" : `    <description>${escapeText(description)}</description>\n`;
  if (skill.version) out += `    <version>${escapeText(skill.version)}</version>\n`;
  if (hints) {
    for (const [field] of HINT_FIELDS) {
      const list = cases(skill[field]);
      if (list.length === 0) continue;
      out += `    <${field}>\n`;
      for (const c of list) out += `      <case>${escapeText(c)}</case>\n`;
      out += `    </${field}>\n`;
    }
  }
  return `${out}  </skill>`;
}

/** One Markdown entry: its lines, each ending in "\n" (the last is the blank separator). */
function markdownEntry(skill: CatalogSkill, hints: boolean): string {
  let out = `## ${skill.name}\n- **Description**: ${skill.description ?? "No description available."}\n`;
  if (skill.version) out += `- **Version**: ${skill.version}\n`;
  if (hints) {
    for (const [field, label] of HINT_FIELDS) {
      const list = cases(skill[field]);
      if (list.length === 0) continue;
      out += `- **${label}**:\n`;
      for (const c of list) out += `  - ${c}\n`;
    }
  }
  return out;
}

/** How a format wraps its entries for `shown` of `total`; lengths are computable without text. */
interface Frame {
  /** The whole catalog when nothing is shown. */
  empty(total: number): string;
  head(shown: number, total: number): string;
  tail(shown: number, total: number): string;
  /** Between two entries. */
  separator: string;
}

const XML_FRAME: Frame = {
  empty: (total) => (total > 0 ? `<available_skills truncated="true" shown="0" total="${total}" />` : "<available_skills />"),
  head: (shown, total) => (shown < total ? `<available_skills truncated="true" shown="${shown}" total="${total}">\n` : "<available_skills>\n"),
  tail: () => "\n</available_skills>",
  separator: "\n",
};

const EMPTY_MARKDOWN = "No skills are currently available.";

const MARKDOWN_FRAME: Frame = {
  empty: (total) => (total > 0 ? `${EMPTY_MARKDOWN}\n\n_Catalog truncated: showing 0 of ${total} skills._` : EMPTY_MARKDOWN),
  head: () => "# Available Skills\n\n",
  tail: (shown, total) => (shown < total ? `\n_Catalog truncated: showing ${shown} of ${total} skills._` : ""),
  separator: "\n",
};

function checkInteger(name: string, value: number | undefined): void {
  if (value !== undefined && !Number.isSafeInteger(value)) {
    throw new RangeError(`catalog option ${name} must be an integer, got ${value}`);
  }
}

/**
 * The skills a catalog would list, in order: sorted by name (code point order, which is UTF-8
 * byte order), include, exclude, then tags. Throws CatalogError on an unknown include.
 */
function selectCatalogSkills<T extends CatalogSkill>(skills: readonly T[], options: CatalogOptions = {}): T[] {
  const byName = new Map<string, T>();
  for (const skill of skills) {
    if (byName.has(skill.name)) throw new CatalogError("duplicate", `duplicate skill name '${skill.name}' in catalog input`);
    byName.set(skill.name, skill);
  }
  let selected = [...skills].sort((a, b) => compareCodePoints(a.name, b.name));
  if (options.include !== undefined) {
    const wanted = new Set(options.include);
    const missing = [...wanted].filter((name) => !byName.has(name)).sort(compareCodePoints);
    if (missing.length > 0) {
      throw new CatalogError("unknown-include", `include names skills that are not registered: ${missing.join(", ")}`);
    }
    selected = selected.filter((s) => wanted.has(s.name));
  }
  if (options.exclude !== undefined) {
    const unwanted = new Set(options.exclude);
    selected = selected.filter((s) => !unwanted.has(s.name));
  }
  if (options.tags !== undefined) {
    const wanted = new Set(options.tags.filter((t) => !isPyBlank(t)).map((t) => casefold(pyStrip(t))));
    selected = selected.filter((s) => (s.tags ?? []).some((t) => !isPyBlank(t) && wanted.has(casefold(pyStrip(t)))));
  }
  return selected;
}

/** A high surrogate: without one, a string's code point count is its length. */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** codePointLength, skipping the scan for text without surrogates (most entries): fitting 1,000 entries scans ~400 KB otherwise. */
function measure(text: string): number {
  return HIGH_SURROGATE.test(text) ? codePointLength(text) : text.length;
}

/** A catalog fitted to its budget: the entries in order, each rendered (when asked or measured), and how many are shown of how many. */
interface FittedCatalog<T extends CatalogSkill> {
  frame: Frame;
  entries: T[];
  chunks: string[];
  shown: number;
  total: number;
}

/**
 * Selects, filters and fits a catalog: the work renderCatalog and catalogSelection share, so the
 * structured form shows exactly the entries the text shows. Entries are rendered when the text
 * is wanted or max_chars has to measure them.
 */
function fitCatalog<T extends CatalogSkill>(skills: readonly T[], options: CatalogOptions, wantText: boolean): FittedCatalog<T> {
  const format: string = options.format ?? "xml";
  if (format !== "xml" && format !== "markdown") {
    throw new CatalogError("format", `Unsupported format ${pyRepr(format)}; expected 'xml' or 'markdown'.`);
  }
  checkInteger("maxChars", options.maxChars);
  checkInteger("total", options.total);
  const hints = options.selectionHints ?? true;
  const entries = selectCatalogSkills(skills, options);
  const frame = format === "xml" ? XML_FRAME : MARKDOWN_FRAME;
  const render = format === "xml" ? xmlEntry : markdownEntry;
  const maxChars = options.maxChars;
  // The structured form needs no text unless max_chars must measure it.
  const chunks = wantText || maxChars !== undefined ? entries.map((skill) => render(skill, hints)) : [];
  const total = options.total === undefined ? entries.length : Math.max(options.total, entries.length);

  let shown = entries.length;
  if (maxChars !== undefined) {
    // length(k) = head(k) + chunks[0..k) + (k-1) separators + tail(k): measure each chunk once
    // and walk k down, instead of re-rendering the catalog once per dropped entry.
    const separator = codePointLength(frame.separator);
    const lengths = chunks.map(measure);
    let body = Math.max(chunks.length - 1, 0) * separator;
    for (const length of lengths) body += length;
    while (shown > 0) {
      const length = codePointLength(frame.head(shown, total)) + body + codePointLength(frame.tail(shown, total));
      if (length <= maxChars) break;
      shown--;
      body -= lengths[shown]! + (shown > 0 ? separator : 0);
    }
    if (shown === 0) {
      const needs = codePointLength(frame.empty(total));
      if (needs > maxChars) {
        throw new CatalogError("max-chars", `max_chars=${maxChars} cannot hold the smallest possible catalog, which needs ${needs} characters.`);
      }
    }
  }
  return { frame, entries, chunks, shown, total };
}

/**
 * The catalog string, byte-identical to agentskills-core's `get_skills_catalog`.
 * Fitting to `maxChars` renders each entry once and measures it, so the cost is linear in the
 * number of skills however many entries are dropped.
 * @example renderCatalog([{name: "beta", description: "Beta skill."}], {format: "markdown"})
 *   // "# Available Skills\n\n## beta\n- **Description**: Beta skill.\n"
 * @throws CatalogError for an unknown include, a max_chars too small for even the empty
 *   catalog, or an unsupported format.
 */
export function renderCatalog(skills: readonly CatalogSkill[], options: CatalogOptions = {}): string {
  const { frame, chunks, shown, total } = fitCatalog(skills, options, true);
  if (shown === 0) return frame.empty(total);
  const shownChunks = shown === chunks.length ? chunks : chunks.slice(0, shown);
  // Head and tail go onto the first and last entry, so the one join yields a flat string: a rope
  // of head + body + tail is copied once more whenever it is encoded or written, a second pass
  // over megabytes at 10,000 skills.
  shownChunks[0] = frame.head(shown, total) + shownChunks[0];
  shownChunks[shown - 1] += frame.tail(shown, total);
  return shownChunks.join(frame.separator);
}

/** The entries a catalog shows and the counts it reports (`truncated="true" shown= total=`). */
export interface CatalogSelection<T extends CatalogSkill> {
  /** The skills shown, in catalog order (sorted by name, code point order). */
  skills: T[];
  shown: number;
  total: number;
  /** True when fewer are shown than `total` (by max_chars, or a larger `total` given). */
  truncated: boolean;
}

/**
 * Which skills {@link renderCatalog} with the same options shows, without the text: the same
 * selection, filters and fit (max_chars is measured in `options.format`, default xml), so a
 * structured catalog lists exactly the entries of the text one.
 * @example catalogSelection(skills, { maxChars: 2000 }).skills.map((s) => s.name)
 * @throws CatalogError as renderCatalog does.
 */
export function catalogSelection<T extends CatalogSkill>(skills: readonly T[], options: CatalogOptions = {}): CatalogSelection<T> {
  const { entries, shown, total } = fitCatalog(skills, options, false);
  return { skills: entries.slice(0, shown), shown, total, truncated: shown < total };
}

/** A catalog entry as structured data: the fields the text catalog shows for it, hints without blank cases. */
export interface CatalogEntryData {
  name: string;
  /** "" when the skill has none (`<description />`). */
  description: string;
  /** null when the skill has none (no `<version>`). */
  version: string | null;
  /** Present when selection hints are on. */
  when_to_use?: string[];
  when_not_to_use?: string[];
}

/**
 * One skill as a structured catalog entry, with exactly what its text entry carries.
 * @example catalogEntryData({ name: "a", description: "A.", when_to_use: ["x", " "] }, true) // {name: "a", description: "A.", version: null, when_to_use: ["x"], when_not_to_use: []}
 */
export function catalogEntryData(skill: CatalogSkill, selectionHints: boolean): CatalogEntryData {
  const entry: CatalogEntryData = { name: skill.name, description: skill.description ?? "", version: skill.version ? skill.version : null };
  if (selectionHints) {
    entry.when_to_use = [...cases(skill.when_to_use)];
    entry.when_not_to_use = [...cases(skill.when_not_to_use)];
  }
  return entry;
}
