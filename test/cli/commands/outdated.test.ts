// skillshelf outdated against a shelf's answers (a fake shelf answering as the Worker does: 200
// with deprecated/replaced_by, 301 for a renamed skill, 410 blocked, 404 gone, and the v0.2
// index's digests), from each of the three inputs: a skillshelf-lock.json and a folder of
// installed skills (by tree hash) and a skills-lock.json of the `skills` CLI (by the index digest
// it recorded as wellKnownDigest; its computedHash is the CLI's own folder hash and is ignored).
// --json, and exit 1 only when blocked or gone. The real CLI's skills-lock.json against a real
// Worker is in the interop suite (test/interop/skills-update.ts).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { fromShelf, looksLikeSkillsLock, SkillsLockSchema } from "../../../src/cli/lib/skills-lock.ts";
import { LOCK_SCHEMA } from "../../../src/core/versions/lock.ts";
import { fakeShelf, type Answer } from "../lib/fake-shelf.ts";
import { runInProcess } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-outdated-"));
const hex = (c: string) => c.repeat(64);
const NAMES = ["bad", "moved-on", "old-name", "retired", "same", "vanished"] as const;
/** What each input should report per name, sorted by name. */
const EXPECTED = [
  ["bad", "blocked", null, "ASA-9"],
  ["moved-on", "newer", null, null],
  ["old-name", "deprecated", "new-name", null],
  ["retired", "deprecated", "review-kit", null],
  ["same", "current", null, null],
  ["vanished", "gone", null, null],
];
const skill = (tree: string, extra: Record<string, unknown> = {}): Answer => ({
  json: { name: "x", tree_hash: tree, version: "1.1.0", deprecated: null, replaced_by: null, ...extra },
});
let shelf: Awaited<ReturnType<typeof fakeShelf>>;
/** Each installed folder's tree hash, by name. */
const trees: Record<string, string> = {};

beforeAll(async () => {
  // One installed folder per name; the shelf serves "same" and "retired" at the installed tree, "moved-on" at another.
  for (const name of NAMES) {
    const md = `---\nname: ${name}\ndescription: An installed skill for the outdated tests.\n---\n# ${name}\n`;
    mkdirSync(path.join(root, "skills", name), { recursive: true });
    writeFileSync(path.join(root, "skills", name, "SKILL.md"), md);
    trees[name] = (await buildInventory([{ path: "SKILL.md", bytes: new TextEncoder().encode(md) }])).tree_hash;
  }
  const indexEntry = (name: string, digest: string) => ({ name, type: "skill-md", description: "d", url: `/g/${hex("9")}/skills/${name}/SKILL.md`, digest });
  shelf = await fakeShelf({
    "/v1/skills/same": skill(trees.same!),
    "/v1/skills/moved-on": skill(hex("c")),
    "/v1/skills/retired": skill(trees.retired!, { deprecated: "superseded by review-kit", replaced_by: "review-kit" }),
    "/v1/skills/old-name": { status: 301, json: { name: "old-name", replaced_by: "new-name", location: "/v1/skills/new-name" } },
    "/v1/skills/bad": { status: 410, json: { code: "blocked", detail: "Skill 'bad' is blocked", advisory: { advisory_id: "ASA-9" } } },
    // The v0.2 index: "same" and "retired" at the digest skills-lock.json recorded, "moved-on" at a new one.
    "/.well-known/agent-skills/index.json": {
      json: {
        $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        skills: [indexEntry("moved-on", `sha256:${hex("c")}`), indexEntry("retired", `sha256:${hex("d")}`), indexEntry("same", `sha256:${hex("a")}`)],
      },
    },
  });
});
afterAll(async () => {
  await shelf.close();
  rmSync(root, { recursive: true, force: true });
});

function lockFile(name: string, skills: readonly string[]): string {
  const file = path.join(root, name);
  const entry = (tree: string) => ({
    range: "latest",
    version: "1.0.0",
    tree_hash: tree,
    generation: hex("9"),
    files: [{ path: "SKILL.md", size: 1, sha256: hex("8") }],
  });
  writeFileSync(file, JSON.stringify({ schema: LOCK_SCHEMA, shelf: shelf.url, skills: Object.fromEntries(skills.map((s) => [s, entry(trees[s]!)])) }));
  return file;
}

/** A skills-lock.json as the skills CLI 1.7.4 writes it (writeLocalLock), with one GitHub entry from elsewhere. */
function skillsLockFile(name: string, skills: readonly string[], sourceUrl = `${shelf.url}/`): string {
  const digests: Record<string, string> = {
    same: `sha256:${hex("a")}`,
    "moved-on": `sha256:${hex("b")}`,
    retired: `sha256:${hex("d")}`,
    "old-name": `sha256:${hex("e")}`,
    bad: `sha256:${hex("f")}`,
    vanished: `sha256:${hex("1")}`,
  };
  const entries = Object.fromEntries(
    skills.map((s) => [s, { source: new URL(shelf.url).host, sourceUrl, sourceType: "well-known", computedHash: hex("7"), wellKnownDigest: digests[s] }]),
  );
  entries["from-github"] = { source: "acme/skills", sourceType: "github", sourceUrl: "https://github.com/acme/skills.git", computedHash: hex("6") } as never;
  const file = path.join(root, name);
  writeFileSync(file, `${JSON.stringify({ version: 1, skills: entries }, null, 2)}\n`);
  return file;
}

type Row = { name: string; state: string; replaced_by: string | null; advisory: string | null };
const summary = (stdout: string) => (JSON.parse(stdout) as { skills: Row[] }).skills.map((s) => [s.name, s.state, s.replaced_by, s.advisory]);

describe("skillshelf outdated", () => {
  it("reports every state from a skillshelf-lock.json and exits 1 when something is blocked or gone", async () => {
    const lock = lockFile("all.json", NAMES);
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", lock, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(summary(r.stdout)).toEqual(EXPECTED);
    const text = await runInProcess(["outdated", "--url", shelf.url, "--lock", lock]);
    expect(text.stdout).toContain("moved-on\tnewer available\t1.0.0 -> 1.1.0");
    expect(text.stdout).toContain("retired\tdeprecated\tsuperseded by review-kit (use review-kit)");
    expect(text.stdout).toContain("bad\tBLOCKED\tASA-9");
  });

  it("reports every state from a folder of installed skills, by tree hash", async () => {
    const r = await runInProcess(["outdated", "--url", shelf.url, "--dir", path.join(root, "skills"), "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(summary(r.stdout)).toEqual(EXPECTED);
    expect(JSON.parse(r.stdout).skills.find((s: Row) => s.name === "same")).toMatchObject({ installed: { tree_hash: trees.same } });
  });

  it("reports every state from a skills-lock.json by wellKnownDigest, not computedHash, and names the entries from elsewhere", async () => {
    const lock = skillsLockFile("skills-lock.json", NAMES);
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", lock, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(summary(r.stdout)).toEqual(EXPECTED);
    expect(r.stderr).toContain("1 skill(s) in");
    expect(r.stderr).toContain("from-github");
    const moved = JSON.parse(r.stdout).skills.find((s: Row) => s.name === "moved-on");
    expect(moved).toMatchObject({
      installed: { tree_hash: null, well_known_digest: `sha256:${hex("b")}` },
      available: { well_known_digest: `sha256:${hex("c")}` },
    });
    // Only the soft states: exit 0.
    const soft = await runInProcess(["outdated", "--url", shelf.url, "--lock", skillsLockFile("soft-skills-lock.json", ["same", "moved-on", "retired"])]);
    expect(soft.code, soft.stderr).toBe(0);
    expect(soft.stdout).toContain(`moved-on\tnewer available\tsha256:${"b".repeat(12)} -> 1.1.0`);
  });

  it("reads the skills-lock.json the real skills CLI 1.7.4 wrote (test/fixtures/skills-lock)", () => {
    const json: unknown = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../fixtures/skills-lock/skills-1.7.4.json"), "utf8"));
    expect(looksLikeSkillsLock(json)).toBe(true);
    const lock = SkillsLockSchema.parse(json);
    expect(fromShelf(lock, "http://127.0.0.1:46269/").mine.map((m) => m.name)).toEqual(["alpha", "beta"]);
    expect(fromShelf(lock, "http://127.0.0.1:46269/c/sk_token").mine[0]?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fromShelf(lock, "http://127.0.0.1:9").others).toEqual(["alpha", "beta"]);
  });

  it("finds skills-lock.json in the current folder when there is no skillshelf-lock.json", async () => {
    const dir = path.join(root, "project");
    mkdirSync(dir, { recursive: true });
    const cwd = process.cwd();
    writeFileSync(
      path.join(dir, "skills-lock.json"),
      JSON.stringify({
        version: 1,
        skills: { same: { source: "x", sourceUrl: shelf.url, sourceType: "well-known", computedHash: hex("7"), wellKnownDigest: `sha256:${hex("a")}` } },
      }),
    );
    process.chdir(dir);
    try {
      const r = await runInProcess(["outdated", "--url", shelf.url, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(summary(r.stdout)).toEqual([["same", "current", null, null]]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("skips skills-lock.json entries installed from another shelf", async () => {
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", skillsLockFile("other.json", ["same"], "https://elsewhere.example"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).skills).toEqual([]);
    expect(r.stderr).toContain("from-github, same");
  });

  it("exits 0 when nothing is blocked or gone, however outdated", async () => {
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", lockFile("soft.json", ["same", "moved-on", "retired"])]);
    expect(r.code, r.stderr).toBe(0);
  });

  it("refuses unclear input with a usage error", async () => {
    expect((await runInProcess(["outdated", "--url", shelf.url, "--lock", "a", "--dir", "b"])).code).toBe(2);
    const missing = await runInProcess(["outdated", "--url", shelf.url, "--lock", path.join(root, "nope.json")]);
    expect(missing.code).not.toBe(70);
    expect(missing.stderr).toContain("nope.json");
    writeFileSync(path.join(root, "broken-skills-lock.json"), JSON.stringify({ version: 1, skills: { x: { sourceUrl: 3 } } }));
    const broken = await runInProcess(["outdated", "--url", shelf.url, "--lock", path.join(root, "broken-skills-lock.json")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("is not a skills-lock.json");
  });
});
