#!/usr/bin/env node
// The skillshelf CLI's bin: runs one command line (main.ts) on this process's streams and environment.
// User mistakes print one line and exit non-zero; only real bugs print a stack trace.
import { main } from "./main.ts";

// A reader that goes away early (`skillshelf catalog … | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// main reports every failure itself (one line, or a bug's stack) and returns the exit code.
void main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY) && !process.env.CI,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
