// skillshelf catalog leaves out the skills the shelf folder's own trust records block (the rule the
// Worker applies with the advisories in force), says so on stderr in one line, and otherwise prints
// exactly the core's renderCatalog over the rest. The skills it leaves out are the ones
// `skillshelf build` refuses as blocked, so the two commands cannot disagree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../run-in-process.ts";
import { hashFolder } from "../../../src/cli/lib/seed.ts";
import { loadValidShelf } from "../../../src/cli/lib/valid-skill.ts";
import { renderCatalog, type CatalogOptions } from "../../../src/core/disclosure/catalog.ts";
import type { SkillMetadata } from "../../../src/core/skill/skill.ts";
import type { AdvisoryEntry, ValidationRecord } from "../../../src/core/trust/records.ts";
import { serializeAdvisories, serializeValidations } from "../../../src/core/trust/serialize.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-catalog-blocked-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

const md = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does ${name} things & more.\n${extra}---\n# ${name}\n`;

function advisory(name: string, extra: Partial<AdvisoryEntry>): AdvisoryEntry {
  return {
    name,
    source: "team",
    official_intent: "formats code",
    hidden_issue: "uploads the repo",
    severity: "critical",
    reference: "https://example.com/a",
    tree_hash: null,
    advisory_id: `T-${name}`,
    discovered_at: null,
    status: "active",
    withdrawn_reason: null,
    withdrawn_at: null,
    ...extra,
  };
}

function validation(name: string, treeHash: string): ValidationRecord {
  return {
    name,
    source: "team",
    tree_hash: treeHash,
    level: "first_party",
    method: "first-party",
    validated_by: "tester",
    validated_at: "2026-11-30",
    evidence: {},
    notes: null,
    activation_description: null,
    audience: "host",
    delivered_via_map: false,
  };
}

const shelf = path.join(root, "shelf");
const SKILLS = {
  alpha: md("alpha", "version: 1.0.0\nwhen_to_use:\n  - When alpha is asked for\n"),
  flagged: md("flagged", "metadata:\n  tags: ops\n"),
  named: md("named", "metadata:\n  tags: ops\n"),
  review: md("review", "metadata:\n  tags: ops\n"),
  zulu: md("zulu"),
};
let metas: SkillMetadata[];

beforeAll(async () => {
  tree(shelf, Object.fromEntries(Object.entries(SKILLS).map(([name, text]) => [`skills/${name}/SKILL.md`, text])));
  const hashes: Record<string, string> = {};
  for (const name of Object.keys(SKILLS)) hashes[name] = await hashFolder(path.join(shelf, "skills", name));
  // Provenance for `named` and `review` (their source "team" comes from the registry, bound to their tree).
  writeFileSync(path.join(shelf, "validations.yaml"), serializeValidations([validation("named", hashes.named!), validation("review", hashes.review!)]));
  writeFileSync(
    path.join(shelf, "advisories.yaml"),
    serializeAdvisories([
      advisory("flagged", { tree_hash: hashes.flagged!, severity: "low" }), // hash-anchored: blocks at any severity
      advisory("named", {}), // critical, by name and source
      advisory("review", { severity: "medium" }), // requires review, still served
      advisory("alpha", { status: "withdrawn", withdrawn_reason: "false alarm", withdrawn_at: "2026-11-30" }),
    ]),
  );
  metas = (await loadValidShelf(shelf)).map((s) => s.metadata);
});

const served = () => metas.filter((m) => m.name !== "flagged" && m.name !== "named");
const NOTE = `left out 2 skill(s) blocked by this shelf's advisories: flagged, named (skillshelf trust ${path.join(root, "shelf")} says why)\n`;

describe("skillshelf catalog on a shelf with advisories", () => {
  it.each<[string[], CatalogOptions]>([
    [[], {}],
    [["--format", "markdown"], { format: "markdown" }],
    [["--tags", "ops"], { tags: ["ops"] }],
    [["--max-chars", "200", "--total", "9"], { maxChars: 200, total: 9 }],
    [["--exclude", "flagged,zulu", "--no-selection-hints"], { exclude: ["flagged", "zulu"], selectionHints: false }],
  ])("%j prints renderCatalog over the unblocked skills and names the left-out ones on stderr", async (flags, options) => {
    const r = await cli("catalog", shelf, ...flags);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(renderCatalog(served(), options));
    expect(r.stderr).toBe(NOTE);
  });

  it("leaves out exactly the skills skillshelf build refuses as blocked", async () => {
    const build = await cli("build", shelf, "--out", path.join(root, "out"), "--json");
    expect(build.code).toBe(1);
    const problems = (JSON.parse(build.stdout) as { problems: Array<{ skill: string; field: string }> }).problems;
    expect(problems.filter((p) => p.field === "trust").map((p) => p.skill)).toEqual(["flagged", "named"]);
    expect((await cli("catalog", shelf)).stdout).not.toMatch(/<name>(flagged|named)<\/name>/);
  });

  it("treats an --include of a blocked skill as an unknown one, after saying it was left out", async () => {
    const r = await cli("catalog", shelf, "--include", "alpha,named");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${NOTE}skillshelf: include names skills that are not registered: named\n`);
  });

  it("says nothing on a shelf whose advisories block nothing", async () => {
    const open = tree(path.join(root, "open"), { "skills/alpha/SKILL.md": SKILLS.alpha, "skills/zulu/SKILL.md": SKILLS.zulu });
    writeFileSync(path.join(open, "advisories.yaml"), serializeAdvisories([advisory("zulu", { severity: "medium", tree_hash: null })]));
    const r = await cli("catalog", open);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(renderCatalog(metas.filter((m) => m.name === "alpha" || m.name === "zulu")));
  });

  it("prints the empty catalog when every skill is blocked", async () => {
    const all = tree(path.join(root, "all-blocked"), { "skills/flagged/SKILL.md": SKILLS.flagged });
    const hash = await hashFolder(path.join(all, "skills", "flagged"));
    writeFileSync(path.join(all, "advisories.yaml"), serializeAdvisories([advisory("flagged", { tree_hash: hash })]));
    const r = await cli("catalog", all, "--format", "markdown");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(renderCatalog([], { format: "markdown" }));
    expect(r.stderr).toMatch(/^left out 1 skill\(s\) blocked by this shelf's advisories: flagged /);
  });

  it("refuses a shelf whose advisories are malformed, since what they block is unknown", async () => {
    const bad = tree(path.join(root, "bad-records"), {
      "skills/alpha/SKILL.md": SKILLS.alpha,
      "advisories.yaml": "advisories:\n- name: alpha\n  source: team\n",
    });
    const r = await cli("catalog", bad);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/malformed trust record\(s\)/);
    expect(r.stderr).toMatch(/advisories\.yaml:2:3/);
  });
});
