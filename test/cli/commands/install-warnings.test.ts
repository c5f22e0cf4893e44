// skillshelf install asks the shelf about every locked skill first and warns on stderr: deprecated
// (with its replacement), renamed, removed, and blocked; a blocked skill is not installed (exit 1),
// the others still install their locked bytes. A fake shelf answers as the Worker does.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex, treeHash } from "../../../src/core/skill/hash.ts";
import { LOCK_SCHEMA } from "../../../src/core/versions/lock.ts";
import { fakeShelf, type Answer } from "../lib/fake-shelf.ts";
import { runInProcess } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-install-warn-"));
const GEN = "9".repeat(64);
const NAMES = ["bad", "fine", "old-name", "retired", "vanished"];
let shelf: Awaited<ReturnType<typeof fakeShelf>>;
let lock = "";

beforeAll(async () => {
  const answers: Record<string, Answer> = {};
  const locked: Record<string, unknown> = {};
  for (const name of NAMES) {
    const md = `---\nname: ${name}\ndescription: A locked skill for the install warning tests.\n---\n# ${name}\n`;
    const bytes = new TextEncoder().encode(md);
    const sha256 = await sha256Hex(bytes);
    const tree = await treeHash([{ path: "SKILL.md", sha256 }]);
    answers[`/g/${GEN}/skills/${name}/SKILL.md`] = { body: bytes };
    locked[name] = { range: "latest", version: "1.0.0", tree_hash: tree, generation: GEN, files: [{ path: "SKILL.md", size: bytes.byteLength, sha256 }] };
    answers[`/v1/skills/${name}`] = { json: { name, tree_hash: tree, version: "1.0.0", deprecated: null, replaced_by: null } };
  }
  answers["/v1/skills/retired"] = {
    json: { name: "retired", tree_hash: "0".repeat(64), version: "1.0.0", deprecated: "superseded by review-kit", replaced_by: "review-kit" },
  };
  answers["/v1/skills/old-name"] = { status: 301, json: { name: "old-name", replaced_by: "new-name" } };
  answers["/v1/skills/bad"] = { status: 410, json: { code: "blocked", detail: "Skill 'bad' is blocked: leaks tokens", advisory: { advisory_id: "ASA-7" } } };
  delete answers["/v1/skills/vanished"];
  shelf = await fakeShelf(answers);
  lock = path.join(root, "skillshelf-lock.json");
  writeFileSync(lock, JSON.stringify({ schema: LOCK_SCHEMA, shelf: shelf.url, skills: locked }));
});
afterAll(async () => {
  await shelf.close();
  rmSync(root, { recursive: true, force: true });
});

describe("skillshelf install warns about the lock's deprecated and blocked skills", () => {
  it("warns on stderr, leaves the blocked skill out and installs the rest", async () => {
    const to = path.join(root, "skills");
    const r = await runInProcess(["install", "--to", to, "--lock", lock]);
    expect(r.code).toBe(1);
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
    expect(warnings).toEqual([
      "warning: bad is BLOCKED by advisory ASA-7: Skill 'bad' is blocked: leaks tokens; it is not installed",
      "warning: old-name is deprecated: renamed to new-name (lock new-name instead)",
      "warning: retired is deprecated: superseded by review-kit (use review-kit instead)",
      "warning: vanished is no longer on the shelf (removed since it was locked)",
    ]);
    expect(r.stderr).toContain("1 of 5 skill(s) not installed: bad");
    expect(existsSync(path.join(to, "bad"))).toBe(false);
    for (const name of ["fine", "old-name", "retired", "vanished"]) expect(existsSync(path.join(to, name, "SKILL.md")), name).toBe(true);
  });

  it("says nothing for a lock whose skills are all current", async () => {
    const only = path.join(root, "fine-lock.json");
    const all = JSON.parse(readFileSync(lock, "utf8"));
    writeFileSync(only, JSON.stringify({ ...all, skills: { fine: all.skills.fine } }));
    const r = await runInProcess(["install", "--to", path.join(root, "fine"), "--lock", only]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("warning");
  });

  it("says once, not per skill, when the shelf cannot be asked, and installs the locked bytes", async () => {
    const all = JSON.parse(readFileSync(lock, "utf8"));
    const answers: Record<string, Answer> = {};
    for (const name of ["fine", "retired"]) {
      answers[`/g/${GEN}/skills/${name}/SKILL.md`] = {
        body: `---\nname: ${name}\ndescription: A locked skill for the install warning tests.\n---\n# ${name}\n`,
      };
      answers[`/v1/skills/${name}`] = { status: 503, json: { code: "storage_unavailable" } };
    }
    const down = await fakeShelf(answers);
    try {
      const two = path.join(root, "down-lock.json");
      writeFileSync(two, JSON.stringify({ ...all, shelf: down.url, skills: { fine: all.skills.fine, retired: all.skills.retired } }));
      const r = await runInProcess(["install", "--to", path.join(root, "down"), "--lock", two]);
      expect(r.code, r.stderr).toBe(0);
      const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("cannot ask the shelf whether 2 skill(s) are deprecated or blocked");
    } finally {
      await down.close();
    }
  });
});
