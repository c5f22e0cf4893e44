// fast-check arbitraries for hostile skills, shared by the core fuzz tests (in workerd) and the
// CLI's (on disk): YAML frontmatter with aliases, anchors, tags, surrogate escapes, control
// characters and deep nesting; file trees with twins, dot segments, root names the archives and
// the static layout reserve, and names a tar header cannot hold. Runs are seeded so a failure
// reproduces; FUZZ_SEED and FUZZ_RUNS (read by fuzzOptions) widen a local run.
import fc from "fast-check";

/** A fixed seed and run count, overridable from the environment for a longer local hunt. */
export function fuzzOptions(seed: number, numRuns: number): { seed: number; numRuns: number } {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  return { seed: env.FUZZ_SEED ? Number(env.FUZZ_SEED) : seed, numRuns: env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : numRuns };
}

/** Plain scalars whose YAML 1.1 types surprise: booleans, octal, sexagesimal, timestamps, nulls. */
const TRICKY_PLAIN = [
  "yes",
  "No",
  "on",
  "OFF",
  "y",
  "~",
  "null",
  "0o17",
  "017",
  "0x1F",
  "1_000",
  "1:30",
  "1:30.5",
  ".inf",
  "-.INF",
  ".nan",
  "1e3",
  "1.0",
  "2024-01-15",
  "2024-13-45",
  "2001-12-14t21:59:43.10-05:00",
  "123456789012345678901234567890",
  "plain words",
  "a: b",
  "- item",
  "---",
  "...",
  "# comment",
  "@reserved",
  "`tick",
  "%percent",
];

/** Escapes of a double-quoted YAML string, lone surrogates and control characters among them. */
const ESCAPES = ["\\ud800", "\\udc00", "\\ud83d\\ude00", "\\U0001F600", "\\0", "\\x07", "\\e", "\\N", "\\_", "\\L", "\\P", "\\t", "\\u0085", '\\"', "\\\\"];

/** Raw characters YAML forbids or treats specially: C0 and C1 controls, separators, BOM, tab. */
const RAW_ODD = ["\u0007", "\u000c", "\u0085", "\u2028", "\u2029", "\ufeff", "\t", "\u0000", "\u007f", "\u00a0", "\u{1F600}", "e\u0301"];

const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);

const doubleQuoted = fc
  .array(
    fc.oneof({ weight: 4, arbitrary: word }, { weight: 2, arbitrary: fc.constantFrom(...ESCAPES) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_ODD) }),
    { maxLength: 5 },
  )
  .map((parts) => `"${parts.join("")}"`);
const singleQuoted = fc
  .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: fc.constantFrom("''", " ", ...RAW_ODD) }), { maxLength: 4 })
  .map((parts) => `'${parts.join("")}'`);
const tag = fc.constantFrom(
  "!!binary aGVsbG8=",
  "!!set {a, b}",
  "!!omap [a: 1]",
  "!!pairs [a: 1]",
  "!!str 1",
  '!!int "3"',
  "!!float x",
  "!custom v",
  "!!timestamp 2024-01-01",
  "!!null ''",
  "!!bool yes",
  "!!python/object:os.system ls",
  "!<tag:yaml.org,2002:str> s",
);

/** A YAML flow value, nested up to a few levels, with anchors and aliases among its parts. */
const flowValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...TRICKY_PLAIN.filter((s) => !/[:#\-@`%]/.test(s[0]!) && !s.includes(": "))),
    word,
    doubleQuoted,
    singleQuoted,
    tag,
    { weight: 1, arbitrary: fc.constantFrom("*a", "*b", "*undefined") },
    fc.tuple(fc.constantFrom("&a", "&b"), tie("value")).map(([anchor, v]) => `${anchor} ${v}`),
    fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
    fc
      .uniqueArray(fc.tuple(fc.oneof(word, doubleQuoted), tie("value")), { maxLength: 3, selector: ([k]) => k })
      .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
  ),
})).value;

/** Frontmatter lines that crashed a command before issue 11 was fixed. */
export const ONCE_CRASHED = ["x: &x [*x]", "m: &m\n  self: *m", 'x-s: "\\ud800 lone"', 'x-k: {"\\udc00": 1}', "x-b: !!binary aGVsbG8=", "x-t: !!set {a}"];

/** A SKILL.md that is valid but for one line that once crashed a command: where the build path is reached. */
export function onceCrashedSkillMd(name: string): fc.Arbitrary<string> {
  return fc
    .constantFrom(...ONCE_CRASHED)
    .map((line) => `---\nname: ${name}\ndescription: Does one thing well, for the fuzz tests.\n${line}\n---\n# Steps\n\nDo the thing.\n`);
}

/** One top-level frontmatter line (or block) beyond name and description. */
const extraEntry = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(word, flowValue).map(([k, v]) => `x-${k}: ${v}`) },
  { weight: 2, arbitrary: flowValue.map((v) => `metadata: {tags: [a, b], x: ${v}}`) },
  // What once crashed the build (issue 11), often enough that a few dozen shelves meet each.
  { weight: 3, arbitrary: fc.constantFrom(...ONCE_CRASHED) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "m: &m\n  <<: *m",
      "base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2",
      "? [a, b]\n: c",
      "__proto__: {polluted: 1}",
      "constructor: 1",
      "metadata:\n  __proto__: {x: 1}",
      "name: twice",
      "version: 1.0",
      'version: "1.0.0"',
      "when_to_use: [reviewing, 1, '']",
      "allowed-tools: [Read, Grep]",
      "license: yes",
      "compatibility: ''",
      "metadata: [not, a, map]",
      "metadata: {requires_mcp: github, tags: oops}",
      "%YAML 1.1",
      "...",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 120 }).map((depth) => `deep: ${"[".repeat(depth)}${"]".repeat(depth)}`) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 80 })
      .map((depth) => `deep:\n${Array.from({ length: depth }, (_, i) => `${"  ".repeat(i + 1)}k${i}:`).join("\n")} leaf`),
  },
);

/** A description value: mostly fine, sometimes a type, an escape or a control character. */
const description = fc.oneof(
  { weight: 4, arbitrary: fc.constant("Does one thing well, for the fuzz tests.") },
  { weight: 1, arbitrary: doubleQuoted },
  { weight: 1, arbitrary: singleQuoted },
  { weight: 1, arbitrary: fc.constantFrom(...TRICKY_PLAIN) },
  { weight: 1, arbitrary: tag },
  { weight: 1, arbitrary: flowValue },
);

/** Text spliced into an otherwise tidy document at a random place: junk the grammar never planned. */
const splice = fc.tuple(
  fc.nat(),
  fc.oneof(fc.constantFrom(...RAW_ODD, ...ESCAPES, "---", "\n---\n", "&", "*", "!", "{", "[", "\r\n", "\r"), fc.string({ maxLength: 6 })),
);

/**
 * A SKILL.md for a skill named `name`, as text: a frontmatter block built from the pieces above,
 * then a body, sometimes with junk spliced in anywhere.
 */
export function skillMdText(name: string): fc.Arbitrary<string> {
  return fc
    .record({
      description,
      extras: fc.uniqueArray(extraEntry, { maxLength: 3, selector: (entry) => entry.split(/[:\n]/)[0] }),
      body: fc.oneof(
        { weight: 6, arbitrary: fc.constant("# Steps\n\nDo the thing.\n") },
        { weight: 1, arbitrary: fc.constant("") },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      ),
      splices: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(splice, { minLength: 1, maxLength: 2 }) }),
      nameLine: fc.oneof({ weight: 6, arbitrary: fc.constant(`name: ${name}`) }, { weight: 1, arbitrary: flowValue.map((v) => `name: ${v}`) }),
    })
    .map(({ description, extras, body, splices, nameLine }) => {
      let text = `---\n${nameLine}\ndescription: ${description}\n${extras.map((e) => `${e}\n`).join("")}---\n${body}`;
      for (const [at, junk] of splices) {
        const i = at % (text.length + 1);
        text = text.slice(0, i) + junk + text.slice(i);
      }
      return text;
    });
}

/** A record file (advisories.yaml) with the same hostile pieces in and around its entries. */
export const advisoriesText: fc.Arbitrary<string> = fc
  .record({
    intent: fc.oneof(fc.constant("Helps."), doubleQuoted, flowValue),
    severity: fc.constantFrom("low", "medium", "high", "critical", "bogus", "[low]"),
    extra: fc.option(extraEntry, { nil: undefined }),
    splices: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(splice, { minLength: 1, maxLength: 1 }) }),
  })
  .map(({ intent, severity, extra, splices }) => {
    let text = `${extra ? `${extra}\n` : ""}advisories:\n- name: other\n  source: anywhere\n  official_intent: ${intent}\n  hidden_issue: Leaks.\n  severity: ${severity}\n  reference: https://example.com/a\n`;
    for (const [at, junk] of splices) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + junk + text.slice(i);
    }
    return text;
  });

/** Path segments that break rules (or nearly do): twins by case and normalization, reserved root names, dots, long names. */
const HOSTILE_SEGMENTS = [
  "skill.md",
  "a.md",
  "A.md",
  "caf\u00e9.md",
  "cafe\u0301.md",
  "CAF\u00c9.md",
  "index.json",
  "__proto__",
  "constructor",
  "7",
  "07",
  "x\\y.md",
  "bell\u0007.md",
  "lone\ud800.md",
  "emoji\u{1F600}.md",
  "run.py",
  "n".repeat(101),
  "\u20ac".repeat(40),
  ".hidden",
  ".DS_Store",
];
const FOLDERS = ["references", "References", "scripts", "assets", "d".repeat(150), "r\u00e9f", "re\u0301f"];

/** A path segment a file system can hold (no `/`, no NUL, not `.` or `..`, under 255 bytes). */
export const diskSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  { weight: 2, arbitrary: word.map((w) => `${w}.md`) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/[/\u0000]/.test(s) && s !== "." && s !== "..") },
);

/** A relative path a file system can hold: up to three folders, then a file name. */
export const diskPath: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.oneof(fc.constantFrom(...FOLDERS), word), { maxLength: 3 }), diskSegment)
  .map(([folders, name]) => [...folders, name].join("/"));

/** Any path a document could claim: a disk path, or one with dot segments, a leading slash, an empty segment. */
export const documentPath: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: diskPath },
  { weight: 1, arbitrary: fc.constantFrom("", "..", "../../../../outside.txt", "/etc/passwd", "a//b.md", "./a.md", "a/./b.md", "a/..", "SKILL.md/x") },
);

/** File bytes: small, sometimes empty, sometimes not UTF-8. */
export const fileBytes: fc.Arbitrary<Uint8Array> = fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(new TextEncoder().encode("# Notes\n")));
