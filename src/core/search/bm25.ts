// Ranking skills for a task description: BM25F over a skill's name, tags, description,
// when_to_use and section titles, with an index built once per generation at build time and
// stored with it (a plain JSON document, schema "skillshelf.search/1"), so a request only sums
// precomputed frequencies for a handful of query terms. Deterministic: the same index and query
// give the same scores and order anywhere (ties by name).
import { API_LIMITS } from "../api/contract.ts";
import { casefold } from "../python-compat/py-text.ts";
import { terms } from "./text.ts";

/** The index document's schema id; bump it when a reader could misread the old shape. */
export const SEARCH_INDEX_SCHEMA = "skillshelf.search/1";

/** The fields a skill is indexed by, in the order `lengths` lists them. */
export const SEARCH_FIELDS = ["name", "tags", "description", "when_to_use", "sections"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * How much one occurrence in each field counts (BM25F weight), and how strongly the field's
 * length discounts it (BM25's b; 0 none, 1 fully proportional).
 * - name ×3: the author's two- or three-word summary of the skill; a query word in it is the
 *   strongest sign of a match. Names are short and alike in length, so b is low.
 * - tags ×2: chosen keywords, few and short; b low for the same reason.
 * - description ×1: the baseline; long prose written for agents, full length normalization.
 * - when_to_use ×1: the same kind of prose as the description, aimed at triggering.
 * - sections ×0.5: heading titles say what the body covers, but a long body has many, several
 *   generic ("Summary", "Common mistakes"), so each counts half.
 */
export const FIELD_PARAMETERS: Readonly<Record<SearchField, { weight: number; b: number }>> = {
  name: { weight: 3, b: 0.3 },
  tags: { weight: 2, b: 0.3 },
  description: { weight: 1, b: 0.75 },
  when_to_use: { weight: 1, b: 0.75 },
  sections: { weight: 0.5, b: 0.75 },
};

/** BM25's term-frequency saturation: the usual 1.2 (a third mention adds little). */
export const BM25_K1 = 1.2;

/** Frequencies are stored as integers in hundredths (compact JSON, exact canonical form). */
const FREQUENCY_SCALE = 100;

/** Most distinct terms a query is ranked by; later ones are ignored (a query is at most maxQueryChars anyway). */
export const MAX_QUERY_TERMS = 32;

/** What the index needs from a skill: its listing fields and its section titles (none for an entry without an outline). */
export interface SearchableSkill {
  name: string;
  description: string;
  tags: readonly string[];
  when_to_use: readonly string[];
  sections: readonly string[];
}

/**
 * The stored index. A skill is its position in `names` (sorted bytewise). Each term's postings
 * are flat pairs: the gap from the previous skill id (the first is the id itself) and the
 * skill's BM25F pseudo-frequency of the term (Σ weight·tf / length norm, per field) × 100.
 */
export interface SearchIndexDocument {
  schema: typeof SEARCH_INDEX_SCHEMA;
  k1: number;
  fields: Record<SearchField, { weight: number; b: number }>;
  names: string[];
  /** Per skill, its number of terms in each field, in SEARCH_FIELDS order. */
  lengths: number[][];
  /** Average number of terms per field over all skills (avgdl), in SEARCH_FIELDS order. */
  avgdl: number[];
  terms: Record<string, number[]>;
}

/** A stored index that does not have the documented shape. */
export class SearchIndexError extends Error {
  constructor(message: string) {
    super(`search index: ${message}`);
    this.name = "SearchIndexError";
  }
}

/** A query over the API's length limit. */
export class SearchQueryTooLongError extends Error {
  readonly length: number;
  constructor(length: number) {
    super(`the query is ${length} characters; at most ${API_LIMITS.maxQueryChars} are accepted`);
    this.name = "SearchQueryTooLongError";
    this.length = length;
  }
}

function fieldTerms(skill: SearchableSkill): string[][] {
  // List items are joined by a line break, which separates tokens like any non-alphanumeric.
  return [terms(skill.name), terms(skill.tags.join("\n")), terms(skill.description), terms(skill.when_to_use.join("\n")), terms(skill.sections.join("\n"))];
}

/**
 * Builds the index of a set of skills (names unique). Deterministic: equal input gives equal
 * JSON, whatever the input order.
 * @example const index = buildSearchIndex([{ name: "code-review", description: "Review a diff.", tags: [], when_to_use: [], sections: [] }])
 */
export function buildSearchIndex(skills: readonly SearchableSkill[]): SearchIndexDocument {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const perSkill = sorted.map(fieldTerms);
  const lengths = perSkill.map((fields) => fields.map((f) => f.length));
  const avgdl = SEARCH_FIELDS.map((_f, i) => (sorted.length ? lengths.reduce((sum, l) => sum + l[i]!, 0) / sorted.length : 0));
  const postings = new Map<string, number[]>();
  perSkill.forEach((fields, id) => {
    const weighted = new Map<string, number>();
    fields.forEach((list, i) => {
      if (list.length === 0) return;
      const { weight, b } = FIELD_PARAMETERS[SEARCH_FIELDS[i]!];
      // BM25F: each field's counts are length-normalized against that field's average, then weighted.
      const norm = 1 - b + (b * list.length) / avgdl[i]!;
      for (const term of list) weighted.set(term, (weighted.get(term) ?? 0) + weight / norm);
    });
    for (const [term, frequency] of weighted) {
      const list = postings.get(term) ?? [];
      list.push(id, Math.max(1, Math.round(frequency * FREQUENCY_SCALE)));
      postings.set(term, list);
    }
  });
  // Ids ascend within a term (skills were visited in order), so gaps are non-negative.
  for (const list of postings.values()) {
    for (let i = list.length - 2; i >= 2; i -= 2) list[i] = list[i]! - list[i - 2]!;
  }
  return {
    schema: SEARCH_INDEX_SCHEMA,
    k1: BM25_K1,
    fields: { ...FIELD_PARAMETERS },
    names: sorted.map((s) => s.name),
    lengths,
    avgdl,
    terms: Object.fromEntries([...postings].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/** One term's postings, decoded: skill ids ascending and their pseudo-frequencies. */
export interface Postings {
  ids: Uint32Array;
  frequencies: Float64Array;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/**
 * An index ready for queries. A term's postings are decoded (and checked) the first time a query
 * asks for them, then kept: a request needs a handful of terms, so opening a 1,000-skill index
 * costs its JSON parse, not a pass over every posting.
 */
export class PreparedSearchIndex {
  readonly names: readonly string[];
  readonly k1: number;
  readonly #stored: Readonly<Record<string, unknown>>;
  readonly #decoded = new Map<string, Postings>();

  constructor(names: readonly string[], k1: number, stored: Readonly<Record<string, unknown>>) {
    this.names = names;
    this.k1 = k1;
    this.#stored = stored;
  }

  /**
   * The term's postings; undefined when no skill has the term.
   * @throws SearchIndexError when the stored postings are malformed
   */
  postings(term: string): Postings | undefined {
    const known = this.#decoded.get(term);
    if (known) return known;
    if (!Object.hasOwn(this.#stored, term)) return undefined;
    const decoded = decodePostings(term, this.#stored[term], this.names.length);
    this.#decoded.set(term, decoded);
    return decoded;
  }
}

function decodePostings(term: string, list: unknown, skillCount: number): Postings {
  if (!Array.isArray(list) || list.length === 0 || list.length % 2 !== 0)
    throw new SearchIndexError(`postings of ${JSON.stringify(term)} must be non-empty pairs`);
  const count = list.length / 2;
  const ids = new Uint32Array(count);
  const frequencies = new Float64Array(count);
  let id = 0;
  for (let i = 0; i < count; i++) {
    const gap: unknown = list[2 * i];
    const frequency: unknown = list[2 * i + 1];
    if (!isCount(gap) || (i > 0 && gap === 0) || !isCount(frequency) || frequency === 0)
      throw new SearchIndexError(`postings of ${JSON.stringify(term)} are malformed`);
    id += gap;
    if (id >= skillCount) throw new SearchIndexError(`postings of ${JSON.stringify(term)} name skill ${id} of ${skillCount}`);
    ids[i] = id;
    frequencies[i] = frequency / FREQUENCY_SCALE;
  }
  return { ids, frequencies };
}

/**
 * Checks a stored index's shape (schema, names, k1, terms) and opens it for queries; each
 * term's postings are checked when first used. Throws SearchIndexError on a document that is
 * not a skillshelf.search/1 index.
 * @example const prepared = prepareSearchIndex(JSON.parse(text))
 */
export function prepareSearchIndex(json: unknown): PreparedSearchIndex {
  const doc = json as Partial<SearchIndexDocument> | null;
  if (typeof doc !== "object" || doc === null || doc.schema !== SEARCH_INDEX_SCHEMA) throw new SearchIndexError(`not a ${SEARCH_INDEX_SCHEMA} document`);
  const { names, k1, terms: stored } = doc;
  if (!Array.isArray(names) || !names.every((n, i) => typeof n === "string" && (i === 0 || names[i - 1]! < n)))
    throw new SearchIndexError("names must be strings, sorted and unique");
  if (typeof k1 !== "number" || !(k1 > 0) || k1 > 10) throw new SearchIndexError("k1 must be a positive number");
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) throw new SearchIndexError("terms must be an object");
  return new PreparedSearchIndex(names, k1, stored);
}

/** A query as the ranking reads it. */
export interface SearchQuery {
  /** The query's text in caseless form, whitespace collapsed: what equal queries share. */
  text: string;
  /** Its distinct terms in order of first appearance, at most MAX_QUERY_TERMS; empty when it has only stopwords. */
  terms: string[];
}

/**
 * Reads a query: over API_LIMITS.maxQueryChars (UTF-16 code units) it throws
 * SearchQueryTooLongError; otherwise its caseless text and distinct terms.
 * @example parseQuery("Reviewing  the PR") // => { text: "reviewing the pr", terms: ["review", "pr"] }
 */
export function parseQuery(query: string): SearchQuery {
  if (query.length > API_LIMITS.maxQueryChars) throw new SearchQueryTooLongError(query.length);
  const text = casefold(query.normalize("NFD")).normalize("NFC").trim().split(/\s+/u).join(" ");
  return { text, terms: [...new Set(terms(text))].slice(0, MAX_QUERY_TERMS) };
}

/** One ranked skill. */
export interface SearchHit {
  name: string;
  score: number;
}

/** Options for {@link searchIndex}. */
export interface SearchOptions {
  /** Most hits returned. */
  limit: number;
  /** Keeps only skills this accepts (the Worker: the ones servable now); all by default. */
  accept?: (name: string) => boolean;
}

/**
 * Ranks the index's skills for a query's terms (from {@link parseQuery}): BM25F, score desc,
 * ties by name; skills matching no term are not returned. Throws SearchIndexError when a
 * term's stored postings are malformed.
 * @example searchIndex(prepared, parseQuery("flaky test in CI").terms, { limit: 3 }) // => [{ name: "flaky-test-triage", score: 7.1 }, …]
 */
export function searchIndex(index: PreparedSearchIndex, queryTerms: readonly string[], options: SearchOptions): SearchHit[] {
  const n = index.names.length;
  const scores = new Float64Array(n);
  const touched: number[] = [];
  const k1 = index.k1;
  // Summed in a fixed term order, so the floating-point result does not depend on query order.
  for (const term of [...new Set(queryTerms)].sort()) {
    const posting = index.postings(term);
    if (!posting) continue;
    const df = posting.ids.length;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (let i = 0; i < df; i++) {
      const id = posting.ids[i]!;
      const tf = posting.frequencies[i]!;
      if (scores[id] === 0) touched.push(id);
      scores[id] = scores[id]! + (idf * tf * (k1 + 1)) / (tf + k1);
    }
  }
  // Ids follow name order, so the tie-break by id is the tie-break by name.
  touched.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const hits: SearchHit[] = [];
  for (const id of touched) {
    if (hits.length >= options.limit) break;
    const name = index.names[id]!;
    if (options.accept && !options.accept(name)) continue;
    hits.push({ name, score: scores[id]! });
  }
  return hits;
}
