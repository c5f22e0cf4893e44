// `npm run bench [-- --quick] [-- --only <name>…]`: runs every bench/*.bench.ts in its own Node
// (pinned Node 24, --expose-gc, the .tsx loader for the pages), one after another so they never
// share the two cores, then writes each bench's reported sections (bench/report.ts) into
// docs/benchmarks.md between their markers, with the machine, date and command at the top.
// A quick run prints only, unless --write is given. Not a test: no bench asserts a speed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DOC = path.join(ROOT, "docs/benchmarks.md");
const { values } = parseArgs({ options: { quick: { type: "boolean" }, write: { type: "boolean" }, only: { type: "string", multiple: true } } });
const quick = values.quick ?? false;
const write = !quick || (values.write ?? false);

const benches = readdirSync(path.join(ROOT, "bench"))
  .filter((f) => f.endsWith(".bench.ts"))
  .sort()
  .filter((f) => !values.only || values.only.some((name) => f.startsWith(name)));
if (benches.length === 0) {
  process.stderr.write(
    `no bench matches ${values.only?.join(", ")}; the benches are ${readdirSync(path.join(ROOT, "bench"))
      .filter((f) => f.endsWith(".bench.ts"))
      .join(", ")}\n`,
  );
  process.exit(2);
}

const out = mkdtempSync(path.join(tmpdir(), "skillshelf-bench-"));
const started = Date.now();
const timings: string[] = [];
let failed = false;
for (const file of benches) {
  process.stdout.write(`\n::: bench/${file}${quick ? " (quick)" : ""}\n`);
  const t0 = Date.now();
  const run = spawnSync(process.execPath, ["--expose-gc", "--import", "./bench/register-tsx.mjs", `bench/${file}`], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, SKILLSHELF_BENCH_OUT: out, SKILLSHELF_BENCH_QUICK: quick ? "1" : "0" },
  });
  const seconds = (Date.now() - t0) / 1000;
  timings.push(`${file} ${seconds.toFixed(0)} s`);
  if (run.status !== 0) {
    process.stderr.write(`bench/${file} failed (exit ${run.status ?? run.signal})\n`);
    failed = true;
  }
}
const total = (Date.now() - started) / 1000;
process.stdout.write(`\n::: ${benches.length} bench(es) in ${total.toFixed(0)} s: ${timings.join(", ")}\n`);

if (write && !failed) {
  const cpu = cpus();
  const header = [
    `- **Run:** \`npm run bench${quick ? " -- --quick" : ""}${values.only ? ` -- ${values.only.map((o) => `--only ${o}`).join(" ")}` : ""}\` on ${new Date().toISOString().slice(0, 10)}, ${total.toFixed(0)} s in all (${timings.join(", ")}).`,
    `- **Machine:** ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${process.platform}/${process.arch}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)} at the end.`,
  ].join("\n");
  let doc = readFileSync(DOC, "utf8");
  doc = replaceBetween(doc, "run", header);
  for (const file of readdirSync(out).sort()) {
    const id = file.replace(/\.md$/, "");
    doc = replaceBetween(doc, id, readFileSync(path.join(out, file), "utf8").trim());
  }
  writeFileSync(DOC, doc);
  process.stdout.write(`wrote ${path.relative(ROOT, DOC)}\n`);
}
rmSync(out, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;

/** Replaces the text between a section's markers, or appends the section (with markers) when the doc has none. */
function replaceBetween(doc: string, id: string, body: string): string {
  const open = `<!-- bench:${id} -->`;
  const close = `<!-- /bench:${id} -->`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (start < 0 || end < start) return `${doc.trimEnd()}\n\n${open}\n${body}\n${close}\n`;
  return `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`;
}
