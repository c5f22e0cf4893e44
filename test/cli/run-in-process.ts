// Runs a skillshelf command inside the test process, through its command module, and maps what
// it throws to an exit code as the bin (src/cli/skillshelf.ts) does: a CliError is its own exit
// code, anything else is an internal error, exit 70. Much cheaper than a child process, so
// property tests can run hundreds; runCli (run-cli.ts) checks the real bin.
import { CliError, type Command } from "../../src/cli/lib/cli.ts";
import type { CliRun } from "./run-cli.ts";

/** What one in-process run left behind; `internal` is what escaped as a bug (exit 70). */
export interface InProcessRun extends CliRun {
  code: number;
  internal?: unknown;
}

/**
 * Runs `skillshelf <command> <args>` in this process.
 * @example (await runInProcess(["validate", "shelf"])).code // => 0
 */
export async function runInProcess([command, ...args]: readonly string[]): Promise<InProcessRun> {
  const { run } = (await import(`../../src/cli/commands/${command}.ts`)) as { run: Command };
  let stdout = "";
  let stderr = "";
  const ctx = {
    args,
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    interactive: false,
    env: {},
  };
  try {
    const code = await run(ctx);
    return { code, stdout, stderr };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, stdout, stderr: `${stderr}skillshelf: ${error.message}\n` };
    return { code: 70, stdout, stderr: `${stderr}skillshelf: internal error: ${(error as Error)?.stack ?? String(error)}\n`, internal: error };
  }
}
