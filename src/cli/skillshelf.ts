#!/usr/bin/env node
// The skillshelf CLI: dispatches to one module per command in src/cli/commands/.
// User mistakes print one line and exit non-zero; only real bugs print a stack trace.
import { CliError, type Command } from "./lib/cli.ts";

interface CommandEntry {
  summary: string;
  load: () => Promise<{ run: Command }>;
}

// One line per command; keep alphabetical.
const COMMANDS: Record<string, CommandEntry> = {
  advise: {
    summary: "advise --url <worker-url> [<advisories.yaml | shelf-dir>] [--token-env NAME]  publish advisories on their own (in force at once)",
    load: () => import("./commands/advise.ts"),
  },
  attest: {
    summary:
      "attest <shelf-dir> (<name>... | --all) [--by <reviewer>] [--level first_party] [--method <method>] [--source <label>] [--at YYYY-MM-DD] [--notes <text>] [--check] [--prune]  bind skills' tree hashes to validation records",
    load: () => import("./commands/attest.ts"),
  },
  build: {
    summary: "build <shelf-dir> [--out <dir>] [--json]  build the shelf into a content-addressed generation",
    load: () => import("./commands/build.ts"),
  },
  catalog: {
    summary:
      "catalog <shelf-dir> [--format xml|markdown] [--tags a,b] [--include a,b] [--exclude a,b] [--max-chars N] [--total N] [--no-selection-hints]  the catalog an agent's prompt carries",
    load: () => import("./commands/catalog.ts"),
  },
  gc: {
    summary: "gc --url <worker-url> [--keep N] [--grace-hours H] [--apply] [--token-env NAME] [--json]  list or delete objects no kept generation references",
    load: () => import("./commands/gc.ts"),
  },
  hash: { summary: "hash <skill-dir>  print the skill's tree hash", load: () => import("./commands/hash.ts") },
  history: {
    summary: "history --url <worker-url> [--token-env NAME] [--json]  the published generations, newest first",
    load: () => import("./commands/history.ts"),
  },
  inspect: { summary: "inspect <skill-dir> --json  inventory, hashes and frontmatter", load: () => import("./commands/inspect.ts") },
  outline: { summary: "outline <skill-dir> [--json]  a skill's sections, keys and token estimates", load: () => import("./commands/outline.ts") },
  publish: {
    summary: "publish --url <worker-url> [--dir <build>] [--token-env NAME] [--json]  upload what changed and make the build current",
    load: () => import("./commands/publish.ts"),
  },
  rollback: {
    summary: "rollback --url <worker-url> <generation> [--token-env NAME]  make an earlier generation current again",
    load: () => import("./commands/rollback.ts"),
  },
  seed: {
    summary: "seed --from <bundle-shelf> --to <team-shelf> [--exclude a,b ...] [--json]  copy a curated shelf in, never clobbering edits",
    load: () => import("./commands/seed.ts"),
  },
  select: {
    summary:
      "select <shelf-dir> --names a,b [--enable name|name@hash[,…] ...] [--root <dir> ...] [--json]  the trust-gated selection and its <available_skills> block",
    load: () => import("./commands/select.ts"),
  },
  section: { summary: "section <skill-dir> <key>  one section of a skill's body", load: () => import("./commands/section.ts") },
  trust: { summary: "trust <shelf-dir> [--json]  each skill's trust verdict and reasons", load: () => import("./commands/trust.ts") },
  validate: { summary: "validate <skill-or-shelf-dir> [--json]  check every skill, list every problem", load: () => import("./commands/validate.ts") },
};

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  skillshelf ${c.summary}`);
  return `usage: skillshelf <command> [args]\n\ncommands:\n${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    process.stderr.write(`skillshelf: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  const { run } = await entry.load();
  return run({
    args,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: Boolean(process.stderr.isTTY) && !process.env.CI,
    env: process.env,
  });
}

// A reader that goes away early (`skillshelf catalog … | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`skillshelf: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`skillshelf: internal error (a bug, please report it):\n${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 70;
    }
  },
);
