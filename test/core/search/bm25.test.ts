// The search index and its ranking (src/core/search/bm25.ts): the stored document's shape and
// determinism, scores checked against BM25F computed here from its definition, the ordering
// rules (ties by name), the query's bounds and the edge cases (only stopwords, repetition,
// Unicode), a malformed stored index refused, and the size of a 1,000-skill index.
import { describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../src/core/api/contract.ts";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import {
  BM25_K1,
  buildSearchIndex,
  FIELD_PARAMETERS,
  MAX_QUERY_TERMS,
  parseQuery,
  prepareSearchIndex,
  SEARCH_FIELDS,
  SEARCH_INDEX_SCHEMA,
  SearchIndexError,
  searchIndex,
  SearchQueryTooLongError,
  type SearchableSkill,
} from "../../../src/core/search/bm25.ts";
import { terms } from "../../../src/core/search/text.ts";

const skill = (name: string, description: string, extra: Partial<SearchableSkill> = {}): SearchableSkill => ({
  name,
  description,
  tags: [],
  when_to_use: [],
  sections: [],
  ...extra,
});

const SHELF: SearchableSkill[] = [
  skill("code-review", "Review a code change for correctness and write feedback.", {
    tags: ["review", "quality"],
    when_to_use: ["Asked to review a pull request or a diff."],
    sections: ["Before you read the diff", "Writing the feedback"],
  }),
  skill("incident-response", "Run a production incident from the first alert to a stable system.", {
    tags: ["incident", "on-call"],
    when_to_use: ["An alert fired and production is degraded."],
    sections: ["First five minutes", "Roles", "Severity"],
  }),
  skill("writing-postmortems", "Write a blameless postmortem after an incident, with a timeline and actions.", {
    sections: ["Timeline", "Action items", "The review meeting"],
  }),
  skill("commit-messages", "Write a git commit message that explains why a change was made."),
];

const run = (index: ReturnType<typeof prepareSearchIndex>, q: string, limit = 10) => searchIndex(index, parseQuery(q).terms, { limit });

/** BM25F from its definition, straight from the fields: per field, weight × tf / (1 − b + b·len/avglen), summed, then saturated. */
function referenceScores(skills: readonly SearchableSkill[], query: string): Map<string, number> {
  const fieldsOf = (s: SearchableSkill) => [
    terms(s.name),
    terms(s.tags.join(" ")),
    terms(s.description),
    terms(s.when_to_use.join(" ")),
    terms(s.sections.join(" ")),
  ];
  const all = skills.map(fieldsOf);
  const avg = SEARCH_FIELDS.map((_f, i) => all.reduce((sum, f) => sum + f[i]!.length, 0) / skills.length);
  const scores = new Map<string, number>();
  for (const term of new Set(parseQuery(query).terms)) {
    const df = all.filter((fields) => fields.some((f) => f.includes(term))).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (skills.length - df + 0.5) / (df + 0.5));
    skills.forEach((s, d) => {
      let tf = 0;
      SEARCH_FIELDS.forEach((field, i) => {
        const list = all[d]![i]!;
        const count = list.filter((t) => t === term).length;
        if (count === 0) return;
        const { weight, b } = FIELD_PARAMETERS[field];
        tf += (weight * count) / (1 - b + (b * list.length) / avg[i]!);
      });
      if (tf > 0) scores.set(s.name, (scores.get(s.name) ?? 0) + (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1));
    });
  }
  return scores;
}

describe("buildSearchIndex", () => {
  it("writes the documented shape: names sorted, per-field lengths and averages, gap-encoded postings", () => {
    const doc = buildSearchIndex(SHELF);
    expect(doc.schema).toBe(SEARCH_INDEX_SCHEMA);
    expect(doc.names).toEqual(["code-review", "commit-messages", "incident-response", "writing-postmortems"]);
    expect(doc.lengths[0]).toEqual([2, 2, 6, 5, 4]); // code-review: name, tags, description, when_to_use, sections
    expect(doc.avgdl[0]).toBe(2); // every name has two terms
    // "incident" is in incident-response (id 2) and writing-postmortems (id 3): ids 2, then a gap of 1.
    expect(doc.terms.incident!.filter((_v, i) => i % 2 === 0)).toEqual([2, 1]);
    expect(doc.terms.incident!.every((v) => Number.isInteger(v) && v > 0)).toBe(true);
  });

  it("gives the same bytes whatever the input order", () => {
    const reversed = [...SHELF].reverse();
    expect(canonicalJson(buildSearchIndex(reversed))).toEqual(canonicalJson(buildSearchIndex(SHELF)));
  });

  it("indexes an empty shelf, which matches nothing", () => {
    const index = prepareSearchIndex(buildSearchIndex([]));
    expect(run(index, "review")).toEqual([]);
  });

  it("keeps a 1,000-skill index well under 1 MB", () => {
    const words =
      "alert api archive audit backfill benchmark branch budget build cache canary changelog checklist cluster commit config container coverage cron dashboard database deploy diff docker endpoint error feature flag fixture gateway incident index latency lint lock log metric migration mock monitor network pagination patch pipeline profile queue rate refactor release retry review rollback schema secret security shard snapshot staging storage stream test timeout token trace upgrade vendor webhook worker".split(
        " ",
      );
    const pick = (i: number, k: number) => Array.from({ length: k }, (_v, j) => words[(i * 7 + j * 13) % words.length]!);
    const skills = Array.from({ length: 1000 }, (_v, i) =>
      skill(`${pick(i, 2).join("-")}-${i}`, `Handle ${pick(i, 8).join(" ")} work for team ${i % 17}, a description of typical length saying when to use it.`, {
        tags: pick(i + 3, 3),
        when_to_use: [`When the request mentions ${pick(i + 5, 3).join(" and ")}`],
        sections: Array.from({ length: 12 }, (_v, s) => `${pick(i + s, 2).join(" ")} step ${s}`),
      }),
    );
    const bytes = canonicalJson(buildSearchIndex(skills)).length;
    expect(bytes).toBeLessThan(512 * 1024);
  });
});

describe("searchIndex", () => {
  const index = prepareSearchIndex(buildSearchIndex(SHELF));

  it("scores as BM25F computed from its definition (frequencies are stored to hundredths)", () => {
    for (const q of ["review the diff", "incident timeline", "write a commit message", "production alert on call"]) {
      const expected = referenceScores(SHELF, q);
      const got = run(index, q);
      expect(new Set(got.map((h) => h.name)), q).toEqual(new Set(expected.keys()));
      for (const hit of got) expect(Math.abs(hit.score - expected.get(hit.name)!), `${q}: ${hit.name}`).toBeLessThan(0.02);
    }
  });

  it("ranks best first and leaves out skills matching no term", () => {
    expect(run(index, "the on-call alert fired").map((h) => h.name)).toEqual(["incident-response"]);
    const hits = run(index, "incident timeline");
    expect(hits.map((h) => h.name)).toEqual(["writing-postmortems", "incident-response"]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it("weighs a word in the name above the same word in a description", () => {
    const two = prepareSearchIndex(buildSearchIndex([skill("release-notes", "Write notes."), skill("notes-helper", "Cut a release.")]));
    expect(run(two, "release").map((h) => h.name)).toEqual(["release-notes", "notes-helper"]);
  });

  it("breaks ties by name, whatever order the skills were given in", () => {
    const twins = [
      skill("zeta-one", "Rotate the signing keys."),
      skill("alpha-two", "Rotate the signing keys."),
      skill("mid-three", "Rotate the signing keys."),
    ];
    for (const order of [twins, [...twins].reverse()]) {
      const hits = run(prepareSearchIndex(buildSearchIndex(order)), "rotate keys");
      expect(hits.map((h) => h.name)).toEqual(["alpha-two", "mid-three", "zeta-one"]);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    }
  });

  it("gives the same scores whatever the order of the query's words", () => {
    expect(run(index, "timeline incident review")).toEqual(run(index, "review incident timeline"));
  });

  it("honours limit and accept (the Worker leaves blocked skills out) without changing scores", () => {
    const all = run(index, "write review incident");
    expect(searchIndex(index, parseQuery("write review incident").terms, { limit: 2 })).toEqual(all.slice(0, 2));
    const accepted = searchIndex(index, parseQuery("write review incident").terms, { limit: 10, accept: (n) => n !== all[0]!.name });
    expect(accepted).toEqual(all.slice(1));
    expect(searchIndex(index, parseQuery("write review incident").terms, { limit: 0 })).toEqual([]);
  });

  it("matches nothing for a query of stopwords only, and an unknown word adds nothing", () => {
    expect(parseQuery("What is it that I should do about this?").terms).toEqual([]);
    expect(run(index, "What is it that I should do about this?")).toEqual([]);
    expect(run(index, "incident qwertyuiop")).toEqual(run(index, "incident"));
  });

  it("reads huge repetition as one term", () => {
    const q = "incident ".repeat(28);
    expect(q.length).toBeLessThanOrEqual(API_LIMITS.maxQueryChars);
    expect(parseQuery(q).terms).toEqual(["incident"]);
    expect(run(index, q)).toEqual(run(index, "incident"));
  });

  it("handles Unicode queries: other scripts match only themselves, emoji and symbols separate words", () => {
    const unicode = prepareSearchIndex(buildSearchIndex([...SHELF, skill("fehler-suche", "Fehler in der Straße finden, 日本語のテキスト.")]));
    expect(run(unicode, "STRASSE").map((h) => h.name)).toEqual(["fehler-suche"]);
    expect(run(unicode, "日本語のテキスト").map((h) => h.name)).toEqual(["fehler-suche"]);
    expect(run(unicode, "🚨incident🚨").map((h) => h.name)).toEqual(run(unicode, "incident").map((h) => h.name));
    expect(run(unicode, "\u0000\u200b\uffff")).toEqual([]);
  });
});

describe("parseQuery", () => {
  it("accepts exactly API_LIMITS.maxQueryChars characters and refuses one more", () => {
    expect(() => parseQuery("a".repeat(API_LIMITS.maxQueryChars))).not.toThrow();
    expect(() => parseQuery("a".repeat(API_LIMITS.maxQueryChars + 1))).toThrow(SearchQueryTooLongError);
  });

  it("ranks by at most MAX_QUERY_TERMS distinct terms, the first ones", () => {
    const words = Array.from({ length: 60 }, (_v, i) => `x${i}`);
    const parsed = parseQuery(words.join(" "));
    expect(parsed.terms).toHaveLength(MAX_QUERY_TERMS);
    expect(parsed.terms).toEqual(words.slice(0, MAX_QUERY_TERMS));
  });

  it("normalizes the text equal queries share: caseless, whitespace collapsed", () => {
    expect(parseQuery("  Flaky\tTESTS \n in CI ").text).toBe("flaky tests in ci");
    expect(parseQuery("Straße").text).toBe("strasse");
  });
});

describe("prepareSearchIndex", () => {
  const good = () => buildSearchIndex(SHELF) as unknown as Record<string, unknown>;

  it.each([
    ["not an object", () => null],
    ["another schema", () => ({ ...good(), schema: "skillshelf.search/2" })],
    ["unsorted names", () => ({ ...good(), names: ["b", "a", "c", "d"] })],
    ["duplicate names", () => ({ ...good(), names: ["a", "a", "b", "c"] })],
    ["a non-positive k1", () => ({ ...good(), k1: 0 })],
    ["terms as an array", () => ({ ...good(), terms: [] })],
  ])("refuses %s when opened", (_label, make) => {
    expect(() => prepareSearchIndex(make())).toThrow(SearchIndexError);
  });

  it.each([
    ["odd postings", () => ({ ...good(), terms: { x: [0, 5, 1] } })],
    ["empty postings", () => ({ ...good(), terms: { x: [] } })],
    ["a skill id past the names", () => ({ ...good(), terms: { x: [4, 100] } })],
    ["a repeated skill (gap 0)", () => ({ ...good(), terms: { x: [1, 100, 0, 100] } })],
    ["a negative gap", () => ({ ...good(), terms: { x: [2, 100, -1, 100] } })],
    ["a zero frequency", () => ({ ...good(), terms: { x: [1, 0] } })],
    ["a fractional frequency", () => ({ ...good(), terms: { x: [1, 1.5] } })],
    ["postings that are not a list", () => ({ ...good(), terms: { x: "1,100" } })],
  ])("refuses %s when a query first uses the term, and ranks by the other terms until then", (_label, make) => {
    const index = prepareSearchIndex(make());
    expect(() => searchIndex(index, ["x"], { limit: 10 })).toThrow(SearchIndexError);
    expect(() => searchIndex(index, ["x"], { limit: 10 })).toThrow(SearchIndexError);
    expect(searchIndex(index, ["y"], { limit: 10 })).toEqual([]);
  });

  it("decodes a term's postings once and keeps them", () => {
    const index = prepareSearchIndex(buildSearchIndex(SHELF));
    expect(index.postings("incident")).toBe(index.postings("incident"));
    expect(index.postings("constructor")).toBeUndefined();
    expect(index.postings("__proto__")).toBeUndefined();
  });

  it("reads back what buildSearchIndex wrote, through JSON", () => {
    const index = prepareSearchIndex(JSON.parse(new TextDecoder().decode(canonicalJson(buildSearchIndex(SHELF)))));
    expect(run(index, "incident")).toEqual(run(prepareSearchIndex(buildSearchIndex(SHELF)), "incident"));
  });
});
