// The relevance table of search (issue 13): task descriptions written the way a person asks for
// help (not lifted from the skills' descriptions), each with the curated skill that must rank in
// the top 3, searched through the index `skillshelf build` stores for ./shelf, ranked as the
// Worker ranks it. When a row fails, improve the ranking (src/core/search), not the row.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildShelf } from "../../src/cli/lib/build.ts";
import { parseQuery, prepareSearchIndex, searchIndex, type PreparedSearchIndex } from "../../src/core/search/bm25.ts";

/** [what a user types, the skill that must be in the top 3]. */
const TABLE: ReadonlyArray<readonly [string, string]> = [
  ["can you look over my diff before I merge it", "code-review"],
  ["my PR needs a second pair of eyes before merging", "code-review"],
  ["is this change ready to land? check it for bugs", "code-review"],
  ["fill in the description for the merge request I'm opening", "pull-request-descriptions"],
  ["explain to reviewers what my branch changes and how I tested it", "pull-request-descriptions"],
  ["tidy the git history and reword my commits", "commit-messages"],
  ["how should I word the commit for this bugfix", "commit-messages"],
  ["squash these fixup commits into something readable", "commit-messages"],
  ["we have an outage, checkout is returning 500s for everyone", "incident-response"],
  ["I'm on call and an alert just fired for high latency", "incident-response"],
  ["we need a runbook for the next hour, prod is degraded", "incident-response"],
  ["write up last week's outage and the follow-up actions", "writing-postmortems"],
  ["blameless review of what went wrong during the outage", "writing-postmortems"],
  ["a test keeps failing on CI but passes on my laptop", "flaky-test-triage"],
  ["this spec is intermittent, rerunning the pipeline makes it green", "flaky-test-triage"],
  ["add an index to a huge table in production without locking it", "database-migration-safety"],
  ["rename a column in a big postgres table without downtime", "database-migration-safety"],
  ["dependabot opened twenty PRs bumping packages", "dependency-upgrades"],
  ["a CVE was announced for a package we depend on", "dependency-upgrades"],
  ["move our service to the next major version of the framework", "dependency-upgrades"],
  ["prepare the changelog and cut 3.1.0", "release-checklist"],
  ["we shipped a broken version to npm, how do we yank it", "release-checklist"],
  ["check this change for injection or leaked secrets", "security-review"],
  ["does this login code have any auth holes", "security-review"],
  ["record why we picked Postgres over Mongo", "writing-adrs"],
  ["we need to write an ADR for switching to gRPC", "writing-adrs"],
  ["is this pagination scheme for our JSON API going to hold up", "api-design-review"],
  ["will renaming this response field break our clients", "api-design-review"],
  ["teach agents our team's on-call handover as a skill", "authoring-skills"],
  ["create a new SKILL.md for our shelf", "authoring-skills"],
  ["set up our own skills server on Cloudflare for the team", "deploying-a-team-shelf"],
  ["our skillshelf publish errored out", "deploying-a-team-shelf"],
];

/**
 * Tasks a lexical ranking cannot place yet: they share no word (nor a spelled-out abbreviation)
 * with the skill's name, tags, description, when_to_use or headings. Recorded so the limit is
 * visible; when a ranking change places one, this fails and the row moves to TABLE.
 */
const KNOWN_MISSES: ReadonlyArray<readonly [string, string]> = [
  ["the site is down and customers are getting 500 errors", "incident-response"],
  ["I got paged at 3am, the checkout service is erroring", "incident-response"],
  ["note down why we chose event sourcing for the billing service", "writing-adrs"],
  ["write down the tradeoffs behind our choice of message queue", "writing-adrs"],
];

let index: PreparedSearchIndex;
let names: string[];

function top3(task: string): string[] {
  return searchIndex(index, parseQuery(task).terms, { limit: 3 }).map((hit) => hit.name);
}

beforeAll(async () => {
  const out = mkdtempSync(path.join(tmpdir(), "skillshelf-relevance-"));
  try {
    const built = await buildShelf(path.resolve("shelf"), out, { jobs: 1 });
    const blob = readFileSync(path.join(out, "blobs", built.manifest.search!.sha256), "utf8");
    index = prepareSearchIndex(JSON.parse(blob));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  names = [...index.names];
});

describe("search relevance on the curated shelf", () => {
  it("has at least 20 rows, names only curated skills, and asks for every skill at least once", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(20);
    for (const [, skill] of [...TABLE, ...KNOWN_MISSES]) expect(names, skill).toContain(skill);
    expect(new Set(TABLE.map(([, skill]) => skill))).toEqual(new Set(names));
  });

  it.each(TABLE)("%j ranks %s in the top 3", (task, skill) => {
    expect(top3(task)).toContain(skill);
  });

  it.fails.each(KNOWN_MISSES)("known miss: %j does not yet rank %s in the top 3", (task, skill) => {
    expect(top3(task)).toContain(skill);
  });
});
