// CPU cost of the per-request disclosure work: catalogs over 10 … 10,000 generated skills (with
// and without max_chars) and the outline of a 1 MB body. Run: npm run bench -- --only disclosure.
// Its section of docs/benchmarks.md is written by the runner. Not a test: nothing here asserts.
import { renderCatalog, type CatalogSkill } from "../src/core/disclosure/catalog.ts";
import { outlineOf, renderOutline } from "../src/core/disclosure/outline.ts";
import { codePointLength } from "../src/core/python-compat/py-text.ts";
import { machineLine } from "./harness.ts";
import { ms, QUICK, reportSection, table } from "./report.ts";

/** Calls per figure: the median of these (fewer at 10,000 skills); quick mode only indicates. */
const RUNS = QUICK ? 7 : 31;
const LARGE_RUNS = QUICK ? 3 : 9;

/** CPU milliseconds (user + system) of one call, best of a few runs after warm-up. */
function cpuMs(fn: () => unknown, runs: number): number {
  for (let i = 0; i < Math.min(3, runs); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

function skills(n: number): CatalogSkill[] {
  const out: CatalogSkill[] = [];
  for (let i = 0; i < n; i++) {
    const id = String(i).padStart(5, "0");
    out.push({
      name: `skill-${id}`,
      description: `Skill ${id} handles <incidents> & reviews for team ${i % 17}: a description of typical length, around one hundred and fifty characters.`,
      version: i % 3 === 0 ? `1.${i % 10}.0` : undefined,
      when_to_use: [`When the request mentions topic ${i % 23}`, "When a checklist is needed"],
      when_not_to_use: i % 2 === 0 ? ["Never for unrelated chores"] : [],
      tags: [`team-${i % 17}`, i % 5 === 0 ? "Ops" : "dev"],
    });
  }
  return out;
}

function megabyteBody(): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 1_000_000; i++) {
    const block =
      `## Section ${i} — Straße ${i % 7}\n\n` +
      "Some prose with 🚨 emoji and enough words to look like instructions for an agent to follow.\n".repeat(8) +
      "\n```sh\n# a comment, not a heading\necho step\n```\n\n";
    parts.push(block);
    size += block.length;
  }
  return `# Big skill\n\n${parts.join("")}`;
}

const SIZES = [10, 100, 1_000, 10_000];
const catalogRows: string[][] = [];
for (const format of ["xml", "markdown"] as const) {
  const byVariant: Record<string, string[]> = { "": [], ", max_chars=half": [], ", max_chars=2000": [] };
  for (const n of SIZES) {
    const input = skills(n);
    const runs = n >= 10_000 ? LARGE_RUNS : RUNS;
    const length = codePointLength(renderCatalog(input, { format }));
    const variants: Array<[string, () => unknown]> = [
      ["", () => renderCatalog(input, { format })],
      [", max_chars=half", () => renderCatalog(input, { format, maxChars: Math.floor(length / 2) })],
      [", max_chars=2000", () => renderCatalog(input, { format, maxChars: 2000 })],
    ];
    for (const [variant, fn] of variants) {
      const cpu = cpuMs(fn, runs);
      byVariant[variant]!.push(`${ms(cpu)} (${((cpu * 1000) / n).toFixed(2)} µs/skill)`);
      console.log(`catalog ${format} ${n} skills${variant}: ${ms(cpu)}`);
    }
  }
  for (const [variant, cells] of Object.entries(byVariant)) catalogRows.push([`catalog ${format}${variant}`, ...cells]);
}

// For contrast: fitting by re-rendering after every dropped entry (what the Python library
// does), which is quadratic. Only at sizes where it finishes in reasonable time (1,000 takes
// seconds per call, so quick mode leaves it out).
const contrastSizes = QUICK ? [100] : [100, 1_000];
const contrast: string[][] = [["re-render after every dropped entry"], ["skillshelf (`renderCatalog`)"]];
for (const n of contrastSizes) {
  const input = skills(n);
  const naive = cpuMs(() => {
    for (let k = n; k >= 0; k--) {
      const text = renderCatalog(input.slice(0, k), { total: n });
      if ([...text].length <= 2000) return text;
    }
    return undefined;
  }, 3);
  const fitted = cpuMs(() => renderCatalog(input, { maxChars: 2000 }), RUNS);
  contrast[0]!.push(ms(naive));
  contrast[1]!.push(ms(fitted));
  console.log(`contrast at ${n} skills: re-render per drop ${ms(naive)}, renderCatalog ${ms(fitted)}`);
}

const body = megabyteBody();
const outline = outlineOf("big", body);
const halfBody = body.slice(0, body.length / 2);
const outlineRows: Array<[string, number]> = [
  [`outline of a ${(body.length / 1e6).toFixed(2)} M-character body (${outline.sections.length} sections)`, cpuMs(() => outlineOf("big", body), RUNS)],
  [`outline of its first half (${(halfBody.length / 1e6).toFixed(2)} M characters)`, cpuMs(() => outlineOf("half", halfBody), RUNS)],
  ["render that outline", cpuMs(() => renderOutline(outline), RUNS)],
];
for (const [label, cpu] of outlineRows) console.log(`${label}: ${ms(cpu)}`);

reportSection(
  "disclosure",
  [
    `CPU (user + system) of one call, median of ${RUNS} runs (${LARGE_RUNS} at 10,000 skills) after warm-up, GC forced between runs; ${machineLine()}${QUICK ? "; **quick mode: indicative only**" : ""}.`,
    "",
    table(["Work", ...SIZES.map((n) => n.toLocaleString("en-US"))], catalogRows),
    "",
    table(
      ["Work", "CPU"],
      outlineRows.map(([label, cpu]) => [label, ms(cpu)]),
    ),
    "",
    table(["Fitting to max_chars=2000", ...contrastSizes.map((n) => `${n.toLocaleString("en-US")} skills`)], contrast),
  ].join("\n"),
);
