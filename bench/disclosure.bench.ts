// CPU cost of the per-request disclosure work: catalogs over 10 … 10,000 generated skills (with
// and without max_chars) and the outline of a 1 MB body. Run: npm run bench. Figures and the
// machine they came from are recorded in docs/benchmarks.md. Not a test: nothing here asserts.
import { renderCatalog, type CatalogSkill } from "../src/core/disclosure/catalog.ts";
import { outlineOf, renderOutline } from "../src/core/disclosure/outline.ts";

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

const rows: string[] = [];
const row = (label: string, ms: number, perUnit?: string) => {
  const line = `${label.padEnd(44)} ${ms.toFixed(3).padStart(9)} ms CPU${perUnit ? `   ${perUnit}` : ""}`;
  rows.push(line);
  console.log(line);
};

for (const format of ["xml", "markdown"] as const) {
  for (const n of [10, 100, 1_000, 10_000]) {
    const input = skills(n);
    const runs = n >= 10_000 ? 9 : 31;
    const full = cpuMs(() => renderCatalog(input, { format }), runs);
    row(`catalog ${format} ${n} skills`, full, `${((full * 1000) / n).toFixed(2)} µs/skill`);
    const length = [...renderCatalog(input, { format })].length;
    const half = cpuMs(() => renderCatalog(input, { format, maxChars: Math.floor(length / 2) }), runs);
    row(`catalog ${format} ${n} skills, max_chars=half`, half, `${((half * 1000) / n).toFixed(2)} µs/skill`);
    const tiny = cpuMs(() => renderCatalog(input, { format, maxChars: 2000 }), runs);
    row(`catalog ${format} ${n} skills, max_chars=2000`, tiny, `${((tiny * 1000) / n).toFixed(2)} µs/skill`);
  }
}

// For contrast: fitting by re-rendering after every dropped entry (what the Python library
// does), which is quadratic. Only at sizes where it finishes in reasonable time.
for (const n of [100, 1_000]) {
  const input = skills(n);
  const naive = cpuMs(() => {
    for (let k = n; k >= 0; k--) {
      const text = renderCatalog(input.slice(0, k), { total: n });
      if ([...text].length <= 2000) return text;
    }
    return undefined;
  }, 3);
  row(`contrast: re-render per drop, ${n} skills, 2000`, naive, `${((naive * 1000) / n).toFixed(2)} µs/skill`);
}

const body = megabyteBody();
const outlineMs = cpuMs(() => outlineOf("big", body), 15);
const outline = outlineOf("big", body);
row(`outline of ${(body.length / 1e6).toFixed(2)}M-char body (${outline.sections.length} sections)`, outlineMs);
row(
  "render that outline",
  cpuMs(() => renderOutline(outline), 15),
);
const halfBody = body.slice(0, body.length / 2);
row(
  `outline of the first half (${(halfBody.length / 1e6).toFixed(2)}M chars)`,
  cpuMs(() => outlineOf("half", halfBody), 15),
);

console.log(`\nnode ${process.versions.node}, ${process.platform}/${process.arch}`);
