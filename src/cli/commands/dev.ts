// `skillshelf dev [--port N] [--env <name>] [--shelf <dir>] [--verbose]`: serve the project's shelf locally
// (lib/dev-server.ts: build, wrangler dev with local R2 and KV, publish) with the project's own
// wrangler.toml, print what to try, and run until Ctrl+C. In a team's repository it is `npm run dev`;
// in skillshelf's own it is `npm start` (scripts/start.ts), which only changes the names it prints
// and where a team environment's shelf folder is.
import path from "node:path";
import { parseArgs } from "node:util";
import { MARKETPLACE_PATH } from "../../core/api/claude-marketplace.ts";
import { UsageError, type Command } from "../lib/cli.ts";
import {
  DEFAULT_PORT,
  killAllStarted,
  LOCAL_SIGNING_KEY_ID,
  localPaths,
  type RunningShelf,
  startShelf,
  teamEnvironments,
  teamPort,
} from "../lib/dev-server.ts";

/** How a local shelf was asked for: the names it prints and its defaults. */
export interface DevInvocation {
  /** The command a user types, for usage and advice: "npm start", "npm run dev". */
  command: string;
  /** The npm script whose options npm swallows when written before `--` ("start", "dev"). */
  npmScript: string;
  /** The project root: wrangler.toml, node_modules and the local files. */
  root: string;
  /** The shelf folder (relative to root) when --shelf is not given. */
  defaultShelf(env: string | undefined): string;
}

/** A team environment's name: a wrangler.toml key that is also safe as a folder name. */
const ENV_NAME = /^[A-Za-z0-9_-]+$/;

/** The command with what its options follow: "npm start --" (npm keeps options before "--"), "skillshelf dev". */
export function withOptions(invocation: DevInvocation): string {
  return invocation.command.startsWith("npm ") ? `${invocation.command} --` : invocation.command;
}

export function devUsage(invocation: DevInvocation): string {
  return `${withOptions(invocation)} [--port N] [--env <name>] [--shelf <dir>] [--force] [--verbose]`;
}

export function devHelp(invocation: DevInvocation): string {
  const { command } = invocation;
  return `usage: ${devUsage(invocation)}

Builds the shelf, serves it with wrangler dev on 127.0.0.1 (local R2 and KV, no account needed),
publishes the build to it and prints URLs to try. Ctrl+C stops everything it started.

options:
  --port N        the loopback port (default ${DEFAULT_PORT}; an environment's default is ${DEFAULT_PORT} + its place among the
                  [env.*] blocks of wrangler.toml: the first ${DEFAULT_PORT + 1}, the second ${DEFAULT_PORT + 2}, …)
  --env <name>    run the environment [env.<name>] of wrangler.toml: its vars, its own local state
                  and tokens (a read token for a private shelf, printed), on its own port
  --shelf <dir>   the shelf folder to build (default ./${invocation.defaultShelf(undefined)}${invocation.defaultShelf("<name>") === invocation.defaultShelf(undefined) ? "" : `; with --env, ${invocation.defaultShelf("<name>")}`})
  --force         publish this folder even when the local shelf serves a generation published from
                  elsewhere (skillshelf publish or rollback against it); without it, that one is kept
  --verbose       show wrangler's own output
  -h, --help      this help

Options go after "--": npm keeps the ones before it for itself.

examples:
  ${command}
  ${withOptions(invocation)} --port 8811
`;
}

/** The options, as parsed from the command line. */
export interface DevArgs {
  help: boolean;
  port?: number;
  env?: string;
  shelf?: string;
  verbose: boolean;
  force: boolean;
}

/** The options that take a value, which npm swallows when they come before `--`. */
const VALUE_OPTIONS = ["port", "env", "shelf"] as const;

/**
 * Parses the arguments. Every mistake is a usage error (exit 2) with the usage line; an option written
 * before `--` (which npm keeps for itself, as npm_config_<name>) is named with the command to type.
 * @example parseDevArgs(["--port", "8811"], {}, invocation).port // => 8811
 */
export function parseDevArgs(argv: string[], env: Record<string, string | undefined>, invocation: DevInvocation): DevArgs {
  const usage = devUsage(invocation);
  const positionals = argv.filter((a) => !a.startsWith("-"));
  if (env.npm_lifecycle_event === invocation.npmScript) {
    const taken = VALUE_OPTIONS.filter((name) => env[`npm_config_${name}`] !== undefined);
    if (taken.length) {
      // `npm start --port 8811` leaves npm_config_port=true and passes "8811" on; `--port=8811` keeps the value.
      const rest = [...positionals];
      const meant = taken.map((name) => {
        const value = env[`npm_config_${name}`] === "true" ? (rest.shift() ?? "<value>") : env[`npm_config_${name}`];
        return `--${name} ${value}`;
      });
      throw new UsageError(
        `npm kept ${taken.map((n) => `--${n}`).join(", ")} for itself: options for ${invocation.command} go after "--". Type: ${withOptions(invocation)} ${meant.join(" ")}\nusage: ${usage}`,
      );
    }
  }
  let values: { port?: string; env?: string; shelf?: string; verbose?: boolean; force?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        env: { type: "string" },
        shelf: { type: "string" },
        verbose: { type: "boolean" },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // parseArgs's own advice (quoting after "--") does not apply here; its first sentence names the mistake.
    throw new UsageError(`${(error as Error).message.split(". ")[0]!.replace(/\.$/, "")}\nusage: ${usage}`);
  }
  const args: DevArgs = { help: values.help ?? false, verbose: values.verbose ?? false, force: values.force ?? false };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port < 1 || port > 65535)
      throw new UsageError(`--port must be a port number (1-65535), not ${values.port}\nusage: ${usage}`);
    args.port = port;
  }
  if (values.env !== undefined) {
    if (!ENV_NAME.test(values.env)) throw new UsageError(`--env must name an environment of wrangler.toml ([env.<name>]), not ${values.env}\nusage: ${usage}`);
    args.env = values.env;
  }
  if (values.shelf !== undefined) args.shelf = values.shelf;
  return args;
}

/** What a user needs next, printed once the shelf is serving: URLs for each protocol, the token, verify and republish. */
export function servingReport(shelf: RunningShelf, args: DevArgs, invocation: DevInvocation, shelfName: string): string {
  const local = localPaths(args.env);
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const as = args.env === undefined ? "" : ` as [env.${args.env}]`;
  if (shelf.kept) {
    log(
      `\nskillshelf is serving generation ${shelf.kept.generation.slice(0, 12)}… (made current ${shelf.kept.at} by a ${shelf.kept.action} from elsewhere), not ${shelfName}: ${withOptions(invocation)} --force publishes ${shelfName} over it.`,
    );
    log(`It is ${shelf.private ? "private" : "public"}${as}, at ${shelf.url}. Try:`);
  } else log(`\nskillshelf is serving ${shelfName} (${shelf.skillCount} skills, ${shelf.private ? "private" : "public"})${as} at ${shelf.url}. Try:`);
  const auth = shelf.private ? `-H "Authorization: Bearer $(cat ${local.readTokenFile})" ` : "";
  for (const p of ["/.well-known/agent-skills/index.json", "/skills/index.json", "/v1/shelf"]) log(`  curl ${auth}${shelf.url}${p}`);
  log(`  pages (a browser):  ${shelf.url}/`);
  log(`  MCP (Streamable HTTP): ${shelf.url}/mcp  (docs/mcp.md)`);
  // Claude Code fetches plugin archives only over https at a non-loopback name: a deployed shelf installs, this one lists.
  log(`  Claude Code marketplace: ${shelf.url}${MARKETPLACE_PATH}  (installs need https at a real host name: docs/clients.md)`);
  if (shelf.private) {
    log(`\nThe shelf is private: reads need the local read token ${shelf.readToken}`);
    log(`(kept in ${local.readTokenFile}; its SHA-256 is in READ_TOKEN_SHA256 of ${local.devVarsFile}). Without it every read is 401.`);
    log("The pages ask for it once; an MCP host sends it as a header:");
    log(`  {"mcpServers": {"skills": {"type": "http", "url": "${shelf.url}/mcp", "headers": {"Authorization": "Bearer ${shelf.readToken}"}}}}`);
    // The skills CLI cannot send a header: it reaches a private shelf only through a capability URL.
    if (shelf.capabilityUrls) log(`The skills CLI (Node 22.20 or later), through a capability URL:\n  npx skills add ${shelf.url}/c/${shelf.readToken} --list`);
    else
      log(
        `The skills CLI cannot send a token: it reaches a private shelf only through a capability URL, which this shelf keeps off.\n` +
          `To try it locally, add SHELF_CAPABILITY_URLS=on to ${local.devVarsFile} and rerun (docs/http.md has the risks before turning it on for real).`,
      );
  } else {
    log(`  npx skills add ${shelf.url} --list      (the skills CLI needs Node 22.20 or later)`);
    log(`  MCP host config: {"mcpServers": {"skills": {"type": "http", "url": "${shelf.url}/mcp"}}}`);
  }
  const tokenEnv = shelf.private ? `SKILLSHELF_READ_TOKEN=$(cat ${local.readTokenFile}) ` : "";
  log(
    `\nSigned with a throwaway key (${local.signingKeyFile}; the Worker lists its public half as ${LOCAL_SIGNING_KEY_ID}). Check every signature:\n` +
      `  ${tokenEnv}npx skillshelf verify ${shelf.url} --key-id ${LOCAL_SIGNING_KEY_ID} --public-key ${shelf.signingPublicKey}${shelf.private ? " --token-env SKILLSHELF_READ_TOKEN" : ""}`,
  );
  const flags = [
    args.port === undefined ? "" : `--port ${args.port}`,
    args.force ? "--force" : "",
    args.env === undefined ? "" : `--env ${args.env}`,
    args.shelf === undefined ? "" : `--shelf ${args.shelf}`,
  ]
    .filter(Boolean)
    .join(" ");
  const buildDir = path.relative(invocation.root, shelf.buildDir);
  log(
    `\nPublish again after editing ${shelfName}: ${flags ? `${withOptions(invocation)} ${flags}` : invocation.command} (or: npx skillshelf build ${shelfName} --out ${buildDir} --sign-key ${local.signingKeyFile} --key-id ${LOCAL_SIGNING_KEY_ID} --origin ${shelf.url} && SKILLSHELF_PUBLISH_TOKEN=$(cat ${local.publishTokenFile}) npx skillshelf publish --url ${shelf.url} --dir ${buildDir})`,
  );
  log("Press Ctrl+C to stop.");
  return `${lines.join("\n")}\n`;
}

/**
 * Serves the shelf until Ctrl+C (exit 0) or until wrangler stops on its own (exit 1, loudly: a shelf that
 * stopped answering is not "serving").
 */
export async function runDev(
  argv: string[],
  io: { stdout(text: string): void; stderr(text: string): void; env: Record<string, string | undefined> },
  invocation: DevInvocation,
): Promise<number> {
  // Handle signals from the first moment: a signal during startup must still stop wrangler.
  let shelf: RunningShelf | undefined;
  let stopping = false;
  const shutdown = () => {
    stopping = true;
    if (!shelf) {
      killAllStarted();
      process.exit(143);
    }
    void shelf.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  try {
    const args = parseDevArgs(argv, io.env, invocation);
    if (args.help) {
      io.stdout(devHelp(invocation));
      return 0;
    }
    const log = (line: string) => io.stdout(`${line}\n`);
    const rerun = withOptions(invocation);
    if (args.env !== undefined && args.port === undefined) {
      const teams = await teamEnvironments(invocation.root);
      if (teams.includes(args.env))
        log(
          `[env.${args.env}] runs on its own port, ${teamPort(teams, args.env)} (${DEFAULT_PORT} + its place among wrangler.toml's [env.*] blocks); --port N to change it`,
        );
    }
    const shelfName = args.shelf ?? invocation.defaultShelf(args.env);
    shelf = await startShelf({
      root: invocation.root,
      ...(args.port === undefined ? {} : { port: args.port }),
      ...(args.env === undefined ? {} : { env: args.env }),
      shelfDir: path.resolve(invocation.root, shelfName),
      log,
      verbose: args.verbose,
      force: args.force,
      rerun,
    });
    io.stdout(servingReport(shelf, args, invocation, shelfName));
    const end = await shelf.exited!;
    if (stopping) return 0;
    io.stderr(`${invocation.command}: wrangler dev stopped on its own (exit ${end.code}); the shelf is no longer served:\n${end.output.slice(-2000)}\n`);
    return 1;
  } finally {
    if (!stopping) {
      process.off("SIGINT", shutdown);
      process.off("SIGTERM", shutdown);
    }
  }
}

/** `skillshelf dev` in a team's repository (the current folder): its ./shelf, its wrangler.toml. */
export const run: Command = (ctx) =>
  runDev(ctx.args, ctx, {
    command: ctx.env.npm_lifecycle_event === "dev" ? "npm run dev" : "skillshelf dev",
    npmScript: "dev",
    root: process.cwd(),
    defaultShelf: () => "shelf",
  });
