// skillshelf attest: binds a skill's current tree hash to a validation record, keeps a current
// record untouched, refuses what it cannot honestly write, and --check fails on stale records.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { attestRecord, recordState, run } from "../../../src/cli/commands/attest.ts";
import { UsageError } from "../../../src/cli/lib/cli.ts";
import { parseValidations } from "../../../src/core/trust/records.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-attest-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const skillMd = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does ${name} things. Use when testing.\n---\n\n# ${name}\n\nSteps.${extra}\n`;

let counter = 0;
/** A fresh shelf with the given skills (name → extra files), and no records yet. */
function shelf(skills: Record<string, Record<string, string>>): string {
  const dir = path.join(root, `shelf-${++counter}`);
  for (const [name, files] of Object.entries(skills)) {
    const all = { "SKILL.md": skillMd(name), ...files };
    for (const [rel, content] of Object.entries(all)) {
      const file = path.join(dir, "skills", name, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  return dir;
}

async function attest(...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run({ args, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), interactive: false, env: {} });
  return { code, stdout, stderr };
}

const recordsOf = (dir: string) => {
  const parsed = parseValidations(new Uint8Array(readFileSync(path.join(dir, "validations.yaml"))));
  expect(parsed.problems).toEqual([]);
  return parsed.entries;
};

describe("skillshelf attest", () => {
  it("writes a first_party record bound to the tree hash, with evidence, that reads back cleanly", async () => {
    const dir = shelf({ alpha: {}, beta: { "scripts/run.sh": "#!/bin/sh\necho hi\n" } });
    const r = await attest(dir, "--all", "--by", "Ada", "--at", "2026-11-30");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^alpha: attested first_party via first-party by Ada \(2026-11-30\), tree [0-9a-f]{64}$/m);
    expect(r.stdout).toMatch(/^beta: attested .*; bundles scripts, so clients still require review$/m);
    const records = recordsOf(dir);
    expect(records.map((x) => [x.name, x.level, x.method, x.source, x.validated_by, x.validated_at])).toEqual([
      ["alpha", "first_party", "first-party", "first-party", "Ada", "2026-11-30"],
      ["beta", "first_party", "first-party", "first-party", "Ada", "2026-11-30"],
    ]);
    expect(records[1]!.evidence).toMatchObject({ has_scripts: true, files: 2 });
    expect(readFileSync(path.join(dir, "validations.yaml"), "utf8")).toMatch(/^# Validation records of this shelf/);
  });

  it("--check passes on current records, fails after an edit, and passes again after re-attesting", async () => {
    const dir = shelf({ alpha: {}, beta: {} });
    expect((await attest(dir, "--all", "--by", "Ada", "--at", "2026-11-01")).code).toBe(0);
    expect((await attest(dir, "--all", "--check")).code).toBe(0);

    appendFileSync(path.join(dir, "skills", "alpha", "SKILL.md"), "\nOne more step.\n");
    const stale = await attest(dir, "--all", "--check");
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/^alpha: stale /m);
    expect(stale.stdout).toMatch(/^beta: current /m);
    expect(stale.stderr).toContain(`npx skillshelf attest ${dir} alpha --by <reviewer>`);

    const again = await attest(dir, "alpha", "--by", "Bob", "--at", "2026-11-30");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^alpha: attested first_party via first-party by Bob \(2026-11-30\)/m); // edited bytes need a named reviewer
    expect((await attest(dir, "--all", "--check")).code).toBe(0);
    const dates = Object.fromEntries(recordsOf(dir).map((x) => [x.name, x.validated_at]));
    expect(dates).toEqual({ alpha: "2026-11-30", beta: "2026-11-01" });
  });

  it("leaves a current record untouched: no write, the original date kept", async () => {
    const dir = shelf({ alpha: {} });
    await attest(dir, "alpha", "--by", "Ada", "--at", "2026-11-01");
    const before = readFileSync(path.join(dir, "validations.yaml"));
    const r = await attest(dir, "alpha", "--at", "2026-12-24");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^alpha: already current first_party .*\(2026-11-01\)/m);
    expect(r.stdout).not.toMatch(/wrote/);
    expect(readFileSync(path.join(dir, "validations.yaml"))).toEqual(before);
  });

  it("--check reports a skill with no record as missing", async () => {
    const dir = shelf({ alpha: {}, beta: {} });
    await attest(dir, "alpha", "--by", "Ada", "--at", "2026-11-01");
    const r = await attest(dir, "--all", "--check");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^beta: missing /m);
    expect(r.stderr).toMatch(/^beta: no validation record;/m);
  });

  it("--check fails on a record whose skill left the shelf; --all --prune removes it", async () => {
    const dir = shelf({ alpha: {}, beta: {} });
    await attest(dir, "--all", "--by", "Ada", "--at", "2026-11-01");
    rmSync(path.join(dir, "skills", "beta"), { recursive: true });
    const r = await attest(dir, "--all", "--check");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^beta: validation record for a skill that is not on the shelf/m);
    const pruned = await attest(dir, "--all", "--prune");
    expect(pruned.code).toBe(0);
    expect(recordsOf(dir).map((x) => x.name)).toEqual(["alpha"]);
  });

  it("refuses an invalid skill and writes nothing at all", async () => {
    const dir = shelf({ alpha: {}, broken: {} });
    writeFileSync(path.join(dir, "skills", "broken", "SKILL.md"), "---\nname: other\n---\nbody\n");
    const r = await attest(dir, "--all", "--by", "Ada", "--at", "2026-11-01");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^broken: not attested, the skill is invalid/m);
    expect(r.stderr).toMatch(/nothing written/);
    expect(existsSync(path.join(dir, "validations.yaml"))).toBe(false);
  });

  it("refuses a malformed validations.yaml without touching it", async () => {
    const dir = shelf({ alpha: {} });
    const bad = "validations:\n- name: alpha\n  level: first_party\n";
    writeFileSync(path.join(dir, "validations.yaml"), bad);
    await expect(attest(dir, "alpha", "--by", "Ada")).rejects.toThrow(
      /malformed record\(s\); fix them by hand first, nothing was written[\s\S]*missing fields/,
    );
    expect(readFileSync(path.join(dir, "validations.yaml"), "utf8")).toBe(bad);
  });

  it("warns about unknown keys in validations.yaml, with their position", async () => {
    const dir = shelf({ alpha: {} });
    await attest(dir, "alpha", "--by", "Ada");
    appendFileSync(path.join(dir, "validations.yaml"), "  reviewr: Bob\n");
    const r = await attest(dir, "alpha", "--check");
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*validations\.yaml:\d+:3: validations\[0\]: unknown key 'reviewr' is ignored/);
  });

  it("refuses to carry the reviewer over to edited bytes", async () => {
    const dir = shelf({ alpha: {} });
    await attest(dir, "alpha", "--by", "Ada", "--at", "2026-11-01");
    appendFileSync(path.join(dir, "skills", "alpha", "SKILL.md"), "More steps.\n");
    const before = readFileSync(path.join(dir, "validations.yaml"), "utf8");
    await expect(attest(dir, "alpha")).rejects.toThrow(/alpha changed since Ada attested it .*pass --by <reviewer>/);
    await expect(attest(dir, "alpha")).rejects.toThrow(UsageError);
    expect(readFileSync(path.join(dir, "validations.yaml"), "utf8")).toBe(before);
    expect((await attest(dir, "alpha", "--by", "Bob")).code).toBe(0);
    expect(recordsOf(dir)[0]!.validated_by).toBe("Bob");
  });

  it("usage errors name the fix", async () => {
    const dir = shelf({ alpha: {} });
    await expect(attest(dir, "alpha")).rejects.toThrow(/pass --by <reviewer>/);
    await expect(attest(dir, "nope", "--by", "Ada")).rejects.toThrow(/no skill named "nope"/);
    await expect(attest(dir)).rejects.toThrow(/name the skills to attest, or pass --all/);
    await expect(attest(dir, "alpha", "--all")).rejects.toThrow(/not both/);
    await expect(attest(dir, "alpha", "--prune", "--by", "Ada")).rejects.toThrow(/--prune needs --all/);
    await expect(attest(dir, "alpha", "--by", "Ada", "--level", "blocked")).rejects.toThrow(/--level must be one of community, adopted, audited, first_party/);
    await expect(attest(dir, "alpha", "--by", "Ada", "--at", "30/11/2026")).rejects.toThrow(/YYYY-MM-DD/);
    for (const at of ["2026-13-45", "2026-02-29", "2026-04-31", "2026-00-10"]) {
      await expect(attest(dir, "alpha", "--by", "Ada", "--at", at)).rejects.toThrow(`--at must be a real calendar date as YYYY-MM-DD; got "${at}"`);
    }
    expect((await attest(shelf({ alpha: {} }), "alpha", "--by", "Ada", "--at", "2028-02-29")).code).toBe(0);
    await expect(attest(dir, "alpha", "--by", "Ada", "--level", "audited")).rejects.toThrow(/needs --method/);
    await expect(attest(path.join(root, "missing-shelf"), "alpha", "--by", "Ada")).rejects.toThrow(UsageError);
    expect(existsSync(path.join(dir, "validations.yaml"))).toBe(false);
  });

  it("refuses a method that cannot grant the level, with AbstractSkill's message", async () => {
    const dir = shelf({ alpha: {} });
    await expect(attest(dir, "alpha", "--by", "Ada", "--method", "manual-review")).rejects.toThrow(
      "cannot attest alpha: method 'manual-review' may grant at most 'adopted', not 'first_party' (reviewed is not audited)",
    );
    const ok = await attest(dir, "alpha", "--by", "Ada", "--level", "adopted", "--method", "manual-review", "--source", "acme/skills", "--at", "2026-11-01");
    expect(ok.code).toBe(0);
    expect(recordsOf(dir)[0]).toMatchObject({ level: "adopted", method: "manual-review", source: "acme/skills" });
  });
});

describe("attestRecord and recordState", () => {
  const subject = { name: "alpha", tree_hash: "a".repeat(64), has_scripts: false, files: 1, content_hash: "b".repeat(64) };
  it("replaces every older record of the skill in place, keeping others and their order", () => {
    const first = attestRecord([], { ...subject, name: "zeta" }, { level: "first_party", by: "Ada", at: "2026-11-01" }).records;
    const withOld = attestRecord(first, subject, { level: "first_party", by: "Ada", at: "2026-11-01" }).records;
    const next = attestRecord(withOld, { ...subject, tree_hash: "c".repeat(64) }, { level: "first_party", by: "Bob", at: "2026-11-30" });
    expect(next.changed).toBe(true);
    expect(next.records.map((r) => [r.name, r.tree_hash[0]])).toEqual([
      ["zeta", "a"],
      ["alpha", "c"],
    ]);
    expect(recordState(next.records, "alpha", "c".repeat(64))).toBe("current");
    expect(recordState(next.records, "alpha", "a".repeat(64))).toBe("stale");
    expect(recordState(next.records, "omega", "a".repeat(64))).toBe("missing");
  });
  it("needs a reviewer when the tree changed; keeps the reviewer only for the same bytes", () => {
    const old = attestRecord([], subject, { level: "first_party", by: "Ada", at: "2026-11-01" }).records;
    expect(() => attestRecord(old, { ...subject, tree_hash: "c".repeat(64) }, { level: "first_party", at: "2026-11-30" })).toThrow(
      /alpha changed since Ada attested it \(tree a{64} → c{64}\); review it and pass --by <reviewer>/,
    );
    const relabel = attestRecord(old, subject, { level: "adopted", method: "manual-review", at: "2026-11-30" });
    expect(relabel.record).toMatchObject({ validated_by: "Ada", level: "adopted" });
  });
});
