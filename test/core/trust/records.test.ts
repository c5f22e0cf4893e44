// Record loading against abstractskill: whole files (TrustRegistry.load / load_catalog) and every
// entry on its own (from_dict), including the method-cap matrix. We refuse what it refuses, with
// its message, and we report every malformed entry where it stops at the first.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/abstractskill/records.json";
import golden_serialized from "../../goldens/abstractskill/serialized.json";
import {
  loadShelfRecords,
  assertRecordsValid,
  parseAdvisories,
  parseCatalog,
  parseGuidance,
  parseValidations,
  TrustRecordsError,
  type RecordFileResult,
} from "../../../src/core/trust/records.ts";
import {
  advisoryToDict,
  catalogEntryToDict,
  guidanceToDict,
  serializeAdvisories,
  serializeCatalog,
  serializeGuidance,
  serializeValidations,
  validationToDict,
} from "../../../src/core/trust/serialize.ts";

type Kind = "validations" | "advisories" | "guidance" | "catalog";
const PARSERS: Record<Kind, (text: string) => RecordFileResult<unknown>> = {
  validations: (t) => parseValidations(t),
  advisories: (t) => parseAdvisories(t),
  guidance: (t) => parseGuidance(t),
  catalog: (t) => parseCatalog(t),
};
const TO_DICT: Record<Kind, (e: never) => Record<string, unknown>> = {
  validations: validationToDict,
  advisories: advisoryToDict,
  guidance: guidanceToDict,
  catalog: catalogEntryToDict,
};
const toDicts = (kind: Kind, entries: unknown[]) => entries.map((e) => JSON.parse(JSON.stringify(TO_DICT[kind](e as never))));
// Our messages carry "<file>:<line>:<col>: <key>[i]: " before AbstractSkill's sentence.
const sentence = (message: string) => message.replace(/^[^:]+\.yaml(?::\d+:\d+)?: \w+\[\d+\]: /, "");

describe("whole record files match TrustRegistry.load / load_catalog", () => {
  for (const f of golden.files as {
    kind: Kind;
    label: string;
    text: string;
    load: { ok: boolean; entries?: unknown[]; error?: string; warnings: string[] };
    entries: { ok: boolean; entry?: unknown; error?: string }[] | null;
  }[]) {
    it(`${f.kind}: ${f.label}`, () => {
      const result = PARSERS[f.kind](f.text);
      // Deliberate difference (docs/compatibility.md): a non-empty file without its list key is
      // refused here; AbstractSkill only warns and loads zero entries.
      if (f.label === "no key") {
        expect(f.load).toMatchObject({ ok: true, entries: [] });
        expect(result.problems.map((p) => p.code)).toEqual(["missing_list_key"]);
        return;
      }
      if (f.load.ok) {
        expect(result.problems).toEqual([]);
        expect(toDicts(f.kind, result.entries)).toEqual(f.load.entries);
        // A missing key is loud (a warning) there and here.
        expect(result.warnings.length > 0).toBe(f.load.warnings.length > 0);
      } else {
        expect(result.problems.length).toBeGreaterThan(0);
      }
      if (f.entries) {
        // Every entry AbstractSkill refuses is reported at its index; nothing is skipped silently.
        const badIndexes = f.entries.flatMap((e, i) => (e.ok ? [] : [i]));
        const reported = [...new Set(result.problems.filter((p) => p.index !== null).map((p) => p.index))];
        expect(reported).toEqual(badIndexes);
        for (const i of badIndexes) {
          const first = result.problems.find((p) => p.index === i)!;
          expect(sentence(first.message)).toBe(f.entries[i]!.error);
          expect(first.line).toBeGreaterThan(0);
        }
      }
    });
  }
});

describe("single entries: the first rule AbstractSkill applies, with its message", () => {
  for (const e of golden.entries as { kind: Kind; text: string; result: { ok: boolean; entry?: unknown; error?: string } }[]) {
    it(`${e.kind}: ${e.text.split("\n")[1]}`, () => {
      const result = PARSERS[e.kind](e.text);
      if (e.result.ok) {
        expect(result.problems).toEqual([]);
        expect(toDicts(e.kind, result.entries)).toEqual([e.result.entry]);
      } else {
        expect(result.entries).toEqual([]);
        expect(sentence(result.problems[0]!.message)).toBe(e.result.error);
        expect(result.problems[0]).toMatchObject({ index: 0, line: 2, column: 3 });
      }
    });
  }
});

describe("method caps: what each method may grant", () => {
  for (const c of golden.method_caps as { method: string; level: string; entry: unknown; ok: boolean; error?: string }[]) {
    it(`${c.method} → ${c.level}: ${c.ok ? "grants" : "refused"}`, () => {
      const result = parseValidations(JSON.stringify({ validations: [c.entry] }));
      expect(result.problems.length === 0).toBe(c.ok);
      if (!c.ok) expect(sentence(result.problems[0]!.message)).toBe(c.error);
    });
  }
});

describe("serialization", () => {
  const dump = golden.pyyaml_dump as { text: string; entries: Record<string, unknown>[] };
  it("reads what PyYAML's safe_dump wrote (refresh_shelf.py style)", () => {
    const result = parseValidations(dump.text);
    expect(result.problems).toEqual([]);
    expect(toDicts("validations", result.entries)).toEqual(dump.entries);
  });
  it("round-trips validations and advisories through our writer unchanged", () => {
    const records = parseValidations(dump.text).entries;
    const text = serializeValidations(records, ["Generated by skillshelf attest; review the diff."]);
    expect(text.startsWith("# Generated by skillshelf attest")).toBe(true);
    expect(parseValidations(text).entries).toEqual(records);
    const advisories = parseAdvisories(
      (golden.files as { kind: string; label: string; text: string }[]).find((f) => f.label === "valid and withdrawn")!.text,
    ).entries;
    expect(parseAdvisories(serializeAdvisories(advisories)).entries).toEqual(advisories);
    expect(serializeAdvisories([])).toBe("advisories: []\n");
  });
  it("keeps strings that look like other YAML types as strings", () => {
    const [record] = parseValidations(dump.text).entries;
    const tricky = {
      ...record!,
      validated_at: "2026-07-11",
      notes: "yes",
      activation_description: '1e5 \u0085 \u2028 "q" \\ é 😀\ttab',
      evidence: { n: 1.5, small: 1.5e-7, list: ["on", null, true] },
    };
    const back = parseValidations(serializeValidations([tricky])).entries[0]!;
    expect(back).toEqual(tricky);
  });
});

describe("loading a shelf's records", () => {
  it("reports every problem across files and refuses the shelf", () => {
    const result = loadShelfRecords({
      validations: "validations:\n- 1\n- 2\n",
      advisories: "advisories:\n- {name: a}\n",
      guidance: new Uint8Array([0xff, 0xfe]),
    });
    expect(result.problems.map((p) => [p.file, p.index])).toEqual([
      ["validations.yaml", 0],
      ["validations.yaml", 1],
      ["advisories.yaml", 0],
      ["guidance.yaml", null],
    ]);
    expect(result.warnings).toEqual([]);
    expect(() => assertRecordsValid(result)).toThrow(TrustRecordsError);
  });
  it("treats absent files as empty, loudly", () => {
    const result = loadShelfRecords({});
    expect(result.problems).toEqual([]);
    expect(result.warnings).toHaveLength(3);
    expect(assertRecordsValid(result)).toEqual({ validations: [], advisories: [], guidance: [], catalog: null });
  });
  it("names the line of invalid YAML and refuses duplicate keys", () => {
    expect(parseValidations("validations: [\n").problems[0]).toMatchObject({ code: "invalid_yaml", index: null });
    expect(parseValidations("validations: []\nvalidations: []\n").problems[0]!.message).toMatch(/line 2/);
  });
  it("refuses control characters as PyYAML does", () => {
    expect(parseValidations("validations: []\n# bell \u0007\n").problems[0]).toMatchObject({ code: "invalid_yaml", line: 2 });
  });
  it("refuses an alias bomb, a self-referencing anchor, a lone surrogate and absurd nesting as problems, never throwing (issue 11)", () => {
    const bomb = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 10; i++)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`,
      );
    bomb.push("advisories: []");
    const entry = (intent: string) => `advisories:\n- name: x\n  source: s\n  official_intent: ${intent}\n  hidden_issue: h\n  severity: low\n  reference: r\n`;
    const cases: [string, RegExp][] = [
      [`${bomb.join("\n")}\n`, /^invalid YAML in advisories\.yaml: Excessive alias count .*refusing to expand aliases \(at most 1000\)$/],
      ["advisories: &a\n- *a\n", /^invalid YAML in advisories\.yaml: advisories\[0\] contains itself/],
      [entry('"\\ud800 lone"'), /^invalid YAML in advisories\.yaml: the string at advisories\[0\]\.official_intent holds a lone surrogate/],
      [`advisories: ${"[".repeat(100)}${"]".repeat(100)}\n`, /^invalid YAML in advisories\.yaml: advisories.* is nested more than 64 levels deep/],
      [`advisories: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`, /invalid YAML in advisories\.yaml.*: it is nested too deeply to read/],
    ];
    for (const [text, message] of cases) {
      const result = loadShelfRecords({ advisories: text });
      expect(
        result.problems.map((p) => [p.code, p.message]),
        text.slice(0, 40),
      ).toEqual([["invalid_yaml", expect.stringMatching(message)]]);
      expect(() => assertRecordsValid(result)).toThrow(TrustRecordsError);
    }
    // A self-reference through a mapping entry used to overflow the stack in the entry loader.
    const selfEntry = "advisories:\n- &e\n  name: x\n  source: s\n  official_intent: *e\n  hidden_issue: h\n  severity: low\n  reference: r\n";
    expect(parseAdvisories(selfEntry).problems[0]!.message).toMatch(/advisories\[0\]\.official_intent contains itself/);
  });
  it("reports absurd nesting the same however much stack the caller leaves (the parser's overflow point moves with it)", () => {
    const text = `advisories: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`;
    const problemsAt = (depth: number): unknown => (depth === 0 ? loadShelfRecords({ advisories: text }).problems : [problemsAt(depth - 1)].flat());
    const expected = problemsAt(0);
    expect(expected).toEqual([expect.objectContaining({ code: "invalid_yaml", line: null, column: null })]);
    for (const depth of [50, 500, 2000]) expect(problemsAt(depth), `with ${depth} frames above`).toEqual(expected);
  });
  it("refuses a catalog version that is not dotted-numeric", () => {
    expect(parseCatalog("version: 2026.1\nskills: []\n").problems[0]!.code).toBe("version_invalid");
    expect(parseCatalog("version: '2026.10.01'\nskills: []\n").version).toBe("2026.10.01");
  });
});

describe("abstractskill loads what we write", () => {
  // serialized.json holds the YAML our serializer wrote for fixed records, and what
  // abstractskill's TrustRegistry.load / load_catalog made of it (the generator refuses to
  // write it unless every record came back unchanged). Byte equality here keeps that proof
  // current: change the writer and the goldens must be regenerated, so Python re-checks it.
  const s = golden_serialized;
  it("the generator confirmed every file loads unchanged", () => {
    expect(s.loads_unchanged).toEqual({ validations: true, advisories: true, guidance: true, catalog: true, catalog_version: true });
  });
  it("our writer still produces exactly those bytes", () => {
    const header = ["Written by skillshelf (src/core/trust/serialize.ts)."];
    const v = parseValidations(JSON.stringify({ validations: s.inputs.validations }));
    const a = parseAdvisories(JSON.stringify({ advisories: s.inputs.advisories }));
    const g = parseGuidance(JSON.stringify({ guidance: s.inputs.guidance }));
    const c = parseCatalog(JSON.stringify(s.inputs.catalog));
    expect(serializeValidations(v.entries, header)).toBe(s.our_yaml.validations);
    expect(serializeAdvisories(a.entries, header)).toBe(s.our_yaml.advisories);
    expect(serializeGuidance(g.entries, header)).toBe(s.our_yaml.guidance);
    expect(serializeCatalog(c.version, c.entries, header)).toBe(s.our_yaml.catalog);
    // And our own loader reads them back to the same records.
    expect(parseValidations(s.our_yaml.validations).entries).toEqual(v.entries);
    expect(parseCatalog(s.our_yaml.catalog).entries).toEqual(c.entries);
  });
});

const HASH = "a".repeat(64);
const advisory = (extra: string) =>
  `advisories:\n- name: evil\n  source: upstream\n  official_intent: formats text\n  hidden_issue: exfiltrates keys\n  severity: critical\n  reference: https://example.test/a\n${extra}`;

describe("record files are loaded loudly", () => {
  it("refuses a non-empty file whose list key is misspelt, naming the key and position", () => {
    const text = advisory("").replace("advisories:", "advisory:");
    const result = parseAdvisories(text);
    expect(result.entries).toEqual([]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ code: "missing_list_key", line: 1, column: 1 });
    expect(result.problems[0]!.message).toMatch(/advisories\.yaml:1:1: no 'advisories' key \(keys: \['advisory'\]\)/);
    expect(parseValidations("validation: []\n").problems[0]!.code).toBe("missing_list_key");
    expect(parseGuidance("guide: []\n").problems[0]!.code).toBe("missing_list_key");
    expect(() => assertRecordsValid(loadShelfRecords({ advisories: text }))).toThrow(TrustRecordsError);
  });
  it("still only warns about an empty file", () => {
    const result = parseAdvisories("");
    expect(result.problems).toEqual([]);
    expect(result.warnings).toHaveLength(1);
  });
  it("warns about each unknown entry key with file:line:col and keeps the file loadable", () => {
    const result = parseAdvisories(advisory(`  tree_hsh: ${HASH}\n  stauts: withdrawn\n`));
    expect(result.problems).toEqual([]);
    expect(result.entries).toHaveLength(1);
    expect(result.entries[0]!.tree_hash).toBeNull();
    expect(result.warnings).toEqual([
      expect.stringMatching(/^advisories\.yaml:8:3: advisories\[0\]: unknown key 'tree_hsh' is ignored/),
      expect.stringMatching(/^advisories\.yaml:9:3: advisories\[0\]: unknown key 'stauts' is ignored/),
    ]);
    expect(parseValidations("validations:\n- {name: a, colour: red}\n").warnings[0]).toMatch(/^validations\.yaml:2:13: validations\[0\]: unknown key 'colour'/);
    expect(parseGuidance("guidance:\n- {guidance_id: g, title: t, risk_class: r, detail: d, severity: low, reference: x, extra: 1}\n").warnings).toHaveLength(
      1,
    );
    expect(loadShelfRecords({ advisories: advisory("  stauts: withdrawn\n") }).warnings).toContainEqual(expect.stringContaining("unknown key 'stauts'"));
  });
  it("names the line and column of a repeated advisory_id", () => {
    const one = advisory("  advisory_id: ADV-1\n");
    const text = `${one}${one.replace("advisories:\n", "")}`;
    const dup = parseAdvisories(text).problems;
    expect(dup).toHaveLength(1);
    expect(dup[0]).toMatchObject({ code: "duplicate_id", line: 9, column: 3 });
    expect(dup[0]!.message).toMatch(/^advisories\.yaml:9:3: duplicate advisory_id in advisories: 'ADV-1' \(first at line 2, column 3\)/);
  });
});
