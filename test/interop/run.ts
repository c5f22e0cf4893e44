// `npm run test:interop`: the real clients against a running shelf, on loopback.
//  1. agentskills-http + agentskills-testing's ProviderConformanceSuite (plain, both manifests,
//     file manifest, content limit, revalidation) against <shelf>/skills, contract shelf.
//  1b. the curated shelf (./shelf, as `npm start` serves it) loads in every client we run
//     (docs/compatibility.md, "What each client reads"): agentskills-http's register_all registers
//     all of it, every skill passes agentskills-core's snapshot and signing checks and reads back
//     byte-identical, and the `skills` CLI installs all of it; `skills find` (SKILLS_API_URL) finds
//     a curated skill through /api/search and `skills add <source> --skill` installs it.
//  1s. signatures (docs/signing.md): npm start signs the curated shelf with a throwaway key;
//     agentskills-core 0.7.0's own TrustPolicy(...).verify(...) accepts every skill's served signature
//     over the files agentskills-http captures (and refuses a changed byte, another origin or key),
//     the generation signature verifies, and `skillshelf verify` exits 0 (1 for a wrong origin).
//  1c. the forms the curated shelf avoids (fixtures/other-forms-shelf): agentskills-core refuses
//     exactly the ones fixtures/other-forms.json says, which are the ones validate warns about.
//  1d. MCP (/mcp): the official @modelcontextprotocol/client SkillsClient reads every file of the
//     curated shelf with verification on both eras, and the eight tools answer as
//     agentskills-mcp-server 0.6.0 did over the golden skills (test/goldens/mcp-tools).
//  1h. ClawHub (test/interop/clawhub.ts): the real `clawhub` CLI searches, installs (byte-identical),
//     inspects and discovers (--site) the curated shelf; installs an older version, updates after a
//     publish and reports "up to date"; logs in to a private shelf with a read token (an outsider gets 401).
//  1m. Claude Code 2.1.332 (test/interop/claude-code.ts): `claude plugin marketplace add` of the
//     shelf's /.claude-plugin/marketplace.json over https at a test host name (an /etc/hosts line
//     the test adds and removes; run as root) and `claude plugin install` write the skill
//     byte-identical; after a publish, marketplace update + plugin update bring the new bytes; a
//     private shelf's capability URL installs too.
//  2. the `skills` CLI installing the client shelf through the v0.2 index, through the legacy
//     v0.1 index (SHELF_DISCOVERY=v0.1), and through a private shelf's capability URL (where
//     `skills find` searches and `skills add --skill` installs through it too).
//  2u. the `skills` CLI across publishes (test/interop/skills-update.ts): `skills check` names a
//     changed skill and `skills update` installs it byte-identical; a deprecated skill says so in
//     the v0.2 index; `skillshelf outdated` reads the skills-lock.json the CLI wrote.
// Everything started here is stopped whatever happens; the whole run is bounded.
// One part alone: `npm run test:interop -- --only <part>`, a part being one of SUITES.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runBounded, type BoundedRun } from "./bounded-child.ts";
import { claudeMarketplaceChecks } from "./claude-code.ts";
import { clawhubOnCuratedShelf, clawhubVersioned, writeVersionedShelf } from "./clawhub.ts";
import { compareToolGoldens, readEverySkill, writeGoldenShelf } from "./mcp.ts";
import { LOCAL_SIGNING_KEY_ID } from "../../scripts/start.ts";
import { startShelf, stopAll, type RunningShelf } from "./shelf-server.ts";
import { installAndCompare } from "./skills-cli.ts";
import { skillsUpdateChecks } from "./skills-update.ts";
import { findAndInstall } from "./skills-find.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.join(import.meta.dirname, "fixtures");
const CONTRACT_SHELF = path.join(FIXTURES, "contract-shelf");
const CLIENT_SHELF = path.join(FIXTURES, "client-shelf");
const CURATED_SHELF = path.join(ROOT, "shelf");
const OTHER_FORMS_SHELF = path.join(FIXTURES, "other-forms-shelf");
const OTHER_FORMS = path.join(FIXTURES, "other-forms.json");
const PYTHON = path.join(ROOT, ".venv-refs", "bin", "python");
const RUN_TIMEOUT_MS = 8 * 60_000;
const PYTEST_TIMEOUT_MS = 4 * 60_000;

/** The parts `--only` can name, in the order they run. */
const SUITES = ["conformance", "curated", "mcp-goldens", "other-forms", "skills-cli", "skills-update", "clawhub", "claude-code"] as const;
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (onlyAt >= 0 && !SUITES.includes(only as (typeof SUITES)[number])) {
  console.error(`interop: --only takes one of ${SUITES.join(", ")}`);
  process.exit(2);
}
/** Whether this run includes the part. */
const runs = (suite: (typeof SUITES)[number]) => only === undefined || only === suite;

let failures = 0;
function report(name: string, problems: string[], output = ""): void {
  if (problems.length === 0) {
    console.log(`ok   ${name}`);
    return;
  }
  failures++;
  console.log(`FAIL ${name}`);
  for (const p of problems) console.log(`     - ${p}`);
  if (output)
    console.log(
      output
        .split("\n")
        .map((l) => `     | ${l}`)
        .join("\n"),
    );
}

function pytest(base: string, file = "test_agentskills_http.py", env: Record<string, string> = {}): Promise<BoundedRun> {
  return runBounded(PYTHON, ["-m", "pytest", path.join(import.meta.dirname, file), "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"], {
    cwd: ROOT,
    env: { ...process.env, ...env, SKILLSHELF_INTEROP_BASE: base, PYTHONDONTWRITEBYTECODE: "1" },
    timeoutMs: PYTEST_TIMEOUT_MS,
  });
}

async function withShelf<T>(shelfDir: string, state: string, vars: Record<string, string>, body: (shelf: RunningShelf) => Promise<T>): Promise<T> {
  const shelf = await startShelf(shelfDir, state, vars);
  try {
    return await body(shelf);
  } finally {
    await shelf.stop();
  }
}

/** The curated shelf's signatures, through agentskills-core's verifier and `skillshelf verify`. */
async function signatureChecks(shelf: RunningShelf): Promise<void> {
  const signing = { SKILLSHELF_SIGNING_KEY_ID: LOCAL_SIGNING_KEY_ID, SKILLSHELF_SIGNING_PUBLIC_KEY: shelf.signingPublicKey ?? "" };
  const trust = await pytest(shelf.url, "test_signed_shelf.py", signing);
  report(
    `agentskills-core TrustPolicy.verify accepts every curated skill's signature over the files captured from the Worker, and the generation signature (${trust.output.trim().split("\n").at(-1) ?? ""})`,
    trust.code === 0 ? [] : [`pytest exited ${trust.code}`],
    trust.code === 0 ? "" : trust.output,
  );
  const verify = (...extra: string[]) =>
    runBounded(
      process.execPath,
      [
        path.join(ROOT, "src", "cli", "skillshelf.ts"),
        "verify",
        shelf.url,
        "--key-id",
        LOCAL_SIGNING_KEY_ID,
        "--public-key",
        signing.SKILLSHELF_SIGNING_PUBLIC_KEY,
        ...extra,
      ],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, timeoutMs: PYTEST_TIMEOUT_MS },
    );
  const good = await verify();
  const wrongOrigin = await verify("--origin", "https://elsewhere.example");
  const problems: string[] = [];
  if (good.code !== 0) problems.push(`skillshelf verify exited ${good.code}`);
  if (wrongOrigin.code !== 1) problems.push(`skillshelf verify --origin <another> exited ${wrongOrigin.code}, expected 1`);
  report(
    `skillshelf verify ${shelf.url} (${good.output.trim().split("\n").at(-1) ?? ""}); another origin is refused`,
    problems,
    problems.length ? `${good.output}\n${wrongOrigin.output}` : "",
  );
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), "skillshelf-interop-"));
  try {
    // --- agentskills-http conformance -------------------------------------------------------
    if (runs("conformance")) {
      const contractState = path.join(work, "contract-state");
      await withShelf(CONTRACT_SHELF, contractState, {}, async (shelf) => {
        const { code, output } = await pytest(shelf.url);
        const summary = output.trim().split("\n").at(-1) ?? "";
        report(
          `agentskills-http ProviderConformanceSuite against ${shelf.url}/skills (${summary})`,
          code === 0 ? [] : [`pytest exited ${code}`],
          code === 0 ? "" : output,
        );
      });
    }

    // --- the curated shelf in every client we can run ----------------------------------------
    if (runs("curated")) {
      await withShelf(CURATED_SHELF, path.join(work, "curated-state"), {}, async (shelf) => {
        const { code, output } = await pytest(shelf.url, "test_curated_shelf.py", { SKILLSHELF_CURATED_SHELF: CURATED_SHELF });
        const summary = output.trim().split("\n").at(-1) ?? "";
        report(
          `agentskills-http on the curated shelf: register_all registers all of it, snapshot and signing checks pass, files read back byte-identical (${summary})`,
          code === 0 ? [] : [`pytest exited ${code}`],
          code === 0 ? "" : output,
        );
        const installed = await installAndCompare(shelf.url, CURATED_SHELF);
        report("skills add installs the whole curated shelf, byte-identical", installed.problems, installed.problems.length ? installed.output : "");
        const found = await findAndInstall(shelf.url, CURATED_SHELF, ["a", "test", "keeps", "failing", "on", "CI"], "flaky-test-triage");
        report(
          "SKILLS_API_URL=<shelf> skills find lists a curated skill with the shelf as source; skills add <source> --skill installs it, byte-identical",
          found.problems,
          found.problems.length ? found.output : "",
        );
        const mcp = await readEverySkill(shelf.url, CURATED_SHELF);
        report(`MCP SkillsClient reads every file of the curated shelf at /mcp, verified (${mcp.summary})`, mcp.problems);
        await signatureChecks(shelf);
        const clawhub = await clawhubOnCuratedShelf(shelf.url, CURATED_SHELF);
        report(
          "clawhub 0.23.3 on the curated shelf: search finds a skill, install writes every skill byte-identical (release-checklist, held for review, only with --force), inspect --files lists the sha256s, --site finds the API",
          clawhub.problems,
          clawhub.output,
        );
      });
    }

    // --- MCP tools: the agentskills-mcp-server 0.6.0 goldens over HTTP -----------------------
    if (runs("mcp-goldens")) {
      const goldenShelf = path.join(work, "mcp-golden-shelf");
      await writeGoldenShelf(goldenShelf);
      await withShelf(goldenShelf, path.join(work, "mcp-golden-state"), {}, async (shelf) => {
        const tools = await compareToolGoldens(shelf.url);
        report(`MCP tools at /mcp answer as agentskills-mcp-server 0.6.0 (${tools.summary})`, tools.problems);
      });
    }

    // --- the other forms: refused by exactly the clients validate names ----------------------
    if (runs("other-forms")) {
      await withShelf(OTHER_FORMS_SHELF, path.join(work, "other-forms-state"), {}, async (shelf) => {
        const { code, output } = await pytest(shelf.url, "test_other_forms.py", { SKILLSHELF_OTHER_FORMS: OTHER_FORMS });
        const summary = output.trim().split("\n").at(-1) ?? "";
        report(
          `agentskills-core on the other forms: refused by exactly the checks other-forms.json (and validate's warnings) name (${summary})`,
          code === 0 ? [] : [`pytest exited ${code}`],
          code === 0 ? "" : output,
        );
      });
    }

    // --- the skills CLI ---------------------------------------------------------------------
    if (runs("skills-cli")) {
      const clientState = path.join(work, "client-state");

      await withShelf(CLIENT_SHELF, clientState, {}, async (shelf) => {
        const index = (await (await fetch(`${shelf.url}/.well-known/agent-skills/index.json`)).json()) as { skills: Array<{ type: string }> };
        const types = index.skills
          .map((s) => s.type)
          .sort()
          .join(",");
        const { problems, output } = await installAndCompare(shelf.url, CLIENT_SHELF);
        if (types !== "archive,archive,skill-md") problems.push(`v0.2 index types were ${types}`);
        report("skills add via the well-known v0.2.0 index", problems, problems.length ? output : "");
      });

      await withShelf(CLIENT_SHELF, clientState, { SHELF_DISCOVERY: "v0.1" }, async (shelf) => {
        const problems: string[] = [];
        const v2 = await fetch(`${shelf.url}/.well-known/agent-skills/index.json`);
        if (v2.status !== 404) problems.push(`v0.2 index answered ${v2.status}, expected 404 in a v0.1-only configuration`);
        const result = await installAndCompare(shelf.url, CLIENT_SHELF);
        problems.push(...result.problems);
        report("skills add via the legacy v0.1 index", problems, problems.length ? result.output : "");
      });

      const token = `sk_interop_${randomBytes(16).toString("hex")}`;
      const vars = { SHELF_VISIBILITY: "private", SHELF_CAPABILITY_URLS: "on", READ_TOKEN_SHA256: createHash("sha256").update(token).digest("hex") };
      await withShelf(CLIENT_SHELF, clientState, vars, async (shelf) => {
        const problems: string[] = [];
        const anonymous = await fetch(`${shelf.url}/.well-known/agent-skills/index.json`);
        if (anonymous.status !== 401) problems.push(`anonymous index read answered ${anonymous.status}, expected 401`);
        const result = await installAndCompare(`${shelf.url}/c/${token}`, CLIENT_SHELF);
        problems.push(...result.problems);
        report("skills add via a private shelf's capability URL", problems, problems.length ? result.output : "");
        const found = await findAndInstall(`${shelf.url}/c/${token}`, CLIENT_SHELF, ["preflight", "before", "a", "release"], "run-check");
        report("skills find and skills add --skill through a private shelf's capability URL", found.problems, found.problems.length ? found.output : "");
      });
    }

    // --- the skills CLI across publishes: check, update, lifecycle, skillshelf outdated ---
    if (runs("skills-update")) {
      const updates = await skillsUpdateChecks(work, withShelf);
      report(
        "skills 1.7.4 across publishes: skills check names a changed skill and brings it byte-identical, skills update too, then nothing is left; the v0.2 index says deprecated/replaced_by; skillshelf outdated reads the CLI's skills-lock.json (current, newer, deprecated, gone)",
        updates.problems,
        updates.output,
      );
    }

    // --- the clawhub CLI: versions, update after a publish, a private shelf ------------------
    if (runs("clawhub")) await clawhubVersionChecks(work);

    // --- Claude Code: the shelf as a plugin marketplace, over https at a test host -----------
    if (runs("claude-code")) {
      const claude = await claudeMarketplaceChecks(work, attestFolder);
      report(
        "Claude Code 2.1.332: plugin marketplace add + plugin install write the skill byte-identical (https, test host in /etc/hosts); after a publish marketplace update + plugin update bring the new bytes; a private shelf's capability URL installs, an anonymous read is a 401",
        claude.problems,
        claude.output,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** hello-shelf 1.0.0 on a public shelf, then 1.1.0 published over the same state as a private shelf. */
/** Attests every skill of a shelf folder (so the versioned shelves are not held for review). */
async function attestFolder(dir: string): Promise<void> {
  const run = await runBounded(process.execPath, [path.join(ROOT, "src", "cli", "skillshelf.ts"), "attest", dir, "--all", "--by", "interop"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "" },
    timeoutMs: PYTEST_TIMEOUT_MS,
  });
  if (run.code !== 0) throw new Error(`skillshelf attest exited ${run.code}: ${run.output}`);
}

async function clawhubVersionChecks(work: string): Promise<void> {
  const folder = path.join(work, "clawhub-shelf");
  const state = path.join(work, "clawhub-state");
  const attest = attestFolder;
  const versioned = await clawhubVersioned();
  try {
    const v100 = await writeVersionedShelf(folder, "1.0.0", attest);
    await withShelf(folder, state, {}, (shelf) => versioned.before(shelf.url));
    const v110 = await writeVersionedShelf(folder, "1.1.0", attest);
    const token = `sk_clawhub_${randomBytes(16).toString("hex")}`;
    const vars = { SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: createHash("sha256").update(token).digest("hex") };
    const result = await withShelf(folder, state, vars, (shelf) => versioned.after(shelf.url, token, v100, v110));
    report(
      "clawhub 0.23.3 across a publish: install --version of the older version, update brings the new bytes then says up to date (also by /resolve's fingerprint alone); on a private shelf login --token works and an outsider gets 401",
      result.problems,
      result.output,
    );
  } finally {
    await versioned.close();
  }
}

const watchdog = setTimeout(() => {
  console.error(`interop: gave up after ${RUN_TIMEOUT_MS / 60_000} minutes`);
  process.exit(1); // start.ts's exit hook kills every wrangler it started
}, RUN_TIMEOUT_MS);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => process.exit(130));
}

main()
  .then(async () => {
    clearTimeout(watchdog);
    await stopAll();
    if (failures > 0) {
      console.error(`interop: ${failures} check(s) failed`);
      process.exit(1);
    }
    console.log("interop: all checks passed");
  })
  .catch(async (err) => {
    clearTimeout(watchdog);
    await stopAll();
    console.error(`interop: ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  });
