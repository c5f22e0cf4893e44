// Runs a skillshelf command line inside the test process through the bin's own dispatch
// (src/cli/main.ts: help, --version, unknown commands, the exit code of a CliError or a bug), with
// this process's environment and working directory, as a child would inherit them. A fraction of
// a child process's cost; runCli (run-cli.ts) is for what only the real bin shows: the process's
// exit status, its streams, signals.
import { dispatch, reportFailure } from "../../src/cli/main.ts";
import { CliError } from "../../src/cli/lib/cli.ts";
import type { CliRun } from "./run-cli.ts";

/** What one in-process run left behind; `internal` is what escaped as a bug (exit 70). */
export interface InProcessRun extends CliRun {
  code: number;
  internal?: unknown;
}

export interface RunInProcessOptions {
  /** Added to this process's environment (as runCli adds it to the child's). */
  env?: Record<string, string>;
}

/**
 * Runs `skillshelf <args>` in this process.
 * @example (await runInProcess(["validate", "shelf"])).code // => 0
 */
export async function runInProcess(args: readonly string[], options: RunInProcessOptions = {}): Promise<InProcessRun> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    // A child's stderr is a pipe, never a terminal: no progress drawing.
    interactive: false,
    // A copy, so a command cannot change the environment the next test runs in.
    env: { ...process.env, ...options.env },
  };
  try {
    const code = await dispatch(args, io);
    return { code, stdout, stderr };
  } catch (error) {
    const code = reportFailure(error, io);
    return error instanceof CliError ? { code, stdout, stderr } : { code, stdout, stderr, internal: error };
  }
}

/**
 * `runInProcess` with the arguments spread, for tests that read like the command line.
 * @example (await cli("hash", "shelf/skills/code-review")).stdout // => "<64 hex digits>\n"
 */
export function cli(...args: string[]): Promise<InProcessRun> {
  return runInProcess(args);
}
