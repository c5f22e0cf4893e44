// The skillshelf command line without the process around it: the table of commands, help, the
// version, and the exit code a command line ends with. The bin (skillshelf.ts) gives it the process's streams.
import { CliError, type CliContext, type Command } from "./lib/cli.ts";

interface CommandEntry {
  /** The command's usage line (its options) and what it does, two spaces apart. */
  summary: string;
  /** One command line that works, for `skillshelf <command> --help`. */
  example: string;
  load: () => Promise<{ run: Command }>;
}

// One line per command; keep alphabetical.
const COMMANDS: Record<string, CommandEntry> = {
  advise: {
    summary: "advise --url <worker-url> [<advisories.yaml | shelf-dir>] [--token-env NAME]  publish advisories on their own (in force at once)",
    example: "skillshelf advise --url http://localhost:8787 shelf",
    load: () => import("./commands/advise.ts"),
  },
  attest: {
    summary:
      "attest <shelf-dir> (<name>... | --all) [--by <reviewer>] [--level first_party] [--method <method>] [--source <label>] [--at YYYY-MM-DD] [--notes <text>] [--accept <rule>@<file>:<line> ...] [--check] [--prune]  bind skills' tree hashes to validation records",
    example: "skillshelf attest shelf my-skill --by alice",
    load: () => import("./commands/attest.ts"),
  },
  audit: {
    summary:
      "audit <skill-or-shelf-dir> [--json | --sarif] [--since <build-dir | shelf-url | generation> [--url <shelf-url>] [--token-env NAME]] [--min-severity critical|high|medium|low|info]  scan skills for hostile content (exit 1 when an unacknowledged finding is at or above --min-severity, default high)",
    example: "skillshelf audit shelf --sarif > audit.sarif",
    load: () => import("./commands/audit.ts"),
  },
  build: {
    summary:
      "build <shelf-dir> [--out <dir>] [--sign-key <file> --origin <url> --key-id <id>] [--verify] [--jobs <n>] [--json]  build the shelf into a content-addressed generation (incremental; --verify rereads everything)",
    example: "skillshelf build shelf --out dist/shelf",
    load: () => import("./commands/build.ts"),
  },
  catalog: {
    summary:
      "catalog <shelf-dir> [--format xml|markdown] [--tags a,b] [--include a,b] [--exclude a,b] [--max-chars N] [--total N] [--no-selection-hints]  the catalog an agent's prompt carries",
    example: "skillshelf catalog shelf --format markdown --tags review",
    load: () => import("./commands/catalog.ts"),
  },
  dev: {
    summary:
      "dev [--port N] [--env <name>] [--shelf <dir>] [--force] [--verbose]  serve this repository's shelf locally (wrangler dev, local R2 and KV), publish it, print URLs (Node 22+)",
    example: "skillshelf dev --port 8811",
    load: () => import("./commands/dev.ts"),
  },
  gc: {
    summary: "gc --url <worker-url> [--keep N] [--grace-hours H] [--apply] [--token-env NAME] [--json]  list or delete objects no kept generation references",
    example: "skillshelf gc --url http://localhost:8787 --keep 5",
    load: () => import("./commands/gc.ts"),
  },
  grants: {
    summary:
      "grants (list | revoke <grant-id> | revoke --user <email>) --url <worker-url> [--token-env NAME] [--json]  the OAuth grants apps hold on a private shelf, and revoking them",
    example: "skillshelf grants list --url https://skills.acme.example",
    load: () => import("./commands/grants.ts"),
  },
  hash: {
    summary: "hash <skill-dir>  print the skill's tree hash",
    example: "skillshelf hash shelf/release-checklist",
    load: () => import("./commands/hash.ts"),
  },
  history: {
    summary: "history --url <worker-url> [--token-env NAME] [--json]  the published generations, newest first",
    example: "skillshelf history --url http://localhost:8787",
    load: () => import("./commands/history.ts"),
  },
  import: {
    summary:
      "import <source> --to <shelf> [--skill <name> ...] [--ref <ref>] [--registry <url>] [--dry-run] | import --update [<name> ...] --to <shelf> [--ref <ref>] [--yes]  bring skills from a git repository, a well-known index, a ClawHub registry or a folder the shelf's sources: allow (audited, with provenance; never over the team's edits)",
    example: "skillshelf import acme/skills --skill pdf-tools --ref v1.2.0 --to shelf --dry-run",
    load: () => import("./commands/import.ts"),
  },
  init: {
    summary:
      "init <dir> [--name <name>] [--empty] [--exclude a,b ...] [--package <tarball | spec>] | init --check [<dir>] [--json]  write a team's shelf repository (no fork), or name the edits an upgrade needs",
    example: "skillshelf init acme-skills --exclude release-checklist",
    load: () => import("./commands/init.ts"),
  },
  inspect: {
    summary: "inspect <skill-dir> [--json]  inventory, hashes and frontmatter (a summary for people, the whole report with --json)",
    example: "skillshelf inspect shelf/release-checklist",
    load: () => import("./commands/inspect.ts"),
  },
  install: {
    summary:
      "install --to <skills-dir> [--url <shelf-url>] [--lock skillshelf-lock.json] [--force] [--token-env NAME]  install exactly the locked bytes of every skill in the lockfile (digests and tree hashes checked)",
    example: "skillshelf install --to .claude/skills",
    load: () => import("./commands/install.ts"),
  },
  keygen: {
    summary:
      "keygen --out <file> [--key-id <id>] [--shelf <dir>] [--build <dir>] [--json]  write an Ed25519 signing key (PKCS#8 PEM, mode 0600) and print its public half",
    example: "skillshelf keygen --out ~/.config/skillshelf/signing.pem --key-id 2026-12",
    load: () => import("./commands/keygen.ts"),
  },
  lock: {
    summary:
      "lock --url <shelf-url> <name[@range]>... [--out skillshelf-lock.json] [--token-env NAME] [--json]  resolve versions on a shelf and write a lockfile",
    example: "skillshelf lock --url http://localhost:8787 code-review@^1.2",
    load: () => import("./commands/lock.ts"),
  },
  outdated: {
    summary:
      "outdated --url <shelf-url> [--lock skillshelf-lock.json | --lock skills-lock.json | --dir <skills-folder>] [--json] [--token-env NAME]  per installed skill: current, newer, deprecated, blocked or gone (exit 1 when blocked or gone)",
    example: "skillshelf outdated --url https://skills.example.com --dir .claude/skills",
    load: () => import("./commands/outdated.ts"),
  },
  outline: {
    summary: "outline <skill-dir> [--json]  a skill's sections, keys and token estimates",
    example: "skillshelf outline shelf/release-checklist",
    load: () => import("./commands/outline.ts"),
  },
  publish: {
    summary:
      "publish --url <worker-url> [--dir <build>] [--token-env NAME] [--json] [--wait] [--wait-timeout S] [--read-token-env NAME]  upload what changed and make the build current (--wait: until the Worker serves it, then has it build the shelf-wide listings)",
    example: "skillshelf publish --url http://localhost:8787 --dir dist/shelf",
    load: () => import("./commands/publish.ts"),
  },
  reindex: {
    summary: "reindex --url <worker-url> [--token-env NAME] [--json]  rebuild the shelf's version index from the pointer's history",
    example: "skillshelf reindex --url http://localhost:8787",
    load: () => import("./commands/reindex.ts"),
  },
  rollback: {
    summary:
      "rollback --url <worker-url> (<generation> | --previous | --seq N) [--token-env NAME] [--wait] [--wait-timeout S] [--read-token-env NAME]  make an earlier generation current again (an id, a unique prefix of 8+ hex digits, the previous one, or a history seq)",
    example: "skillshelf rollback --url http://localhost:8787 --previous",
    load: () => import("./commands/rollback.ts"),
  },
  seed: {
    summary:
      "seed --from <bundle-shelf | curated> --to <team-shelf> [--exclude a,b ...] [--json]  copy a curated shelf in (curated: the one this package ships), never clobbering edits",
    example: "skillshelf seed --from shelf --to team-shelf --exclude security-review",
    load: () => import("./commands/seed.ts"),
  },
  select: {
    summary:
      "select <shelf-dir> --names a,b [--enable name|name@hash[,…] ...] [--root <dir> ...] [--json]  the trust-gated selection and its <available_skills> block",
    example: "skillshelf select shelf --names release-checklist --enable release-checklist",
    load: () => import("./commands/select.ts"),
  },
  section: {
    summary: "section <skill-dir> <key>  one section of a skill's body",
    example: "skillshelf section shelf/release-checklist <key>",
    load: () => import("./commands/section.ts"),
  },
  trust: {
    summary: "trust <shelf-dir> [--json]  each skill's trust verdict and reasons",
    example: "skillshelf trust shelf",
    load: () => import("./commands/trust.ts"),
  },
  validate: {
    summary: "validate <skill-or-shelf-dir> [--json]  check every skill, list every problem",
    example: "skillshelf validate shelf",
    load: () => import("./commands/validate.ts"),
  },
  verify: {
    summary:
      "verify <url> (--key-id <id> --public-key <base64> | --keys <file> | --trust-on-first-use <file>) [--origin <origin>] [--token-env NAME] [--json]  download a shelf and check every digest and signature",
    example: "skillshelf verify http://localhost:8787 --trust-on-first-use .skillshelf/pinned-keys.json",
    load: () => import("./commands/verify.ts"),
  },
};

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  skillshelf ${c.summary}`);
  return `usage: skillshelf <command> [args]\n\ncommands:\n${lines.join("\n")}\n`;
}

/** One command's help: its usage line with every option, what it does, and an example. */
function commandHelp(entry: CommandEntry): string {
  const gap = entry.summary.indexOf("  ");
  const [usage, what] = [entry.summary.slice(0, gap), entry.summary.slice(gap + 2)];
  return `usage: skillshelf ${usage}\n\n${what}\n\nexample:\n  ${entry.example}\n`;
}

/** The version in the package.json next to the CLI's source (or its bundle). */
async function version(): Promise<string> {
  const { ownPackage } = await import("./lib/package-root.ts");
  return ownPackage().then(
    (own) => own.version,
    () => "unknown",
  );
}

/** What the command line runs with: its two output streams, whether stderr is a terminal, the environment. */
export type CliIo = Omit<CliContext, "args">;

/**
 * Runs one command line (argv without node and the script): help, the version, or a command.
 * A command's CliError or bug propagates; {@link reportFailure} turns it into the exit code.
 * @example await dispatch(["hash", "shelf/skills/code-review"], io) // => 0
 */
export async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" && args[0] !== undefined && Object.hasOwn(COMMANDS, args[0]) ? COMMANDS[args[0]] : undefined;
    io.stdout(topic ? commandHelp(topic) : help());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.stdout(`skillshelf ${await version()}\n`);
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr(`skillshelf: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  // --help anywhere before a `--` asks for help, whatever else the line holds.
  const end = args.indexOf("--");
  if ((end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h")) {
    io.stdout(commandHelp(entry));
    return 0;
  }
  const { run } = await entry.load();
  return run({ args, ...io });
}

/**
 * Prints what a failed command line threw and returns its exit code: a user's mistake is one
 * line and its own code, anything else a bug with its stack (exit 70).
 * @example reportFailure(new UsageError("no shelf"), io) // => 2
 */
export function reportFailure(error: unknown, io: Pick<CliIo, "stderr">): number {
  if (error instanceof CliError) {
    io.stderr(`skillshelf: ${error.message}\n`);
    return error.exitCode;
  }
  io.stderr(`skillshelf: internal error (a bug, please report it):\n${(error as Error)?.stack ?? String(error)}\n`);
  return 70;
}

/**
 * {@link dispatch}, with a failure reported: the exit code the command line ends with.
 * @example await main(["--version"], io) // => 0
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}
