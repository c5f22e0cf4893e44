// catalogSelection and catalogEntryData (the structured catalog the edge answers as JSON) against
// the goldens the real agentskills-core wrote: for every golden catalog, the selection lists the
// entries the library's text shows, in its order, with its shown/total, and each entry carries
// the text entry's fields.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/catalogs.json";
import {
  CatalogError,
  catalogEntryData,
  catalogSelection,
  renderCatalog,
  type CatalogOptions,
  type CatalogSkill,
} from "../../../src/core/disclosure/catalog.ts";

type GoldenMeta = {
  name: string;
  description: string;
  version?: string;
  when_to_use?: string[];
  when_not_to_use?: string[];
  metadata?: { tags?: unknown };
};

function toSkill(meta: GoldenMeta): CatalogSkill {
  const tags = meta.metadata?.tags;
  return {
    name: meta.name,
    description: meta.description,
    version: meta.version,
    when_to_use: meta.when_to_use,
    when_not_to_use: meta.when_not_to_use,
    tags: Array.isArray(tags) && tags.every((t) => typeof t === "string") ? tags : [],
  };
}

const registries = Object.fromEntries(
  Object.entries(golden.skills).map(([name, skills]) => [name, Object.values(skills as Record<string, GoldenMeta>).map(toSkill)]),
) as Record<string, CatalogSkill[]>;

function toOptions(args: Record<string, unknown>): CatalogOptions {
  return {
    format: args.format as CatalogOptions["format"],
    tags: args.tags as string[] | undefined,
    include: args.include as string[] | undefined,
    exclude: args.exclude as string[] | undefined,
    maxChars: args.max_chars as number | undefined,
    selectionHints: args.selection_hints as boolean | undefined,
    total: args.total as number | undefined,
  };
}

const xmlText = (text: string) => text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

/** The entries of a golden XML catalog, read back from its text. */
function xmlEntries(text: string) {
  return [...text.matchAll(/<skill>\n([\s\S]*?)\n {2}<\/skill>/g)].map(([, inner]) => {
    const field = (tag: string) => inner!.match(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`))?.[1];
    const hints = (tag: string) => {
      const block = inner!.match(new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n {4}</${tag}>`))?.[1];
      return block === undefined ? [] : [...block.matchAll(/<case>([\s\S]*?)<\/case>/g)].map((m) => xmlText(m[1]!));
    };
    return {
      name: xmlText(field("name")!),
      description: xmlText(field("description") ?? ""),
      version: field("version") === undefined ? null : xmlText(field("version")!),
      when_to_use: hints("when_to_use"),
      when_not_to_use: hints("when_not_to_use"),
    };
  });
}

/** Shown and total as the golden text states them (a catalog that states none shows all it has). */
function statedCounts(text: string, format: string, entries: number): { shown: number; total: number } {
  const stated = format === "xml" ? text.match(/shown="(\d+)" total="(\d+)"/) : text.match(/showing (\d+) of (\d+) skills/);
  return stated ? { shown: Number(stated[1]), total: Number(stated[2]) } : { shown: entries, total: entries };
}

const rendered = golden.cases.filter((c) => !("error" in c && c.error));

describe.each(rendered)("catalogSelection: $name", (c) => {
  it("lists the entries the library's catalog shows, with its counts", () => {
    const options = toOptions(c.args);
    const selection = catalogSelection(registries[c.registry]!, options);
    const names = options.format === "markdown" ? [...c.output.matchAll(/^## (.*)$/gm)].map((m) => m[1]) : xmlEntries(c.output).map((e) => e.name);
    expect(selection.skills.map((s) => s.name)).toEqual(names);
    const counts = statedCounts(c.output, options.format ?? "xml", names.length);
    expect({ shown: selection.shown, total: selection.total }).toEqual(counts);
    expect(selection.truncated).toBe(counts.shown < counts.total);
  });
});

describe.each(rendered.filter((c) => (c.args as { format?: string }).format === "xml"))("catalogEntryData: $name", (c) => {
  it("carries what the library's XML entry carries", () => {
    const options = toOptions(c.args);
    const hints = options.selectionHints ?? true;
    const data = catalogSelection(registries[c.registry]!, options).skills.map((s) => catalogEntryData(s, hints));
    const fromText = xmlEntries(c.output).map((e) => (hints ? e : { name: e.name, description: e.description, version: e.version }));
    expect(data).toEqual(fromText);
  });
});

describe("catalogSelection", () => {
  it("fits max_chars in the format asked for, so xml and markdown can show different entries", () => {
    const skills = registries.six!;
    const budget = [...renderCatalog(skills, { format: "markdown" })].length - 1;
    const shownBy = (format: "xml" | "markdown") => {
      const text = renderCatalog(skills, { format, maxChars: budget });
      return format === "xml" ? xmlEntries(text).map((e) => e.name) : [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    };
    const asXml = catalogSelection(skills, { maxChars: budget });
    const asMarkdown = catalogSelection(skills, { format: "markdown", maxChars: budget });
    expect(asXml.skills.map((s) => s.name)).toEqual(shownBy("xml"));
    expect(asMarkdown.skills.map((s) => s.name)).toEqual(shownBy("markdown"));
    expect(asXml.shown).toBeLessThan(asMarkdown.shown);
  });

  it("throws the catalog's errors", () => {
    const skills = registries.six!;
    expect(() => catalogSelection(skills, { include: ["ghost"] })).toThrow(CatalogError);
    expect(() => catalogSelection(skills, { maxChars: 3 })).toThrow(/cannot hold the smallest possible catalog/);
    expect(() => catalogSelection(skills, { format: "html" as never })).toThrow(/Unsupported format/);
  });

  it("drops blank hint cases and leaves the hints out when they are off", () => {
    const skill = { name: "a", description: "A.", version: "", when_to_use: ["x", " ", ""], when_not_to_use: undefined };
    expect(catalogEntryData(skill, true)).toEqual({ name: "a", description: "A.", version: null, when_to_use: ["x"], when_not_to_use: [] });
    expect(catalogEntryData({ name: "b" }, false)).toEqual({ name: "b", description: "", version: null });
  });
});
