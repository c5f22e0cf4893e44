// Turning text into search terms, the same way for a skill's fields at build time and for a query
// at request time: canonical caseless form (Python's casefold between NFD and NFC), split on
// anything that is not a letter, mark or digit, drop stopwords and one-character tokens, then a
// light English suffix normalization (Porter's inflectional steps only) and a few spelled-out
// abbreviations, so "reviewing PRs" and "review a pull request" meet on the same terms.
import { casefold } from "../python-compat/py-text.ts";

/** Longest token kept, in UTF-16 code units: longer runs are identifiers or encoded data nobody types. */
export const MAX_TOKEN_CHARS = 64;

/**
 * Words that carry no topic in a task description or a skill's text. Small on purpose: BM25's
 * idf already discounts words every skill uses; this list only removes function words and the
 * politeness around a request ("please help me …"), so they cannot add noise matches.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about after all also am an and any are as at be been before being but by can could did do does doing done help " +
    "each for from get got had has have having he her here him his how i if in into is it its just let like me " +
    "more most my need needs no not now of off on once only or other our ours out over please same she should " +
    "so some such than that the their them then there these they this those through to too under until up us " +
    "very via want wants was we were what when where which while who whom why will with would you your yours"
  ).split(" "),
);

/**
 * Abbreviations and near-synonyms common in software work, each folded into the words the
 * shelf's skills spell out (keys and values are stems, as {@link stem} leaves them). Applied to
 * skills and queries alike, so "PR" in a query meets "pull request" in a description and "PR"
 * in a description meets "pull request" in a query. Kept short: each entry is an equivalence a
 * reader would not dispute, not a guess at related topics.
 */
export const EQUIVALENT_TERMS: ReadonlyMap<string, readonly string[]> = new Map<string, string[]>([
  ["pr", ["pull", "request"]],
  ["mr", ["merg", "request"]],
  ["adr", ["architectur", "decision", "record"]],
  ["cve", ["vulnerabiliti"]],
  ["vuln", ["vulnerabiliti"]],
  ["vulnerabl", ["vulnerabiliti"]],
  ["auth", ["authentication", "authorization"]],
  ["authn", ["authentication"]],
  ["authz", ["authorization"]],
  ["login", ["authentication"]],
  ["db", ["databas"]],
  ["prod", ["production"]],
  ["outag", ["incident"]],
  ["dep", ["dependenci"]],
  ["repo", ["repositori"]],
  ["k8s", ["kubernet"]],
]);

const TOKEN_RE = /[\p{L}\p{M}\p{N}]+/gu;
// The same tokens for ASCII text (which has no marks), several times faster than the Unicode classes.
const ASCII_TOKEN_RE = /[a-z0-9]+/g;
const ASCII_RE = /^[\x00-\x7f]*$/;
const ASCII_WORD_RE = /^[a-z]+$/;

/** What each token became (stemmed, then spelled out): tokens repeat across a shelf, so each is worked out once. */
const termsOfToken = new Map<string, readonly string[]>();
/** Tokens remembered before the map starts over (a bound on memory whatever the input). */
const TOKEN_MEMO_MAX = 50_000;

function termsOf(token: string): readonly string[] {
  let known = termsOfToken.get(token);
  if (known === undefined) {
    if (token.length < 2 || token.length > MAX_TOKEN_CHARS || STOPWORDS.has(token)) known = [];
    else {
      const stemmed = stem(token);
      known = EQUIVALENT_TERMS.get(stemmed) ?? [stemmed];
    }
    if (termsOfToken.size >= TOKEN_MEMO_MAX) termsOfToken.clear();
    termsOfToken.set(token, known);
  }
  return known;
}

/**
 * The terms of a text, in order, repeats kept (a field's term frequencies count them).
 * @example terms("Reviewing the PRs of 2 teams") // => ["review", "pull", "request", "team"]
 */
export function terms(text: string): string[] {
  const ascii = ASCII_RE.test(text);
  const folded = ascii ? text.toLowerCase() : casefold(text.normalize("NFD")).normalize("NFC");
  const out: string[] = [];
  for (const [token] of folded.matchAll(ascii ? ASCII_TOKEN_RE : TOKEN_RE)) out.push(...termsOf(token));
  return out;
}

/**
 * Folds inflections of an English word together: Porter's steps 1a–1c and 5 (plurals, -ed,
 * -ing, final -e and -ll), not the derivational steps 2–4, which conflate words that mean
 * different things here (a "general" skill is not about "generation"). Words that are not plain
 * ASCII letters (numbers, other scripts) are returned as they are.
 * @example stem("reviewing") // => "review"; stem("policies") === stem("policy") // "polici"
 */
export function stem(word: string): string {
  if (word.length <= 2 || !ASCII_WORD_RE.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return step5(w);
}

/** Porter's consonant test: not a vowel, and `y` only when it follows a vowel (or starts the word). */
function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's measure m: the number of vowel-consonant sequences in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsWithDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** Ends consonant-vowel-consonant, the last not w, x or y (a short syllable: hop, fil). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const last = w[n - 1];
  return last !== "w" && last !== "x" && last !== "y";
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  let stem: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) stem = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) stem = w.slice(0, -3);
  if (stem === undefined) return w;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  if (endsWithDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}
