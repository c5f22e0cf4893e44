// The audit beside cisco-ai-skill-scanner 2.3.2 on the same corpus (test/fixtures/audit: the
// hostile skills written for it, the public benign skills, and the curated shelf): recall at high
// or above, benign skills flagged high, and time per skill; then our CPU per skill in process and
// for a 1,000-skill shelf. Run: npm run bench -- --only audit. The scanner runs when a venv holds
// it (.venv-skill-scanner, or SKILLSHELF_SKILL_SCANNER naming its `skill-scanner`); see
// docs/benchmarks.md for the install line. Not a test: nothing here asserts a speed.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { auditSkill } from "../src/core/audit/scan.ts";
import { severityRank } from "../src/core/audit/rules.ts";
import { readSkillDir } from "../src/cli/lib/skill-dir.ts";
import type { SkillFile } from "../src/core/skill/skill.ts";
import { ms, QUICK, reportSection, table } from "./report.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURES = path.join(ROOT, "test/fixtures/audit");
const SCANNER = process.env.SKILLSHELF_SKILL_SCANNER ?? path.join(ROOT, ".venv-skill-scanner/bin/skill-scanner");
const PYTHON = path.join(path.dirname(SCANNER), "python");

const dirs = (root: string) =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(root, e.name))
    .sort();
const hostile = dirs(path.join(FIXTURES, "hostile"));
const benign = [...dirs(path.join(FIXTURES, "benign")), ...dirs(path.join(ROOT, "shelf/skills"))];

const loaded = new Map<string, SkillFile[]>();
for (const d of [...hostile, ...benign]) loaded.set(d, await readSkillDir(d));

/** Ours: which skills draw high or above, and the median CPU of one audit per skill. */
function ours(set: readonly string[]): { flagged: Set<string>; cpuMsPerSkill: number } {
  const flagged = new Set<string>();
  for (const d of set) if (auditSkill(loaded.get(d)!).findings.some((f) => severityRank(f.severity) >= severityRank("high"))) flagged.add(path.basename(d));
  const rounds = QUICK ? 5 : 21;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    const start = process.cpuUsage();
    for (const d of set) auditSkill(loaded.get(d)!);
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000 / set.length);
  }
  samples.sort((a, b) => a - b);
  return { flagged, cpuMsPerSkill: samples[samples.length >> 1]! };
}

interface ScannerRun {
  flagged: Set<string>;
  wallMsPerSkill: number;
  cpuMsPerSkill: number;
}

/** The scanner's `scan-all --format json` over a folder of skills, with its CPU (children's rusage). */
function scanner(set: readonly string[]): ScannerRun | null {
  if (!existsSync(SCANNER)) return null;
  const work = mkdtempSync(path.join(tmpdir(), "skillshelf-audit-bench-"));
  try {
    for (const d of set) cpSync(d, path.join(work, "skills", path.basename(d)), { recursive: true });
    const out = path.join(work, "report.json");
    const wrapper =
      "import resource, subprocess, sys, time\nt = time.monotonic()\nr = subprocess.run(sys.argv[1:], capture_output=True)\nw = time.monotonic() - t\nu = resource.getrusage(resource.RUSAGE_CHILDREN)\nprint(f'{w} {u.ru_utime + u.ru_stime} {r.returncode}')\n";
    const run = spawnSync(PYTHON, ["-c", wrapper, SCANNER, "scan-all", path.join(work, "skills"), "--format", "json", "--output-json", out], {
      encoding: "utf8",
    });
    const [wall, cpu] = run.stdout.trim().split(" ").map(Number);
    if (!existsSync(out)) throw new Error(`skill-scanner wrote no report: ${run.stderr}`);
    const report = JSON.parse(readFileSync(out, "utf8")) as { results: { skill_name: string; skill_path: string; findings: { severity: string }[] }[] };
    const flagged = new Set<string>();
    for (const r of report.results) if (r.findings.some((f) => f.severity === "HIGH" || f.severity === "CRITICAL")) flagged.add(path.basename(r.skill_path));
    return { flagged, wallMsPerSkill: (wall! * 1000) / set.length, cpuMsPerSkill: (cpu! * 1000) / set.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const pct = (n: number, d: number) => `${n}/${d} (${((100 * n) / d).toFixed(0)}%)`;
const oursHostile = ours(hostile);
const oursBenign = ours(benign);
const theirsHostile = scanner(hostile);
const theirsBenign = scanner(benign);

const rows: (string | number)[][] = [
  [
    "skillshelf audit",
    pct(oursHostile.flagged.size, hostile.length),
    pct(oursBenign.flagged.size, benign.length),
    `${ms((oursHostile.cpuMsPerSkill * hostile.length + oursBenign.cpuMsPerSkill * benign.length) / (hostile.length + benign.length))} CPU, in process`,
  ],
];
if (theirsHostile && theirsBenign) {
  const n = hostile.length + benign.length;
  rows.push([
    "cisco-ai-skill-scanner 2.3.2 (`scan-all --format json`, static analyzers, no LLM)",
    pct(theirsHostile.flagged.size, hostile.length),
    pct(theirsBenign.flagged.size, benign.length),
    `${ms((theirsHostile.cpuMsPerSkill * hostile.length + theirsBenign.cpuMsPerSkill * benign.length) / n)} CPU, ${ms((theirsHostile.wallMsPerSkill * hostile.length + theirsBenign.wallMsPerSkill * benign.length) / n)} wall (one process per set, start-up included)`,
  ]);
}
const missedByThem = theirsHostile ? hostile.map((d) => path.basename(d)).filter((n) => !theirsHostile.flagged.has(n)) : [];
const missedByUs = hostile.map((d) => path.basename(d)).filter((n) => !oursHostile.flagged.has(n));
const benignThem = theirsBenign ? [...theirsBenign.flagged].sort() : [];

// A 1,000-skill shelf: the corpus cycled to 1,000 skills, audited once each, CPU in all.
const all = [...hostile, ...benign];
(globalThis as { gc?: () => void }).gc?.();
const start = process.cpuUsage();
for (let i = 0; i < 1_000; i++) auditSkill(loaded.get(all[i % all.length]!)!);
const used = process.cpuUsage(start);
const thousandMs = (used.user + used.system) / 1000;

reportSection(
  "audit",
  [
    table(["Scanner", "Hostile skills flagged high or critical (recall)", "Benign skills flagged high or critical", "Time per skill"], rows),
    "",
    `- Corpus: ${hostile.length} hostile skills (test/fixtures/audit/hostile), ${benign.length} benign (${dirs(path.join(FIXTURES, "benign")).length} public skills with scripts in test/fixtures/audit/benign and the ${benign.length - dirs(path.join(FIXTURES, "benign")).length} curated shelf skills).`,
    `- Missed by skillshelf at high or above: ${missedByUs.length ? missedByUs.join(", ") : "none"}.`,
    theirsHostile
      ? `- Missed by the scanner at high or above: ${missedByThem.length ? missedByThem.join(", ") : "none"}.`
      : "- The scanner was not run: no .venv-skill-scanner (see the install line above).",
    theirsBenign ? `- Benign skills the scanner flags high or critical: ${benignThem.length ? benignThem.join(", ") : "none"}.` : "",
    `- skillshelf audit over a 1,000-skill shelf (the corpus cycled): ${ms(thousandMs)} CPU in all, ${ms(thousandMs / 1000)} per skill, in process; an unchanged skill is not scanned again by \`build\` (its findings are cached by tree hash and rule set).`,
  ]
    .filter(Boolean)
    .join("\n"),
);
