// The Atom feeds (src/core/changes/atom.ts) over a publish sequence's change documents: valid
// against RFC 4287's RELAX NG schema (Appendix B, test/fixtures/atom/rfc4287.rnc) with jing, and
// read back by Python's feedparser with the titles, ids, links and times we wrote. jing is the
// Debian package `jing`; feedparser is found in SKILLSHELF_FEEDPARSER_PYTHON, .venv-refs (pinned in
// scripts/refs/requirements.txt) or python3. Without them `npm test` skips these, naming why;
// .ci/run installs both before npm test and sets SKILLSHELF_REQUIRE_FEED_TOOLS=1, which turns a
// missing tool into a failure, so CI never passes on a skip.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderAtomFeed, type FeedEntry } from "../../src/core/changes/atom.ts";
import { buildChangeDocument, type ChangeSide, type ChangeSkill } from "../../src/core/changes/document.ts";
import { LIFECYCLE_SCHEMA } from "../../src/core/changes/lifecycle.ts";
import type { AdvisoryEntry } from "../../src/core/trust/records.ts";

const SCHEMA = path.resolve(import.meta.dirname, "../fixtures/atom/rfc4287.rnc");
const work = mkdtempSync(path.join(tmpdir(), "skillshelf-atom-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
const JING = has("jing", []) || spawnSync("jing", [], { stdio: "ignore" }).error === undefined;
const PYTHON = [process.env.SKILLSHELF_FEEDPARSER_PYTHON, path.resolve(".venv-refs/bin/python"), "python3"].find(
  (p) => p !== undefined && has(p, ["-c", "import feedparser"]),
);

if (process.env.SKILLSHELF_REQUIRE_FEED_TOOLS === "1") {
  it("has jing and feedparser (SKILLSHELF_REQUIRE_FEED_TOOLS=1, as .ci/run sets it)", () => {
    expect(JING, "jing is not on PATH (apt-get install jing)").toBe(true);
    expect(PYTHON, "no python with feedparser (scripts/refs/setup.sh installs it into .venv-refs)").toBeDefined();
  });
}

const hex = (c: string) => c.repeat(64);
const skill = (name: string, tree: string, version: string | null = null): ChangeSkill => ({
  name,
  version,
  tree_hash: hex(tree),
  has_scripts: false,
  trust: { source: null },
});
const side = (
  g: string,
  skills: ChangeSkill[],
  lifecycle: Record<string, { deprecated: string | null; replaced_by: string | null }> | null = null,
  advisories: AdvisoryEntry[] = [],
): ChangeSide => ({
  generation: hex(g),
  skills: new Map(skills.map((s) => [s.name, s])),
  lifecycle: lifecycle ? { schema: LIFECYCLE_SCHEMA, skills: lifecycle } : null,
  advisories,
});

/** A publish sequence: add, change, rename, deprecate, an advisory block, a rollback; text that needs escaping on purpose. */
function sequence(): FeedEntry[] {
  const advisory = {
    name: "alpha",
    source: "x",
    official_intent: "i",
    hidden_issue: "h",
    severity: "critical",
    reference: "r",
    tree_hash: hex("c"),
    advisory_id: "ASA-<1>&",
    status: "active",
  } as unknown as AdvisoryEntry;
  const s1 = side("1", [skill("alpha", "a", "1.0.0"), skill("beta", "b")]);
  const s2 = side("2", [skill("alpha", "c", "1.1.0"), skill("beta", "b")]);
  const s3 = side("3", [skill("alpha", "c", "1.1.0"), skill("beta-two", "d")], { beta: { deprecated: null, replaced_by: "beta-two" } });
  const s4 = side("4", [skill("alpha", "c", "1.1.0"), skill("beta-two", "d")], {
    beta: { deprecated: null, replaced_by: "beta-two" },
    alpha: { deprecated: 'use "beta-two" & friends <soon>', replaced_by: null },
  });
  const docs = [
    buildChangeDocument({ seq: 1, action: "publish", at: "2026-12-01T10:00:00.000Z" }, null, s1),
    buildChangeDocument({ seq: 2, action: "publish", at: "2026-12-01T11:00:00.000Z" }, s1, s2),
    buildChangeDocument({ seq: 3, action: "publish", at: "2026-12-01T12:00:00.000Z" }, s2, s3),
    buildChangeDocument({ seq: 4, action: "publish", at: "2026-12-01T13:00:00.000Z" }, s3, s4),
    buildChangeDocument({ seq: 5, action: "advisory", at: "2026-12-01T14:00:00.000Z" }, s4, { ...s4, advisories: [advisory] }),
    buildChangeDocument({ seq: 6, action: "rollback", at: "2026-12-01T15:00:00.000Z" }, { ...s4, advisories: [advisory] }, { ...s2, advisories: [advisory] }),
  ];
  return docs.map((d) => ({ seq: d.seq, action: d.action, at: d.at, generation: d.generation, changes: d }));
}

const SHELF = { self: "https://shelf.example/ui/feed.xml", alternate: "https://shelf.example/ui/", title: "What changed on this shelf", skill: null };
const ALPHA = {
  self: "https://shelf.example/ui/skills/alpha/feed.xml",
  alternate: "https://shelf.example/ui/skills/alpha",
  title: "What changed in alpha",
  skill: "alpha",
};

function write(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

describe.skipIf(!JING)("Atom feeds against RFC 4287's RELAX NG schema (needs jing: apt-get install jing)", () => {
  it("the shelf's feed, a skill's feed and an empty feed are valid", () => {
    for (const [name, text] of [
      ["shelf.xml", renderAtomFeed(SHELF, sequence(), "2026-12-01T00:00:00.000Z")],
      ["alpha.xml", renderAtomFeed(ALPHA, sequence(), "2026-12-01T00:00:00.000Z")],
      ["empty.xml", renderAtomFeed(SHELF, [], "2026-12-01T00:00:00.000Z")],
    ] as const) {
      const r = spawnSync("jing", ["-c", SCHEMA, write(name, text)], { encoding: "utf8" });
      expect(r.status, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it("the validator refuses a feed that breaks the schema (the check can fail)", () => {
    const broken = renderAtomFeed(SHELF, sequence(), "2026-12-01T00:00:00.000Z").replace(/<updated>[^<]*<\/updated>/, "<updated>yesterday</updated>");
    expect(spawnSync("jing", ["-c", SCHEMA, write("broken.xml", broken)], { encoding: "utf8" }).status).not.toBe(0);
  });
});

describe.skipIf(PYTHON === undefined)(
  "Atom feeds read by Python's feedparser (needs feedparser in SKILLSHELF_FEEDPARSER_PYTHON, .venv-refs or python3)",
  () => {
    it("parses without a bozo error, with our entries newest first and the escaped text intact", () => {
      const file = write("parse.xml", renderAtomFeed(SHELF, sequence(), "2026-12-01T00:00:00.000Z"));
      const script = [
        "import feedparser, json, sys",
        "d = feedparser.parse(sys.argv[1])",
        "print(json.dumps({'bozo': d.bozo, 'version': d.version, 'title': d.feed.title, 'links': [[l.rel, l.href] for l in d.feed.links],",
        " 'entries': [{'id': e.id, 'title': e.title, 'updated': e.updated, 'link': e.link, 'content': e.content[0].value, 'tags': [t.term for t in e.tags]} for e in d.entries]}))",
      ].join("\n");
      const parsed = JSON.parse(execFileSync(PYTHON!, ["-c", script, file], { encoding: "utf8" }));
      expect(parsed.bozo).toBe(false);
      expect(parsed.version).toBe("atom10");
      expect(parsed.title).toBe("What changed on this shelf");
      expect(parsed.links).toEqual([
        ["self", SHELF.self],
        ["alternate", SHELF.alternate],
      ]);
      expect(parsed.entries.map((e: { id: string }) => e.id)).toEqual([6, 5, 4, 3, 2, 1].map((n) => `${SHELF.self}#seq-${n}`));
      expect(parsed.entries.map((e: { tags: string[] }) => e.tags[0])).toEqual(["rollback", "advisory", "publish", "publish", "publish", "publish"]);
      expect(parsed.entries[5].title).toBe("Publish 1: added alpha 1.0.0 (aaaaaaaaaaaa) and 1 more");
      expect(parsed.entries[3].title).toBe("Publish 3: renamed beta -> beta-two");
      expect(parsed.entries[2].content).toContain('deprecated alpha: use "beta-two" & friends <soon>');
      expect(parsed.entries[1].title).toBe("Advisory change 5: BLOCKED alpha by advisory ASA-<1>& (critical)");
      expect(parsed.entries[0].updated).toBe("2026-12-01T15:00:00.000Z");
    });

    it("a skill's feed keeps only the entries that name it", () => {
      const file = write("alpha-parse.xml", renderAtomFeed(ALPHA, sequence(), "2026-12-01T00:00:00.000Z"));
      const out = execFileSync(
        PYTHON!,
        ["-c", "import feedparser,json,sys; d=feedparser.parse(sys.argv[1]); print(json.dumps([e.title for e in d.entries]))", file],
        { encoding: "utf8" },
      );
      expect(JSON.parse(out)).toEqual([
        "Rollback 6: no longer deprecated: alpha",
        "Advisory change 5: BLOCKED alpha by advisory ASA-<1>& (critical)",
        'Publish 4: deprecated alpha: use "beta-two" & friends <soon>',
        "Publish 2: changed alpha 1.0.0 (aaaaaaaaaaaa) -> 1.1.0 (cccccccccccc)",
        "Publish 1: added alpha 1.0.0 (aaaaaaaaaaaa)",
      ]);
    });
  },
);
