// Validation of one skill: its SKILL.md against the Agent Skills specification's rules, the seed
// libraries' extensions (version, selection hints, tags, declared requirements) and portability
// checks, so that a skill that passes parses identically in every client, and its file tree
// against tree-rules.ts. Every problem is reported at once; each names the skill, the field and the fix.
import { isMap, isScalar, isSeq } from "yaml";
import { describeYamlValue, yamlReadingDifferences, type YamlReadingDifference } from "./yaml-versions.ts";
import { MAX_NAME_CHARS, SKILL_NAME_RE, type SkillFile, type SkillMetadata } from "./skill.ts";
import { treeProblems } from "./tree-rules.ts";
import { codePointLength, pyStrip } from "../python-compat/py-text.ts";
import { decodeSkillMd, parseSkillMd, SkillMdError, type ParsedSkillMd } from "./skill-md.ts";
import { mapPairs, pyReprOfNode, pyTypeOfNode, topLevelNode, type PyTypeName } from "../python-compat/yaml11.ts";

export type Severity = "error" | "warning";

/** One problem with one skill. `field` is a frontmatter key, `SKILL.md`, or `body`. */
export interface Problem {
  skill: string;
  field: string;
  severity: Severity;
  message: string;
}

export interface SkillValidation {
  /** True when there are no errors (warnings allowed). */
  ok: boolean;
  problems: Problem[];
  /** The normalized metadata, present when the frontmatter could be read at all. */
  metadata?: SkillMetadata;
  parsed?: ParsedSkillMd;
}

export const MAX_DESCRIPTION_CHARS = 1024;
/**
 * The longest body (UTF-16 units after the frontmatter) a shelf's skill page renders; past it the
 * page shows this much and links to SKILL.md, so `validate` warns (docs/pages.md, "Speed and caching").
 */
export const PAGE_BODY_MAX_CHARS = 64 * 1024;
export const MAX_COMPATIBILITY_CHARS = 500;
export const MAX_SELECTION_HINTS = 5;
export const MAX_SELECTION_HINT_CHARS = 200;

/** Top-level keys with a meaning: the specification's plus the seed extensions. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
  "version",
  "when_to_use",
  "when_not_to_use",
]);

/** Our documented extension keys (not in the Agent Skills specification). */
export const EXTENSION_FIELDS: readonly string[] = ["version", "when_to_use", "when_not_to_use"];

// semver.org's grammar, anchored at the true end (unlike Python's `$`, a trailing newline fails).
const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * Checks a `version` value as agentskills-core's validate_version does, with its messages.
 * Returns undefined when valid.
 */
export function versionProblem(node: unknown, value: unknown): string | undefined {
  if (typeof value !== "string") {
    return `version must be a quoted string, got ${pyTypeOfNode(node)} (${pyReprOfNode(node)}). Unquoted YAML reads 1.0 as a number and 2024-01-15 as a date — write version: "1.0.0"`;
  }
  if (!SEMVER_RE.test(value)) {
    return `version '${value}' is not valid semver. Expected MAJOR.MINOR.PATCH with optional pre-release and build metadata, e.g. '1.0.0', '2.1.0-rc.1', '1.0.0+build.5'`;
  }
  return undefined;
}

const TYPE_WORDS: Record<PyTypeName, string> = {
  str: "a string",
  int: "an integer",
  float: "a number",
  bool: "a boolean",
  NoneType: "empty (null)",
  date: "a date",
  datetime: "a timestamp",
  list: "a list",
  dict: "a mapping",
};

/** Explains why a text field is not a string, naming the YAML 1.1 cause and the fix. */
function notAStringMessage(field: string, node: unknown): string {
  const type = pyTypeOfNode(node);
  const source = isScalar(node) ? String(node.source ?? "") : "";
  if (type === "bool" || type === "int" || type === "float" || type === "date" || type === "datetime") {
    return `${field} must be a string, but the unquoted YAML scalar ${JSON.stringify(source)} became ${TYPE_WORDS[type]}; quote it: ${field}: "${source}"`;
  }
  if (type === "NoneType") return `${field} is empty; give it a text value`;
  return `${field} must be a string, got ${TYPE_WORDS[type]}`;
}

/**
 * Validates a whole skill folder: its SKILL.md (validateSkillMd) and its file tree (the rules of
 * tree-rules.ts, as problems of field `files`), every problem at once. The one check `validate`,
 * `build` and every other command run, so what one accepts the others accept.
 * @param where how a missing SKILL.md names the folder (its path on disk, say); the folder name by default
 * @example validateSkillFolder("code-review", files).ok
 */
export function validateSkillFolder(folderName: string, files: readonly SkillFile[], where: string = folderName): SkillValidation {
  const skillMd = files.find((f) => f.path === "SKILL.md");
  const validation: SkillValidation = skillMd
    ? validateSkillMd(folderName, skillMd.bytes)
    : {
        ok: false,
        problems: [{ skill: folderName, field: "SKILL.md", severity: "error", message: `no SKILL.md in ${where}; a skill folder needs one at its root` }],
      };
  for (const message of treeProblems(files.map((f) => ({ path: f.path, size: f.bytes.length })))) {
    validation.problems.push({ skill: folderName, field: "files", severity: "error", message });
  }
  return { ...validation, ok: !validation.problems.some((p) => p.severity === "error") };
}

/**
 * Validates SKILL.md bytes for the skill folder `folderName`.
 * @example validateSkillMd("code-review", bytes).problems
 */
export function validateSkillMd(folderName: string, bytes: Uint8Array): SkillValidation {
  const problems: Problem[] = [];
  const add = (field: string, message: string, severity: Severity = "error") => problems.push({ skill: folderName, field, severity, message });
  const done = (extra: Partial<SkillValidation> = {}): SkillValidation => ({
    ok: !problems.some((p) => p.severity === "error"),
    problems,
    ...extra,
  });

  let text: string;
  try {
    text = decodeSkillMd(bytes);
  } catch (error) {
    add("SKILL.md", (error as Error).message);
    return done();
  }

  // Portability: clients hash and parse the raw bytes we serve with their own rules.
  if (text.charCodeAt(0) === 0xfeff) {
    add(
      "SKILL.md",
      "SKILL.md starts with a byte-order mark (BOM); clients that split at the first '---' then see no frontmatter. Save the file as UTF-8 without a BOM",
    );
  }
  const cr = text.indexOf("\r");
  if (cr !== -1) {
    const line = text.slice(0, cr).split("\n").length;
    add(
      "SKILL.md",
      `SKILL.md contains a carriage return (CR) on line ${line}; clients keep CRs, so bodies and hashes differ between them. Convert the file to LF line endings`,
    );
  }

  let parsed: ParsedSkillMd;
  try {
    parsed = parseSkillMd(text);
  } catch (error) {
    if (error instanceof SkillMdError) {
      add("SKILL.md", error.message);
      return done();
    }
    throw error;
  }
  checkFirstDelimiterSplit(text, parsed, add);

  const fm = parsed.frontmatter;
  const doc = parsed.yaml.document;
  const node = (key: string) => topLevelNode(doc, key);
  const has = (key: string) => Object.hasOwn(fm, key);

  if (parsed.body.length === 0) add("body", EMPTY_BODY_MESSAGE, "warning");
  else if (parsed.body.length > PAGE_BODY_MAX_CHARS) {
    add(
      "body",
      `the body is ${parsed.body.length} characters; the shelf's page shows its first ${PAGE_BODY_MAX_CHARS} and links to SKILL.md for the rest: move detail into reference files`,
      "warning",
    );
  }

  // Required text fields.
  let name = "";
  if (!has("name")) add("name", "name is required (lowercase letters, digits and hyphens; the folder name)");
  else if (typeof fm.name !== "string") add("name", notAStringMessage("name", node("name")));
  else {
    name = fm.name;
    const len = codePointLength(name);
    if (len === 0) add("name", "name is empty; use the skill's folder name");
    else if (len > MAX_NAME_CHARS) add("name", `name is ${len} characters, over the limit of ${MAX_NAME_CHARS}`);
    if (len > 0 && !SKILL_NAME_RE.test(name)) {
      add("name", `name ${JSON.stringify(name)} must use lowercase letters, digits and single hyphens (no leading, trailing or consecutive hyphens)`);
    }
    if (len > 0 && name !== folderName) {
      add("name", `name ${JSON.stringify(name)} must match its folder name ${JSON.stringify(folderName)}; rename one of them`);
    }
  }

  let description = "";
  if (!has("description")) add("description", "description is required: say what the skill does and when to use it");
  else if (typeof fm.description !== "string") add("description", notAStringMessage("description", node("description")));
  else {
    description = fm.description;
    const len = codePointLength(description);
    if (pyStrip(description).length === 0) add("description", "description is empty: say what the skill does and when to use it");
    else if (len > MAX_DESCRIPTION_CHARS) add("description", `description is ${len} characters, over the limit of ${MAX_DESCRIPTION_CHARS}`);
  }

  // Optional spec fields.
  let license: string | undefined;
  if (has("license")) {
    if (typeof fm.license !== "string") add("license", notAStringMessage("license", node("license")));
    else license = fm.license;
  }
  let compatibility: string | undefined;
  if (has("compatibility")) {
    if (typeof fm.compatibility !== "string") add("compatibility", notAStringMessage("compatibility", node("compatibility")));
    else {
      compatibility = fm.compatibility;
      const len = codePointLength(compatibility);
      if (len > MAX_COMPATIBILITY_CHARS) add("compatibility", `compatibility is ${len} characters, over the limit of ${MAX_COMPATIBILITY_CHARS}`);
      else if (pyStrip(compatibility).length === 0)
        add("compatibility", "compatibility is empty; remove it or describe the environment the skill needs", "warning");
      add("compatibility", REGISTRY_CONFLICT("compatibility", "a mapping"), "warning");
    }
  }

  let allowedTools: string[] | undefined;
  if (has("allowed-tools")) {
    const v = fm["allowed-tools"];
    if (typeof v === "string") {
      allowedTools = v.split(/\s+/).filter((t) => t.length > 0);
      add("allowed-tools", REGISTRY_CONFLICT("allowed-tools", "a list"), "warning");
    } else if (Array.isArray(v) && v.every((t) => typeof t === "string")) {
      allowedTools = (v as string[]).map((t) => t.trim()).filter((t) => t.length > 0);
      add("allowed-tools", ALLOWED_TOOLS_LIST_MESSAGE, "warning");
    } else add("allowed-tools", "allowed-tools must be a space-separated string of tool names, e.g. allowed-tools: Read Grep Bash(git:*)");
  }

  let metadata: Record<string, unknown> = {};
  let tags: string[] = [];
  let requiresMcp: string[] = [];
  let requiresTools: string[] = [];
  if (has("metadata")) {
    const mNode = node("metadata");
    if (!isMap(mNode)) {
      add("metadata", `metadata must be a mapping of string keys to values, got ${TYPE_WORDS[pyTypeOfNode(mNode)]}`);
    } else {
      metadata = fm.metadata as Record<string, unknown>;
      for (const { key } of mapPairs(mNode)) {
        if (pyTypeOfNode(key) !== "str") {
          add("metadata", `metadata key ${isScalar(key) ? String(key.source) : "?"} must be a string; quote it`);
        }
      }
      checkMetadataValues(mNode, add);
      tags = readTags(metadata, add);
      requiresMcp = readRequirements("requires_mcp", metadata, add);
      requiresTools = readRequirements("requires_tools", metadata, add);
    }
  }

  // Seed extensions.
  let version: string | undefined;
  if (has("version")) {
    const message = versionProblem(node("version"), fm.version);
    if (message) add("version", message);
    else version = fm.version as string;
  }
  const whenToUse = readSelectionHints("when_to_use", fm, node, add);
  const whenNotToUse = readSelectionHints("when_not_to_use", fm, node, add);

  const unknown = Object.keys(fm)
    .filter((k) => !KNOWN_FIELDS.has(k))
    .sort();
  for (const key of unknown) {
    add(key, `unknown top-level field ${JSON.stringify(key)} is ignored; move custom data under metadata:`, "warning");
  }

  for (const difference of yamlReadingDifferences(parsed.frontmatterText, fm)) {
    add(difference.path || "frontmatter", yamlVersionsMessage(difference), "warning");
  }

  const metadataOut: SkillMetadata = {
    name,
    description,
    when_to_use: whenToUse,
    when_not_to_use: whenNotToUse,
    tags,
    requires_mcp: requiresMcp,
    requires_tools: requiresTools,
    metadata,
    ...(version !== undefined ? { version } : {}),
    ...(license !== undefined ? { license } : {}),
    ...(compatibility !== undefined ? { compatibility } : {}),
    ...(allowedTools !== undefined ? { allowed_tools: allowedTools } : {}),
  };
  return done({ metadata: metadataOut, parsed });
}

// What each client refuses, named in the warnings so an author can choose (docs/compatibility.md,
// "What each client reads"). agentskills-core 0.7 disagrees with itself: its registry
// (validate_skill, so agentskills-http's register_all) wants `compatibility` a mapping and
// `allowed-tools` a list, while its snapshot and signing checks (build_skill_manifest) want
// strings, as the specification does. No value satisfies both, so the portable form is to leave
// the field out and say it in the body. Registration is atomic: one refused skill refuses its whole provider.

/** A string `compatibility` / `allowed-tools`: the specification's form, refused by agentskills-core's registry. */
const REGISTRY_CONFLICT = (field: string, expected: string) =>
  `${field} is a string, as the Agent Skills specification defines and every other client reads it (skills-ref, AbstractSkill, the MCP TypeScript SDK, agentskills-core's own snapshot and signing checks), but agentskills-core 0.7's registry (agentskills-http's register_all) refuses it, expecting ${expected}, and with it every skill its provider loads; no value satisfies both, so leave ${field} out and say it in the body if every client must load this shelf`;

const ALLOWED_TOOLS_LIST_MESSAGE =
  "allowed-tools is a YAML list: agentskills-core 0.7's registry (agentskills-http) requires a list and AbstractSkill reads either form, but the specification defines a space-separated string, and agentskills-core 0.7's snapshot and signing checks (build_skill_manifest) refuse it; leave allowed-tools out and say it in the body if every client must load this shelf";

/** A value YAML 1.1 and 1.2 read differently: Python references see one thing, MCP and JavaScript clients another. */
function yamlVersionsMessage({ path, yaml11, yaml12 }: YamlReadingDifference): string {
  if (path === "") return `YAML 1.2 readers (the MCP SDK, JavaScript clients) cannot read this frontmatter: ${String(yaml12)}`;
  return (
    `${path}: YAML 1.1 (PyYAML: agentskills-core, AbstractSkill) reads ${describeYamlValue(yaml11)}, YAML 1.2 (the MCP SDK, JavaScript clients) ` +
    `reads ${describeYamlValue(yaml12)}; quote the value so every client reads the same string`
  );
}

const EMPTY_BODY_MESSAGE =
  "SKILL.md has no instructions after the frontmatter; the specification, skills-ref and AbstractSkill accept that, but agentskills-core 0.7's registry (agentskills-http's register_all) refuses it (\"body is empty\"), and with it every skill its provider loads; write the body";

/** The specification's `metadata` maps strings to strings, and two clients enforce it. */
const METADATA_NOT_A_STRING = (key: string, what: string) =>
  `metadata.${key} is ${what}, but the specification's metadata maps strings to strings: the MCP TypeScript SDK 2.4's skills extension drops the skill from skills/list, and agentskills-core 0.7's snapshot and signing checks (build_skill_manifest) refuse it`;

/** The metadata keys OpenClaw reads its block from (the current name and its legacy ones). */
const OPENCLAW_KEYS: ReadonlySet<string> = new Set(["openclaw", "clawdbot", "clawdis"]);

type AddProblem = (field: string, message: string, severity?: Severity) => void;

/**
 * agentskills-core and skills-ref end the frontmatter at the first `---` anywhere after the
 * opening one, not at a `---` line. Where that would split differently, they see other fields.
 */
function checkFirstDelimiterSplit(text: string, parsed: ParsedSkillMd, add: AddProblem): void {
  if (text.charCodeAt(0) === 0xfeff || text.includes("\r")) return; // already reported above
  const firstClose = text.indexOf("---", 3);
  const lines = text.split("\n");
  const ours = lines.slice(0, parsed.closingLine - 1).reduce((sum, l) => sum + l.length + 1, 0);
  if (firstClose !== ours) {
    const line = text.slice(0, firstClose).split("\n").length;
    add(
      "SKILL.md",
      `line ${line} contains '---' inside the frontmatter; clients that end the frontmatter at the first '---' would cut it there. Rephrase or quote the value without three hyphens in a row`,
    );
  }
  const fmLines = parsed.frontmatterText.split("\n");
  const firstContent = fmLines.find((l) => l.trim().length > 0);
  if (firstContent !== undefined && /^[ \t]/.test(firstContent)) {
    add("SKILL.md", "the first frontmatter line is indented; clients that strip the frontmatter before parsing read different YAML. Remove the indentation");
  }
}

/**
 * Warns about each `metadata` value that is not a string (what two clients refuse), with the fix
 * for the keys we read; the values are still read below, so other shelves keep working here.
 */
function checkMetadataValues(mNode: unknown, add: AddProblem): void {
  for (const { key, value } of mapPairs(mNode)) {
    if (!isScalar(key) || typeof key.value !== "string") continue; // reported as a key problem
    const type = pyTypeOfNode(value);
    if (type === "str") continue;
    const name = key.value;
    const what = TYPE_WORDS[type];
    if (name === "tags") {
      add(
        "metadata.tags",
        `${METADATA_NOT_A_STRING(name, what)}; write the tags as one comma-separated string, tags: "review, security", which skillshelf's tag filter reads (agentskills-core's own tag filter reads only a list)`,
        "warning",
      );
    } else if (name === "requires_mcp" || name === "requires_tools") {
      add(
        `metadata.${name}`,
        `${METADATA_NOT_A_STRING(name, what)}; a string is one requirement to every client that reads it (AbstractSkill, skillshelf): keep one as a string and name the others in the body`,
        "warning",
      );
    } else if (OPENCLAW_KEYS.has(name)) {
      // OpenClaw reads this block only as an object (a JSON string there is ignored), so no form
      // is read by OpenClaw and kept by those two clients: the warning names the trade.
      add(
        `metadata.${name}`,
        `${METADATA_NOT_A_STRING(name, what)}; OpenClaw reads metadata.${name} only as an object (JSON5; a string there is ignored), so keep it only if the skill needs OpenClaw's gates and those two clients can do without the skill (docs/clients.md, "metadata.openclaw")`,
        "warning",
      );
    } else {
      add(`metadata.${name}`, `${METADATA_NOT_A_STRING(name, what)}; write the value as a string (quote it)`, "warning");
    }
  }
}

/** Tags: a comma-separated string (the portable form) or a list of strings. */
function readTags(metadata: Record<string, unknown>, add: AddProblem): string[] {
  if (!Object.hasOwn(metadata, "tags")) return [];
  const v = metadata.tags;
  if (typeof v === "string") return splitTags(v);
  if (!Array.isArray(v) || !v.every((t) => typeof t === "string")) {
    add("metadata.tags", 'metadata.tags must be a comma-separated string of tags, e.g. tags: "review, security"');
    return [];
  }
  return v as string[];
}

/**
 * The tags of a comma-separated `metadata.tags` string, blanks dropped.
 * @example splitTags("review, security,") // ["review", "security"]
 */
export function splitTags(text: string): string[] {
  return text
    .split(",")
    .map((t) => pyStrip(t))
    .filter((t) => t.length > 0);
}

/** requires_mcp / requires_tools: a bare string is one item; malformed values are dropped. */
function readRequirements(key: "requires_mcp" | "requires_tools", metadata: Record<string, unknown>, add: AddProblem): string[] {
  if (!Object.hasOwn(metadata, key)) return [];
  const v = metadata[key];
  if (typeof v === "string") {
    if (/[,\s]/.test(v.trim())) {
      add(
        `metadata.${key}`,
        `metadata.${key} ${JSON.stringify(v.trim())} is read as ONE requirement by AbstractSkill and skillshelf (a string is one item, never split); keep one name here and name the others in the body`,
        "warning",
      );
    }
    return v.trim() ? [v.trim()] : [];
  }
  if (Array.isArray(v)) {
    const kept = v.filter((x): x is string => typeof x === "string" && x.trim().length > 0).map((x) => x.trim());
    if (kept.length !== v.length) {
      add(`metadata.${key}`, `metadata.${key} has ${v.length - kept.length} item(s) that are not non-empty strings; they were dropped`, "warning");
    }
    return kept;
  }
  add(`metadata.${key}`, `metadata.${key} must be a string or a list of strings; the value was dropped`, "warning");
  return [];
}

function readSelectionHints(key: "when_to_use" | "when_not_to_use", fm: Record<string, unknown>, node: (key: string) => unknown, add: AddProblem): string[] {
  if (!Object.hasOwn(fm, key)) return [];
  const listNode = node(key);
  if (!isSeq(listNode)) {
    add(key, `field '${key}' must be list, got ${pyTypeOfNode(listNode)}; write it as a YAML list of short conditions`);
    return [];
  }
  const items = fm[key] as unknown[];
  if (items.length > MAX_SELECTION_HINTS) {
    add(
      key,
      `field '${key}' has ${items.length} entries, over the limit of ${MAX_SELECTION_HINTS}; it is charged on every turn, and a skill needing more conditions is probably two skills`,
    );
  }
  const out: string[] = [];
  items.forEach((item, i) => {
    if (typeof item !== "string") {
      add(key, `field '${key}' entry ${i} must be str, got ${pyTypeOfNode(listNode.items[i])}; quote it`);
    } else if (pyStrip(item).length === 0) {
      add(key, `field '${key}' entry ${i} is empty`);
    } else if (codePointLength(item) > MAX_SELECTION_HINT_CHARS) {
      add(key, `field '${key}' entry ${i} is ${codePointLength(item)} characters, over the limit of ${MAX_SELECTION_HINT_CHARS}`);
    } else out.push(item);
  });
  return out;
}
