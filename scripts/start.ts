#!/usr/bin/env node
// `npm start`: this repository's shelf (./shelf) served locally, as `skillshelf dev` serves a team's
// (src/cli/commands/dev.ts and src/cli/lib/dev-server.ts hold all of it). `--env <team>` runs a team
// environment of wrangler.toml with its shelf in teams/<team>. Tests and tools import startShelf from here.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runDev } from "../src/cli/commands/dev.ts";
import { CliError } from "../src/cli/lib/cli.ts";
import * as devServer from "../src/cli/lib/dev-server.ts";

export * from "../src/cli/lib/dev-server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Options of {@link startShelf} here: the root defaults to this repository. */
export type StartOptions = Omit<devServer.StartOptions, "root"> & { root?: string };

/** {@link devServer.startShelf} in this repository unless told otherwise. */
export function startShelf(options: StartOptions = {}): Promise<devServer.RunningShelf> {
  return devServer.startShelf({ root: ROOT, ...options });
}

/** {@link devServer.startShelfOnFreePort} in this repository unless told otherwise. */
export function startShelfOnFreePort(options: Omit<StartOptions, "port"> = {}, attempts?: number): Promise<devServer.RunningShelf> {
  return devServer.startShelfOnFreePort({ root: ROOT, ...options }, attempts);
}

/** The team environments of this repository's wrangler.toml. */
export function teamEnvironments(root: string = ROOT): Promise<string[]> {
  return devServer.teamEnvironments(root);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const invocation = {
    command: "npm start",
    npmScript: "start",
    root: ROOT,
    defaultShelf: (env: string | undefined) => (env === undefined ? "shelf" : `teams/${env}`),
  };
  runDev(process.argv.slice(2), { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env }, invocation).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof CliError) {
        process.stderr.write(`npm start: ${error.message}\n`);
        process.exit(error.exitCode);
      }
      process.stderr.write(`npm start: internal error (a bug, please report it):\n${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(70);
    },
  );
}
