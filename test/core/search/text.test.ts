// The search tokenizer (src/core/search/text.ts): caseless matching, splitting, stopwords, the
// light suffix normalization (checked against the examples Porter's paper gives for the steps it
// keeps) and the spelled-out abbreviations, applied to skills and queries alike.
import { describe, expect, it } from "vitest";
import { EQUIVALENT_TERMS, MAX_TOKEN_CHARS, stem, STOPWORDS, terms } from "../../../src/core/search/text.ts";

describe("stem", () => {
  // M. F. Porter, "An algorithm for suffix stripping" (1980), the examples of steps 1a, 1b and 1c.
  it.each([
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["ties", "ti"],
    ["caress", "caress"],
    ["cats", "cat"],
    ["feed", "feed"],
    ["plastered", "plaster"],
    ["bled", "bled"],
    ["motoring", "motor"],
    ["sing", "sing"],
    ["hopping", "hop"],
    ["tanned", "tan"],
    ["hissing", "hiss"],
    ["fizzed", "fizz"],
    ["failing", "fail"],
    ["filing", "file"],
    ["sized", "size"],
    ["happy", "happi"],
    ["sky", "sky"],
  ])("%s → %s (Porter's step 1 examples)", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  // Step 5 then removes a final e after a long stem, and -ll to -l; the full algorithm's results for these words.
  it.each([
    ["conflated", "conflat"],
    ["troubled", "troubl"],
    ["agreed", "agre"],
    ["probate", "probat"],
    ["rate", "rate"],
    ["cease", "ceas"],
    ["controll", "control"],
    ["roll", "roll"],
  ])("%s → %s (Porter's step 5)", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it("folds the inflections a task and a skill use for the same thing", () => {
    for (const group of [
      ["review", "reviews", "reviewing", "reviewed"],
      ["test", "tests", "testing", "tested"],
      ["release", "releases", "releasing", "released"],
      ["write", "writes", "writing"],
      ["deploy", "deploys", "deploying", "deployed"],
      ["policy", "policies"],
    ]) {
      expect(new Set(group.map(stem)).size, group.join(", ")).toBe(1);
    }
  });

  it("leaves short words, numbers and other scripts as they are", () => {
    for (const word of ["is", "v2", "k8s", "2026", "straße", "日本語", "ошибки"]) expect(stem(word)).toBe(word);
  });
});

describe("terms", () => {
  it("matches case-insensitively, with Python's casefold (ß → ss) and NFC/NFD spellings equal", () => {
    expect(terms("STRASSE Straße straße")).toEqual(Array(3).fill(stem("strasse")));
    expect(terms("Café")).toEqual(terms("Cafe\u0301"));
    expect(terms("ΣΊΣΥΦΟΣ")).toEqual(terms("σίσυφος"));
  });

  it("splits on anything not a letter, mark or digit: hyphenated names, paths, punctuation, emoji", () => {
    expect(terms("database-migration-safety")).toEqual(["databas", "migration", "safeti"]);
    expect(terms("src/core_search.ts🚨review")).toEqual(["src", "core", "search", "ts", "review"]);
    expect(terms("日本語のテキスト")).toEqual(["日本語のテキスト"]);
  });

  it("drops stopwords, one-character tokens and tokens longer than MAX_TOKEN_CHARS", () => {
    expect(terms("Please help me with the review of a PR, I need it by 5")).toEqual(["review", "pull", "request"]);
    expect(terms("The and of to")).toEqual([]);
    expect(terms(`x${"a".repeat(MAX_TOKEN_CHARS)} ${"b".repeat(MAX_TOKEN_CHARS)}`)).toEqual([stem("b".repeat(MAX_TOKEN_CHARS))]);
    for (const word of STOPWORDS) expect(terms(word), word).toEqual([]);
  });

  it("keeps repeats (a field's term frequency counts them)", () => {
    expect(terms("test tests testing")).toEqual(["test", "test", "test"]);
  });

  it("spells out abbreviations on both sides: PR meets pull request, CVE meets vulnerability", () => {
    expect(terms("my PRs")).toEqual(terms("my pull requests"));
    expect(terms("a CVE")).toEqual(terms("a vulnerability"));
    expect(terms("vulnerable packages")).toEqual([...terms("vulnerability"), "packag"]);
    expect(terms("ADR")).toEqual(terms("architecture decision record"));
    expect(terms("the prod db")).toEqual(terms("the production database"));
    // Every entry's terms are what the words it stands for become, so a skill that writes them out meets it.
    const spelledOut: Record<string, string> = {
      pr: "pull request",
      mr: "merge request",
      adr: "architecture decision record",
      cve: "vulnerability",
      vuln: "vulnerability",
      vulnerabl: "vulnerability",
      auth: "authentication authorization",
      authn: "authentication",
      authz: "authorization",
      login: "authentication",
      db: "database",
      prod: "production",
      outag: "incident",
      dep: "dependency",
      repo: "repository",
      k8s: "kubernetes",
    };
    expect([...EQUIVALENT_TERMS.keys()].sort()).toEqual(Object.keys(spelledOut).sort());
    for (const [abbreviation, spelled] of EQUIVALENT_TERMS) expect(spelled, abbreviation).toEqual(terms(spelledOut[abbreviation]!));
  });

  it("is the same for a text however it is cased or spaced", () => {
    expect(terms("  Reviewing\tthe\nPR  ")).toEqual(terms("reviewing the pr"));
  });
});
