// skillshelf outdated against a shelf's answers (a fake shelf answering as the Worker does: 200
// with deprecated/replaced_by, 301 for a renamed skill, 410 blocked, 404 gone), from a lockfile
// and from a folder of installed skills (by tree hash); --json, and exit 1 only when blocked or gone.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { LOCK_SCHEMA } from "../../../src/core/versions/lock.ts";
import { fakeShelf, type Answer } from "../lib/fake-shelf.ts";
import { runInProcess } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-outdated-"));
const hex = (c: string) => c.repeat(64);
const skill = (tree: string, extra: Record<string, unknown> = {}): Answer => ({
  json: { name: "x", tree_hash: tree, version: "1.1.0", deprecated: null, replaced_by: null, ...extra },
});
let shelf: Awaited<ReturnType<typeof fakeShelf>>;
let folderTree = "";

beforeAll(async () => {
  // One installed skill in a folder, whose tree hash the shelf serves unchanged.
  const md = "---\nname: on-disk\ndescription: An installed skill for the outdated tests.\n---\n# on-disk\n";
  mkdirSync(path.join(root, "skills", "on-disk"), { recursive: true });
  writeFileSync(path.join(root, "skills", "on-disk", "SKILL.md"), md);
  folderTree = (await buildInventory([{ path: "SKILL.md", bytes: new TextEncoder().encode(md) }])).tree_hash;
  shelf = await fakeShelf({
    "/v1/skills/same": skill(hex("a")),
    "/v1/skills/moved-on": skill(hex("c")),
    "/v1/skills/retired": skill(hex("d"), { deprecated: "superseded by review-kit", replaced_by: "review-kit" }),
    "/v1/skills/old-name": { status: 301, json: { name: "old-name", replaced_by: "new-name", location: "/v1/skills/new-name" } },
    "/v1/skills/bad": { status: 410, json: { code: "blocked", detail: "Skill 'bad' is blocked", advisory: { advisory_id: "ASA-9" } } },
    "/v1/skills/on-disk": skill(folderTree),
  });
});
afterAll(async () => {
  await shelf.close();
  rmSync(root, { recursive: true, force: true });
});

function lockFile(name: string, skills: string[]): string {
  const file = path.join(root, name);
  const entry = (tree: string) => ({
    range: "latest",
    version: "1.0.0",
    tree_hash: tree,
    generation: hex("9"),
    files: [{ path: "SKILL.md", size: 1, sha256: hex("8") }],
  });
  const trees: Record<string, string> = { same: hex("a"), "moved-on": hex("b"), retired: hex("d"), "old-name": hex("e"), bad: hex("f"), vanished: hex("1") };
  writeFileSync(file, JSON.stringify({ schema: LOCK_SCHEMA, shelf: shelf.url, skills: Object.fromEntries(skills.map((s) => [s, entry(trees[s]!)])) }));
  return file;
}

describe("skillshelf outdated", () => {
  it("reports every state from a lockfile and exits 1 when something is blocked or gone", async () => {
    const lock = lockFile("all.json", ["same", "moved-on", "retired", "old-name", "bad", "vanished"]);
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", lock, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    const rows = (JSON.parse(r.stdout) as { skills: { name: string; state: string; replaced_by: string | null; advisory: string | null }[] }).skills;
    expect(rows.map((s) => [s.name, s.state, s.replaced_by, s.advisory])).toEqual([
      ["bad", "blocked", null, "ASA-9"],
      ["moved-on", "newer", null, null],
      ["old-name", "deprecated", "new-name", null],
      ["retired", "deprecated", "review-kit", null],
      ["same", "current", null, null],
      ["vanished", "gone", null, null],
    ]);
    const text = await runInProcess(["outdated", "--url", shelf.url, "--lock", lock]);
    expect(text.stdout).toContain("moved-on\tnewer available\t1.0.0 -> 1.1.0");
    expect(text.stdout).toContain("retired\tdeprecated\tsuperseded by review-kit (use review-kit)");
    expect(text.stdout).toContain("bad\tBLOCKED\tASA-9");
  });

  it("exits 0 when nothing is blocked or gone, however outdated", async () => {
    const r = await runInProcess(["outdated", "--url", shelf.url, "--lock", lockFile("soft.json", ["same", "moved-on", "retired"])]);
    expect(r.code, r.stderr).toBe(0);
  });

  it("reads a folder of installed skills by tree hash", async () => {
    const r = await runInProcess(["outdated", "--url", shelf.url, "--dir", path.join(root, "skills"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).skills).toMatchObject([{ name: "on-disk", state: "current", installed: { tree_hash: folderTree } }]);
  });

  it("refuses unclear input with a usage error", async () => {
    expect((await runInProcess(["outdated", "--url", shelf.url, "--lock", "a", "--dir", "b"])).code).toBe(2);
    const missing = await runInProcess(["outdated", "--url", shelf.url, "--lock", path.join(root, "nope.json")]);
    expect(missing.code).not.toBe(70);
    expect(missing.stderr).toContain("nope.json");
  });
});
