// The audit corpus: every hostile skill written for it draws its intended rule at its intended
// severity, and no benign skill (the curated shelf, the public skills in test/fixtures/audit/benign)
// draws high or critical.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditSkill, type Finding } from "../../../src/core/audit/scan.ts";
import { AUDIT_RULES, severityRank, type Severity } from "../../../src/core/audit/rules.ts";
import { readSkillDir } from "../../../src/cli/lib/skill-dir.ts";

const FIXTURES = path.resolve("test/fixtures/audit");
const expected: Record<string, { family: string; rule: string; severity: Severity }> = JSON.parse(readFileSync(path.join(FIXTURES, "expected.json"), "utf8"));
const dirs = (root: string) =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(root, e.name))
    .sort();

const hostile = dirs(path.join(FIXTURES, "hostile"));
const benign = [...dirs(path.join(FIXTURES, "benign")), ...dirs(path.resolve("shelf/skills"))];

async function audit(dir: string): Promise<Finding[]> {
  return auditSkill(await readSkillDir(dir)).findings;
}

describe("the hostile corpus", () => {
  it("has at least 30 skills, every one in expected.json, covering every rule family", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
    expect(hostile.map((d) => path.basename(d)).sort()).toEqual(Object.keys(expected).sort());
    const families = new Set(Object.values(expected).map((e) => e.family));
    expect([...families].sort()).toEqual([...new Set(AUDIT_RULES.map((r) => r.family))].sort());
  });

  it("spans SKILL.md, references and scripts in Python, shell and JavaScript", async () => {
    const files = (await Promise.all(hostile.map((d) => readSkillDir(d)))).flat().map((f) => f.path);
    expect(files.some((p) => p.startsWith("references/"))).toBe(true);
    for (const ext of [".py", ".sh", ".js"]) expect(files.some((p) => p.startsWith("scripts/") && p.endsWith(ext))).toBe(true);
  });

  it.each(hostile.map((d) => [path.basename(d), d]))("%s draws its intended finding", async (name, dir) => {
    const want = expected[name]!;
    const findings = await audit(dir);
    const hit = findings.find((f) => f.rule === want.rule && f.severity === want.severity);
    expect(hit, `${name}: ${JSON.stringify(findings.map((f) => [f.rule, f.severity, f.file, f.line]))}`).toBeDefined();
    expect(hit!.line).toBeGreaterThanOrEqual(1);
    expect(hit!.column).toBeGreaterThanOrEqual(1);
  });

  it("recall at high or above is at least 95%", async () => {
    let caught = 0;
    for (const dir of hostile) if ((await audit(dir)).some((f) => severityRank(f.severity) >= severityRank("high"))) caught++;
    expect(caught / hostile.length).toBeGreaterThanOrEqual(0.95);
  });
});

describe("docs/trust.md", () => {
  it("lists every rule with its severity", () => {
    const doc = readFileSync("docs/trust.md", "utf8");
    for (const r of AUDIT_RULES) expect(doc, r.id).toContain(`| \`${r.id}\` | ${r.family} | ${r.severity} |`);
  });

  it("names, per rule, exactly the hostile samples expected.json gives it, at their intended severity", () => {
    const doc = readFileSync("docs/trust.md", "utf8");
    const expected = JSON.parse(readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, { rule: string; severity: string }>;
    for (const r of AUDIT_RULES) {
      const samples = Object.entries(expected)
        .filter(([, e]) => e.rule === r.id)
        .map(([name, e]) => `${name} (${e.severity})`)
        .sort();
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${r.id}\` |`))!;
      const cell = row.split("|").at(-2)!.trim();
      expect(cell.startsWith("—") ? [] : cell.split(", "), r.id).toEqual(samples);
    }
  });
});

describe("the benign set", () => {
  it("holds at least 20 skills, the public ones with their licence", () => {
    expect(benign.length).toBeGreaterThanOrEqual(20);
    for (const dir of dirs(path.join(FIXTURES, "benign"))) {
      expect(
        readdirSync(dir).some((f) => /^LICEN[SC]E/.test(f)),
        dir,
      ).toBe(true);
    }
  });

  it.each(benign.map((d) => [path.relative(process.cwd(), d), d]))("%s draws nothing high or critical", async (_name, dir) => {
    const gating = (await audit(dir)).filter((f) => severityRank(f.severity) >= severityRank("high"));
    expect(gating).toEqual([]);
  });
});
