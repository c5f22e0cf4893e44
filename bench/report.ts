// How a benchmark hands its results to `npm run bench` (bench/run.ts): each bench prints as it
// goes and ends with one Markdown section per table it owns, which the runner writes into
// docs/benchmarks.md between that section's markers. Quick mode (`npm run bench -- --quick`)
// asks every bench for fewer rounds and smaller shelves, so the whole suite stays under 3 minutes.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** True under `npm run bench -- --quick`: fewer rounds, smaller inputs, figures only indicative. */
export const QUICK = process.env.SKILLSHELF_BENCH_QUICK === "1";

/** Where the runner collects sections; unset when a bench runs on its own. */
const OUT_DIR = process.env.SKILLSHELF_BENCH_OUT;

/**
 * Reports one section: printed, and handed to the runner, which replaces the text between
 * `<!-- bench:<id> -->` and `<!-- /bench:<id> -->` in docs/benchmarks.md with it.
 * @example reportSection("http", "| Route | bare | skillshelf | ratio |\n|---|---|---|---|\n…")
 */
export function reportSection(id: string, markdown: string): void {
  if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`bench section id "${id}" must be lower-case letters, digits and dashes`);
  process.stdout.write(`\n${markdown.trim()}\n`);
  if (OUT_DIR) {
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(path.join(OUT_DIR, `${id}.md`), `${markdown.trim()}\n`);
  }
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The q-quantile (0..1) of a list, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error("quantile of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A Markdown table from a header row and rows of cells. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** A ratio as `1.23×`. */
export function ratio(numerator: number, denominator: number): string {
  return `${(numerator / denominator).toFixed(2)}×`;
}

/** Milliseconds with sensible precision (µs below 0.1 ms). */
export function ms(value: number): string {
  if (value < 0.1) return `${(value * 1000).toFixed(1)} µs`;
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(0)} ms`;
}
