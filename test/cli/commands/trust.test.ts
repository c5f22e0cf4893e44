// The trust, select and seed commands end to end: output, exit codes, and one-line errors for
// bad input (never a stack trace).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../run-in-process.ts";
import { hashFolder } from "../../../src/cli/lib/seed.ts";
import { serializeAdvisories, serializeValidations } from "../../../src/core/trust/serialize.ts";
import type { AdvisoryEntry, ValidationRecord } from "../../../src/core/trust/records.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-trust-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

const md = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n# ${name}\n`;
const shelf = path.join(root, "shelf");
const hashes: Record<string, string> = {};

function record(name: string, extra: Partial<ValidationRecord> = {}): ValidationRecord {
  return {
    name,
    source: "team",
    tree_hash: hashes[name]!,
    level: "first_party",
    method: "first-party",
    validated_by: "tester",
    validated_at: "2026-11-30",
    evidence: {},
    notes: null,
    activation_description: null,
    audience: "host",
    delivered_via_map: false,
    ...extra,
  };
}

beforeAll(async () => {
  tree(shelf, {
    "skills/good/SKILL.md": md("good"),
    "skills/scripted/SKILL.md": md("scripted"),
    "skills/scripted/scripts/run.sh": "#!/bin/sh\n",
    "skills/flagged/SKILL.md": md("flagged"),
    "skills/fresh/SKILL.md": md("fresh", "metadata:\n  requires_mcp: [github-mcp]\n"),
  });
  for (const name of ["good", "scripted", "flagged", "fresh"]) hashes[name] = await hashFolder(path.join(shelf, "skills", name));
  const advisory: AdvisoryEntry = {
    name: "flagged",
    source: "team",
    official_intent: "formats code",
    hidden_issue: "uploads the repo",
    severity: "critical",
    reference: "https://example.com/a",
    tree_hash: hashes.flagged!,
    advisory_id: "T-1",
    discovered_at: null,
    status: "active",
    withdrawn_reason: null,
    withdrawn_at: null,
  };
  writeFileSync(
    path.join(shelf, "validations.yaml"),
    serializeValidations([record("good", { activation_description: "Good, for our team." }), record("scripted"), record("flagged")]),
  );
  writeFileSync(path.join(shelf, "advisories.yaml"), serializeAdvisories([advisory]));
  writeFileSync(path.join(shelf, "guidance.yaml"), "guidance: []\n");
});

describe("skillshelf trust", () => {
  it("prints each skill's verdict and reasons", async () => {
    const r = await cli("trust", shelf);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^good {2}first_party {2}attachable/m);
    expect(r.stdout).toMatch(/^scripted {2}first_party {2}requires review[\s\S]*bundles scripts/m);
    expect(r.stdout).toMatch(/^flagged {2}blocked {2}BLOCKED[\s\S]*blocked: critical advisory \(hash match\) — uploads the repo/m);
    expect(r.stdout).toMatch(/^fresh {2}unverified {2}requires review/m);
    expect(r.stderr).toBe("");
  });
  it("--json carries the full verdicts", async () => {
    const r = await cli("trust", shelf, "--json");
    const out = JSON.parse(r.stdout);
    const byName = Object.fromEntries(out.skills.map((s: { name: string; verdict: unknown }) => [s.name, s.verdict]));
    expect(byName.good).toMatchObject({ level: "first_party", attachable: true });
    expect(byName.flagged).toMatchObject({ level: "blocked", blocked: true, do_not_use: true });
    expect(byName.fresh).toMatchObject({ level: "unverified", requires_review: true });
  });
  it("refuses malformed records, listing every one with its position", async () => {
    const bad = tree(path.join(root, "bad-shelf"), {
      "skills/good/SKILL.md": md("good"),
      "validations.yaml": "validations:\n- name: a\n  level: first_party\n- 12\n",
      "advisories.yaml": "advisories:\n- name: x\n  source: y\n",
    });
    const r = await cli("trust", bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/3 malformed trust record\(s\)/);
    expect(r.stderr).toMatch(/validations\.yaml:2:3: validations\[0\]: ValidationRecord missing fields/);
    expect(r.stderr).toMatch(/validations\.yaml:4:3: validations\[1\]: validation entry must be a mapping, got int/);
    expect(r.stderr).toMatch(/advisories\.yaml:2:3: advisories\[0\]: AdvisoryEntry missing mandated field/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
  it("is a usage error without a shelf", async () => {
    expect((await cli("trust")).code).toBe(2);
    expect((await cli("trust", path.join(root, "missing"))).code).toBe(2);
  });
});

describe("skillshelf select", () => {
  it("activates attachable skills, holds review ones, never blocked ones", async () => {
    const r = await cli("select", shelf, "--names", "good,scripted,flagged,fresh,ghost");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^active: good$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^held \\(requires review; enable with --enable name or name@hash\\): scripted@${hashes.scripted}, fresh@${hashes.fresh}$`, "m"),
    );
    expect(r.stdout).toMatch(/^blocked \(never activates\): flagged$/m);
    expect(r.stdout).toMatch(/^missing: ghost$/m);
    expect(r.stdout).toMatch(/^requires fresh: mcp:github-mcp$/m);
    expect(r.stdout).toContain("<description>Good, for our team.</description>");
  });
  it("a pin enables exactly those bytes; a bare enable never unblocks", async () => {
    const r = await cli("select", shelf, "--names", "scripted,flagged", "--enable", `scripted@${hashes.scripted}`, "--enable", "flagged", "--json");
    const out = JSON.parse(r.stdout);
    expect(out.active_names).toEqual(["scripted"]);
    expect(out.blocked.map((b: { name: string }) => b.name)).toEqual(["flagged"]);
    expect(out.warnings).toContain(
      `skill 'scripted' activated by hash-pinned operator enable from ${path.join(shelf, "skills", "scripted")} (tree ${hashes.scripted!.slice(0, 16)}…)`,
    );
  });
  it("a user root shadows the shelf copy and never inherits its record", async () => {
    const user = tree(path.join(root, "user"), { "good/SKILL.md": md("good", "license: MIT\n") });
    const r = await cli("select", shelf, "--names", "good", "--root", user, "--json");
    const out = JSON.parse(r.stdout);
    expect(out.active_names).toEqual([]);
    expect(out.held[0]).toMatchObject({ name: "good", verdict: { level: "unverified" } });
    expect(out.resolved_locations.good).toBe(path.join(user, "good"));
  });
  it("--enable splits on commas like --names, repeats still work, and useless entries are noted", async () => {
    const r = await cli("select", shelf, "--names", "scripted,fresh,good", "--enable", "scripted,fresh", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).active_names.sort()).toEqual(["fresh", "good", "scripted"]);
    const repeated = JSON.parse((await cli("select", shelf, "--names", "scripted,fresh", "--enable", "scripted", "--enable", "fresh", "--json")).stdout);
    expect(repeated.active_names.sort()).toEqual(["fresh", "scripted"]);
    const noted = await cli("select", shelf, "--names", "scripted", "--enable", "scripted,ghost,Bad_Name");
    expect(noted.stdout).toMatch(/^active: scripted$/m);
    expect(noted.stdout).toMatch(/^note: --enable "ghost" names no requested skill \(--names scripted\); it grants nothing$/m);
    expect(noted.stdout).toMatch(/^note: --enable "Bad_Name" is not a skill name or a name@<64-hex tree hash> pin/m);
  });
  it("needs --names", async () => {
    const r = await cli("select", shelf);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--names is required/);
  });
});

describe("skillshelf advise (before any network call)", () => {
  const entry =
    "- name: evil\n  source: team\n  official_intent: formats code\n  hidden_issue: uploads the repo\n  severity: critical\n  reference: https://example.com/a\n";
  it("refuses an advisories file whose list key is misspelt; nothing is published", async () => {
    const file = path.join(root, "advise-misspelt.yaml");
    writeFileSync(file, `advisory:\n${entry}`);
    const r = await cli("advise", "--url", "http://127.0.0.1:9", file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing was published[\s\S]*no 'advisories' key/);
  });
  it("prints unknown-key warnings with their position", async () => {
    const file = path.join(root, "advise-typo.yaml");
    writeFileSync(file, `advisories:\n${entry}  tree_hsh: ${"a".repeat(64)}\n`);
    const r = await cli("advise", file);
    expect(r.stderr).toMatch(/warning: .*advise-typo\.yaml:8:3: advisories\[0\]: unknown key 'tree_hsh' is ignored/);
  });
});

describe("skillshelf seed", () => {
  it("seeds, then writes nothing the second time", async () => {
    const bundle = tree(path.join(root, "bundle"), {
      "catalog.yaml": "version: '2026.11.30'\nskills: []\n",
      "skills/good/SKILL.md": md("good"),
      "validations.yaml": "validations: []\n",
    });
    const dest = path.join(root, "team");
    const first = await cli("seed", "--from", bundle, "--to", dest);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/added \(3\): catalog\.yaml, validations\.yaml, skills\/good/);
    const manifest = readFileSync(path.join(dest, ".seeded.json"), "utf8");
    const second = await cli("seed", "--from", bundle, "--to", dest, "--json");
    expect(JSON.parse(second.stdout)).toMatchObject({ changed: false, unchanged: ["catalog.yaml", "validations.yaml", "skills/good"] });
    expect(readFileSync(path.join(dest, ".seeded.json"), "utf8")).toBe(manifest);
  });
  it("bad input is one line, exit 1 or 2", async () => {
    const r = await cli("seed", "--from", path.join(root, "nope"), "--to", path.join(root, "x"));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect((await cli("seed", "--to", "x")).code).toBe(2);
    const bundle = tree(path.join(root, "bundle-linked"), { "catalog.yaml": "version: '1'\nskills: []\n", "skills/a/SKILL.md": md("a") });
    symlinkSync("/etc/hostname", path.join(bundle, "skills", "a", "link.md"));
    const linked = await cli("seed", "--from", bundle, "--to", path.join(root, "team-linked"));
    expect(linked.code).toBe(1);
    expect(linked.stderr.trim().split("\n")).toHaveLength(1);
    expect(linked.stderr).toMatch(/skill tree contains a symlink/);
    const fileDest = tree(path.join(root, "team-file"), { skills: "x" });
    const blocked = await cli("seed", "--from", path.join(root, "bundle"), "--to", fileDest);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/skills is not a folder/);
    const notFolder = await cli("seed", "--from", path.join(root, "bundle"), "--to", path.join(fileDest, "skills"));
    expect(notFolder.code).toBe(2);
  });
  it("--exclude leaves the named skills out, as a comma list or repeated", async () => {
    const bundle = tree(path.join(root, "bundle-exclude"), {
      "catalog.yaml": "version: '1'\nskills: []\n",
      "skills/a/SKILL.md": md("a"),
      "skills/b/SKILL.md": md("b"),
      "skills/c/SKILL.md": md("c"),
    });
    const dest = path.join(root, "team-exclude");
    const r = await cli("seed", "--from", bundle, "--to", dest, "--exclude", "a,b", "--exclude", "c", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ added: ["catalog.yaml"], excluded: ["skills/a", "skills/b", "skills/c"] });
    const human = await cli("seed", "--from", bundle, "--to", dest, "--exclude=b");
    expect(human.stdout).toMatch(/added \(2\): skills\/a, skills\/c\n.*\n {2}excluded \(1\): skills\/b \(/);
    const unknown = await cli("seed", "--from", bundle, "--to", dest, "--exclude", "a,zz");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--exclude names no item of bundle shelf .*: zz; it holds: catalog\.yaml, a, b, c/);
    expect((await cli("seed", "--from", bundle, "--to", dest, "--exclude", ",")).code).toBe(2);
  });
});

describe("exit codes match the README", () => {
  it("catalog: a negative --max-chars or --total is a clear usage error", async () => {
    for (const args of [["--max-chars", "-1"], ["--max-chars=-1"], ["--total", "-3"]]) {
      const r = await cli("catalog", shelf, ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--(max-chars|total) must be a whole number of characters or skills, got "-\d"/);
      expect(r.stderr).not.toMatch(/ambiguous/);
    }
  });
});
