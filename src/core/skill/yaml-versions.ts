// Where YAML 1.1 and YAML 1.2 read one frontmatter differently. The Python references (PyYAML:
// agentskills-core, AbstractSkill) read YAML 1.1; MCP clients (the SDK's SkillsClient compares an
// entry's frontmatter with its own reading) and JavaScript tools read YAML 1.2. Unquoted `yes`,
// `0755`, `1_000`, `1:20` and dates are the usual suspects; validate warns about each so the
// author quotes the value and every client reads the same thing.
import { parse } from "yaml";

/** One value two YAML versions read differently; `path` is like `metadata.tags[0]`. */
export interface YamlReadingDifference {
  path: string;
  yaml11: unknown;
  yaml12: unknown;
}

/** Aliases allowed in the YAML 1.2 reading, as in the 1.1 one (python-compat/yaml11.ts). */
const MAX_ALIASES = 100;

/**
 * The values the YAML 1.2 core schema reads differently from `yaml11` (the frontmatter as PyYAML
 * reads it, Dates for timestamps). A frontmatter YAML 1.2 cannot read at all is one difference
 * at the root whose `yaml12` is the error message.
 * @example yamlReadingDifferences("v: yes\n", { v: true }) // => [{ path: "v", yaml11: true, yaml12: "yes" }]
 */
export function yamlReadingDifferences(frontmatterText: string, yaml11: Readonly<Record<string, unknown>>): YamlReadingDifference[] {
  let yaml12: unknown;
  try {
    yaml12 = parse(frontmatterText, { version: "1.2", schema: "core", merge: false, uniqueKeys: false, maxAliasCount: MAX_ALIASES, logLevel: "silent" });
  } catch (error) {
    return [{ path: "", yaml11, yaml12: (error as Error).message }];
  }
  const out: YamlReadingDifference[] = [];
  compare("", yaml11, yaml12, out);
  return out;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function compare(path: string, a: unknown, b: unknown, out: YamlReadingDifference[]): void {
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, item] of a.entries()) compare(`${path}[${i}]`, item, b[i], out);
    return;
  }
  if (isMapping(a) && isMapping(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const child = path === "" ? key : `${path}.${key}`;
      if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) out.push({ path: child, yaml11: a[key], yaml12: b[key] });
      else compare(child, a[key], b[key], out);
    }
    return;
  }
  // Integral floats (`1.0`) are plain numbers in both readings; JSON cannot tell them apart either.
  if (Object.is(a, b) || (typeof a === "number" && a === b)) return;
  out.push({ path, yaml11: a, yaml12: b });
}

/**
 * How a reading is named in a warning: `the boolean true`, `the date 2024-01-01`, `the string "yes"`.
 * @example describeYamlValue(new Date("2024-01-01")) // => "the date 2024-01-01"
 */
export function describeYamlValue(value: unknown): string {
  if (value === undefined) return "nothing (no such key)";
  if (value === null) return "null";
  if (value instanceof Date) return `the date ${Number.isNaN(value.getTime()) ? "(invalid)" : value.toISOString().replace(/T00:00:00\.000Z$/, "")}`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `the ${typeof value} ${String(value)}`;
}
