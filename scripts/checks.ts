// The checks `npm test` runs before vitest: format, lint, the three type-checks, the stale-types check
// and the dry-run bundle. The type-check (one tsc, one core) runs beside the others, which run one
// after another, so the second core is not idle for most of a minute. Each step's output is printed
// whole when it ends. A step fails the run when it fails, and lint and the dry-run bundle also when
// they print anything a green run should not (issues 12 and 23: notices nobody acts on hide the ones
// that matter); test/scripts/checks.test.ts holds those rules to their examples.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The package.json scripts, in lanes: each lane's steps run in order, the lanes at once. */
export const LANES: readonly (readonly string[])[] = [["format:check", "lint", "types:check", "build:check"], ["typecheck"]];

/** What a green step must not print, by step: the reason, or null when its output is quiet. */
export function noise(step: string, output: string): string | null {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  if (step === "lint" && /Found \d+ (info|warning)/.test(plain)) return "lint reported infos or warnings on a clean tree";
  if (step === "build:check" && /WARNING|Multiple environments/.test(plain)) return "the dry-run bundle printed a warning (does --env name its environment?)";
  return null;
}

interface StepResult {
  step: string;
  ok: boolean;
}

function runStep(step: string): Promise<StepResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn("npm", ["run", "--silent", step], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => {
      const loud = code === 0 ? noise(step, output) : null;
      const ok = code === 0 && loud === null;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`> ${step} (${seconds} s)${ok ? "" : `: FAILED${loud ? `, ${loud}` : ` (exit ${code})`}`}\n${output}`);
      resolve({ step, ok });
    });
  });
}

/** Runs every lane; a lane stops at its first failure. Resolves with the failed steps. */
export async function runChecks(lanes: readonly (readonly string[])[] = LANES): Promise<string[]> {
  const failed: string[] = [];
  await Promise.all(
    lanes.map(async (lane) => {
      for (const step of lane) {
        const result = await runStep(step);
        if (!result.ok) {
          failed.push(step);
          return;
        }
      }
    }),
  );
  return failed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failed = await runChecks();
  if (failed.length > 0) {
    process.stderr.write(`checks failed: ${failed.join(", ")}\n`);
    process.exit(1);
  }
}
