// Catalogs against the goldens written by the real agentskills-core: every format, filter,
// hint setting, total, max_chars fit and error must be byte-identical.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/catalogs.json";
import { CatalogError, renderCatalog, type CatalogOptions, type CatalogSkill } from "../../../src/core/disclosure/catalog.ts";
import { codePointLength } from "../../../src/core/python-compat/py-text.ts";

type GoldenMeta = {
  name: string;
  description: string;
  version?: string;
  when_to_use?: string[];
  when_not_to_use?: string[];
  metadata?: { tags?: unknown };
};

/** The golden's frontmatter as catalog input; non-list tags count as untagged, as in the library. */
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

describe.each(golden.cases)("catalog golden: $name", (c) => {
  it("matches the library", () => {
    const skills = registries[c.registry]!;
    const options = toOptions(c.args);
    if ("error" in c && c.error) {
      expect(() => renderCatalog(skills, options)).toThrow(CatalogError);
      expect(() => renderCatalog(skills, options)).toThrow(c.error.message);
      try {
        renderCatalog(skills, options);
      } catch (error) {
        expect((error as Error).message).toBe(c.error.message);
      }
    } else {
      const text = renderCatalog(skills, options);
      expect(text).toBe(c.output);
      if (options.maxChars !== undefined) expect(codePointLength(text)).toBeLessThanOrEqual(options.maxChars);
    }
  });

  it("does not depend on input order", () => {
    if ("error" in c && c.error) return;
    const reversed = [...registries[c.registry]!].reverse();
    expect(renderCatalog(reversed, toOptions(c.args))).toBe(c.output);
  });
});

describe("catalog fitting", () => {
  // Checks the linear length model against real rendering at every max_chars from 0 to the
  // full length, for both formats: the fitted result must be the longest that fits.
  it.each(["xml", "markdown"] as const)("picks the longest fitting prefix at every max_chars (%s)", (format) => {
    const skills = registries.six!;
    const full = renderCatalog(skills, { format });
    const bySize = new Map<number, string>();
    for (let k = 0; k <= skills.length; k++) {
      const text = renderCatalog(skills, {
        format,
        include: [...skills]
          .map((s) => s.name)
          .sort()
          .slice(0, k),
        total: skills.length,
      });
      bySize.set(k, text);
    }
    for (let maxChars = 0; maxChars <= codePointLength(full) + 2; maxChars++) {
      let expected: string | undefined;
      for (let k = skills.length; k >= 0; k--) {
        const candidate = k === skills.length ? full : bySize.get(k)!;
        if (codePointLength(candidate) <= maxChars) {
          expected = candidate;
          break;
        }
      }
      if (expected === undefined) {
        expect(() => renderCatalog(skills, { format, maxChars })).toThrow(/cannot hold the smallest possible catalog/);
      } else {
        expect(renderCatalog(skills, { format, maxChars })).toBe(expected);
      }
    }
  });

  it("rejects non-integer limits and duplicate names", () => {
    expect(() => renderCatalog([], { maxChars: 1.5 })).toThrow(RangeError);
    expect(() => renderCatalog([], { total: Number.NaN })).toThrow(RangeError);
    const dup = [
      { name: "a", description: "x" },
      { name: "a", description: "y" },
    ];
    expect(() => renderCatalog(dup)).toThrow(/duplicate skill name 'a'/);
  });

  it("orders names by code point, not UTF-16 unit", () => {
    const skills = [
      { name: "\u{1f6a8}", description: "astral" },
      { name: "\uffff", description: "bmp" },
      { name: "b", description: "b" },
    ];
    const text = renderCatalog(skills, { format: "markdown" });
    expect(text.indexOf("## b")).toBeLessThan(text.indexOf("## \uffff"));
    expect(text.indexOf("## \uffff")).toBeLessThan(text.indexOf("## \u{1f6a8}"));
  });
});
