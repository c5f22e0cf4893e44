// Runs the skillshelf command the way a user does: a child Node process on the bin
// (src/cli/skillshelf.ts), with its exit code and both streams as text.
import { spawnSync } from "node:child_process";
import path from "node:path";

const CLI = path.resolve("src/cli/skillshelf.ts");

/** What one run of the command left behind. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Kill the child after this long (a build of the whole shelf needs more than a validate). */
  timeoutMs?: number;
}

/**
 * Runs `skillshelf <args>` to completion.
 * @example runCli(["validate", "shelf"]).code // => 0
 */
export function runCli(args: readonly string[], options: RunCliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    timeout: options.timeoutMs ?? 30_000,
    env: options.env ? { ...process.env, ...options.env } : process.env,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
