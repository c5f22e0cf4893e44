// Runs one client process for the interop suite: its own process group, output collected, killed
// (with everything it started) on timeout or when the harness itself exits first.
import { spawn } from "node:child_process";

export interface BoundedRun {
  code: number | null;
  output: string;
}

/** Spawns `command args` detached, bounded to `timeoutMs`; resolves with exit code and output. */
export function runBounded(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<BoundedRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: options.env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs / 1000} s]`;
      killGroup();
    }, options.timeoutMs);
    process.on("exit", killGroup);
    child.on("exit", (code) => {
      clearTimeout(timer);
      process.off("exit", killGroup);
      resolve({ code, output });
    });
  });
}
