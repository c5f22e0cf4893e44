// The real `clawhub` CLI (npm clawhub, pinned in package.json) against a running shelf's ClawHub
// API (src/worker/views/clawhub): search, install (byte-identical), inspect (sha256s), --site
// discovery and the review mapping on the curated shelf; install --version of an older version,
// update after a publish and "up to date" (through /resolve's fingerprint too), and on a private
// shelf `login --token`, the same commands, and an outsider's 401. Every run has its own HOME,
// CLAWHUB_CONFIG_PATH (the CLI writes the registry it resolved there) and workdir; telemetry off.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { runBounded, type BoundedRun } from "./bounded-child.ts";
import { compareTrees } from "./trees.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "node_modules", "clawhub", "bin", "clawdhub.js");
const CLI_TIMEOUT_MS = 60_000;
const JUNK = new Set([".DS_Store", "Thumbs.db", "desktop.ini"]);

/** Every regular file under `dir` by POSIX path, leaving out the CLI's own `.clawhub/` state. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      if (JUNK.has(entry.name) || (rel === "" && entry.name === ".clawhub")) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) out.set(child, await readFile(path.join(dir, child)));
    }
  }
  await walk("");
  return out;
}

/** One CLI user: a scratch HOME, config file and workdir. */
export class ClawhubUser {
  readonly home: string;
  readonly config: string;
  readonly workdir: string;
  readonly log: string[] = [];

  constructor(root: string) {
    this.home = path.join(root, "home");
    this.config = path.join(root, "clawhub-config.json");
    this.workdir = path.join(root, "work");
  }

  static async create(parent: string, name: string): Promise<ClawhubUser> {
    const user = new ClawhubUser(path.join(parent, name));
    await mkdir(user.home, { recursive: true });
    await mkdir(user.workdir, { recursive: true });
    return user;
  }

  /** Runs `clawhub --workdir <workdir> --no-input <args>` non-interactively; keeps the output for a failure report. */
  async run(args: string[]): Promise<BoundedRun> {
    const result = await runBounded(process.execPath, [CLI, "--workdir", this.workdir, "--no-input", ...args], {
      cwd: this.workdir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: this.home,
        XDG_CONFIG_HOME: path.join(this.home, ".config"),
        CLAWHUB_CONFIG_PATH: this.config,
        CLAWHUB_DISABLE_TELEMETRY: "1",
        NO_COLOR: "1",
        CI: "1",
      },
      timeoutMs: CLI_TIMEOUT_MS,
    });
    this.log.push(`$ clawhub ${args.join(" ")}  (exit ${result.code})\n${result.output.trim()}`);
    return result;
  }

  skillDir(slug: string): string {
    return path.join(this.workdir, "skills", slug);
  }

  async configJson(): Promise<{ registry?: string; token?: string }> {
    return JSON.parse(await readFile(this.config, "utf8")) as { registry?: string; token?: string };
  }
}

/** A check's outcome: its problems, and the CLI transcript to show when there are any. */
export interface ClawhubCheck {
  problems: string[];
  output: string;
}

function outcome(problems: string[], ...users: ClawhubUser[]): ClawhubCheck {
  return { problems, output: problems.length ? users.flatMap((u) => u.log).join("\n") : "" };
}

/** Problems unless `run` exited 0 and printed `expected`. */
function expectRun(problems: string[], what: string, run: BoundedRun, expected?: RegExp): void {
  if (run.code !== 0) problems.push(`${what} exited ${run.code}`);
  else if (expected && !expected.test(run.output)) problems.push(`${what} did not print ${expected}`);
}

/**
 * The curated shelf: `search` finds a skill, `install` of every skill writes byte-identical files
 * (the one that requires review only with --force; without it the CLI refuses), `inspect --files`
 * lists every file's sha256, `explore` and `search --prefix` list skills with their versions, and
 * `--site` finds the API through /.well-known/clawhub.json.
 */
export async function clawhubOnCuratedShelf(url: string, shelfDir: string): Promise<ClawhubCheck> {
  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-clawhub-"));
  const problems: string[] = [];
  const user = await ClawhubUser.create(work, "curated");
  const site = await ClawhubUser.create(work, "site");
  try {
    const registry = ["--registry", url];
    const found = await user.run([...registry, "search", "a", "test", "keeps", "failing", "on", "CI"]);
    expectRun(problems, "search", found, /flaky-test-triage/);

    const names = (await readdir(path.join(shelfDir, "skills"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    const held = "release-checklist";
    const refused = await user.run([...registry, "install", held]);
    if (refused.code === 0 || !/--force/.test(refused.output))
      problems.push(`install ${held} (requires review) without --force exited ${refused.code}, expected a refusal naming --force`);
    for (const name of names) {
      const installed = await user.run([...registry, "install", name, ...(name === held ? ["--force"] : [])]);
      expectRun(problems, `install ${name}`, installed, /Installed/);
      if (installed.code === 0) problems.push(...compareTrees(name, await readTree(path.join(shelfDir, "skills", name)), await readTree(user.skillDir(name))));
    }

    const inspected = await user.run([...registry, "inspect", "incident-response", "--files"]);
    expectRun(problems, "inspect --files", inspected);
    for (const [file, bytes] of await readTree(path.join(shelfDir, "skills", "incident-response"))) {
      const sha = createHash("sha256").update(bytes).digest("hex");
      if (!inspected.output.split("\n").some((line) => line.startsWith(`${file}  `) && line.includes(sha)))
        problems.push(`inspect --files did not list ${file} with sha256 ${sha}`);
    }

    const explored = await user.run([...registry, "explore", "--limit", "200"]);
    expectRun(problems, "explore", explored);
    const listed = names.filter((name) => new RegExp(`^${name}  v\\d`, "m").test(explored.output));
    if (listed.length !== names.length) problems.push(`explore listed ${listed.length} of the ${names.length} curated skills with a version`);
    expectRun(problems, "search --prefix", await user.run([...registry, "search", "--prefix", "code"]), /^code-review {2}v\d/m);

    const discovered = await site.run(["--site", url, "search", "review", "code", "changes"]);
    expectRun(problems, "--site search", discovered, /code-review/);
    const cached = await site.configJson().catch(() => ({}) as { registry?: string });
    if (cached.registry !== url) problems.push(`--site left registry ${JSON.stringify(cached.registry)} in the config, expected ${url}`);
    return outcome(problems, user, site);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A one-skill shelf folder: hello-shelf at `version`, attested (so it needs no review), with a reference the fingerprint sorts before SKILL.md. */
export async function writeVersionedShelf(dir: string, version: string, attest: (dir: string) => Promise<void>): Promise<Map<string, Buffer>> {
  const skill = path.join(dir, "skills", "hello-shelf");
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(skill, "references"), { recursive: true });
  await writeFile(
    path.join(skill, "SKILL.md"),
    `---\nname: hello-shelf\ndescription: Greets a new teammate and points at the shelf's guides. Use when onboarding someone to the shelf.\nversion: "${version}"\n---\n\n# Hello, shelf\n\nRelease ${version}: read references/guide.md first.\n`,
  );
  await writeFile(path.join(skill, "references", "guide.md"), `# Guide\n\nWritten for ${version}.\n`);
  await writeFile(path.join(skill, "references", "Zeta.md"), "Sorts after guide.md by localeCompare, before it by bytes.\n");
  await attest(dir);
  return readTree(skill);
}

/** Steps of the versions check around the publish of 1.1.0 (run.ts starts and stops the shelves). */
export interface VersionedRun {
  /** Public shelf at 1.0.0: install it. */
  before(url: string): Promise<void>;
  /** Private shelf at 1.1.0 (same state, so both versions are in the index). */
  after(url: string, readToken: string, v100: Map<string, Buffer>, v110: Map<string, Buffer>): Promise<ClawhubCheck>;
  close(): Promise<void>;
}

/**
 * Install 1.0.0 from the public shelf; then, on the private shelf at 1.1.0: an outsider's 401,
 * `login --token` (whoami), `update` bringing 1.1.0's bytes, "up to date" after it (also with
 * origin.json gone, so only /resolve's fingerprint can match), `install --version 1.0.0`, search
 * and inspect with the token.
 */
export async function clawhubVersioned(): Promise<VersionedRun> {
  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-clawhub-versions-"));
  const user = await ClawhubUser.create(work, "teammate");
  const outsider = await ClawhubUser.create(work, "outsider");
  const older = await ClawhubUser.create(work, "older");
  const problems: string[] = [];
  return {
    async before(url) {
      expectRun(problems, "install hello-shelf (1.0.0, public)", await user.run(["--registry", url, "install", "hello-shelf"]), /v1\.0\.0/);
    },
    async after(url, readToken, v100, v110) {
      const registry = ["--registry", url];
      const denied = await outsider.run([...registry, "search", "hello"]);
      if (denied.code === 0 || !/private/i.test(denied.output)) problems.push(`an outsider's search exited ${denied.code} without the 401's message`);
      const wrong = await outsider.run([...registry, "login", "--token", "sk_not_a_read_token_0123456789"]);
      if (wrong.code === 0) problems.push("login --token with a wrong token succeeded");

      expectRun(problems, "login --token", await user.run([...registry, "login", "--token", readToken]), /Logged in as @shelf-reader/);
      const config = await user.configJson();
      if (config.token !== readToken || config.registry !== url) problems.push(`login wrote ${JSON.stringify(config)}, expected the registry and the token`);
      expectRun(problems, "whoami", await user.run([...registry, "whoami"]), /shelf-reader/);
      expectRun(problems, "search (token)", await user.run([...registry, "search", "onboarding", "teammate"]), /hello-shelf v1\.1\.0/);

      expectRun(problems, "update after the publish", await user.run([...registry, "update", "hello-shelf"]), /Updated hello-shelf -> v1\.1\.0/);
      problems.push(...compareTrees("hello-shelf@1.1.0", v110, await readTree(user.skillDir("hello-shelf"))));
      expectRun(problems, "update again", await user.run([...registry, "update", "--all"]), /hello-shelf up to date v1\.1\.0/);
      // Without origin.json only /resolve can say which version these files are.
      await rm(path.join(user.skillDir("hello-shelf"), ".clawhub", "origin.json"), { force: true });
      expectRun(problems, "update without origin.json (resolve by fingerprint)", await user.run([...registry, "update", "hello-shelf"]), /up to date v1\.1\.0/);

      await older.run([...registry, "login", "--token", readToken]);
      expectRun(problems, "install --version 1.0.0", await older.run([...registry, "install", "hello-shelf", "--version", "1.0.0"]), /v1\.0\.0/);
      problems.push(...compareTrees("hello-shelf@1.0.0", v100, await readTree(older.skillDir("hello-shelf"))));

      const inspected = await older.run([...registry, "inspect", "hello-shelf", "--versions", "--files", "--version", "1.0.0"]);
      expectRun(problems, "inspect --versions --files --version 1.0.0", inspected);
      for (const [file, bytes] of v100) {
        const sha = createHash("sha256").update(bytes).digest("hex");
        if (!inspected.output.split("\n").some((line) => line.startsWith(`${file}  `) && line.includes(sha)))
          problems.push(`inspect did not list ${file} of 1.0.0 with sha256 ${sha}`);
      }
      const versions = inspected.output.match(/^(1\.\d\.\d)\b/gm) ?? [];
      if (!isDeepStrictEqual(versions, ["1.1.0", "1.0.0"])) problems.push(`inspect --versions listed ${JSON.stringify(versions)}, expected 1.1.0 then 1.0.0`);
      return outcome(problems, user, outsider, older);
    },
    async close() {
      await rm(work, { recursive: true, force: true });
    },
  };
}
