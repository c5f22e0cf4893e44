// The disclosure commands print exactly what src/core returns (no newline added), and a shelf
// written from the catalog golden's skills prints the real library's catalog byte for byte.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../run-in-process.ts";
import { renderCatalog } from "../../../src/core/disclosure/catalog.ts";
import { outlineOf, renderOutline, sectionOf } from "../../../src/core/disclosure/outline.ts";
import golden from "../../goldens/agentskills/catalogs.json";
import { loadValidShelf, loadValidSkill } from "../../../src/cli/lib/valid-skill.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-disclosure-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A SKILL.md from frontmatter values; JSON strings are valid YAML and keep every character. */
function skillMd(meta: Record<string, unknown>, body: string): string {
  const lines = Object.entries(meta).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

const shelf = path.join(root, "shelf");
const BODY =
  "Read this first.\n\n# Straße Café\nCoffee.\n\n## 日本語\n🚨🚨🚨🚨🚨\n\n```sh\n# not a heading\n```\n\n## Setup\none\n## Setup\ntwo\n## Setup 2\nthree\n";
write(
  path.join(shelf, "skills", "demo", "SKILL.md"),
  skillMd({ name: "demo", description: "A demo skill.", version: "1.0.0", metadata: { tags: ["Docs"] } }, BODY),
);
write(
  path.join(shelf, "skills", "other", "SKILL.md"),
  skillMd({ name: "other", description: "Other <things> & more.", when_to_use: ["When other"] }, "# Other\nText."),
);
const demo = path.join(shelf, "skills", "demo");

describe("skillshelf outline", () => {
  it("prints the rendered outline exactly, no newline added", async () => {
    const skill = await loadValidSkill(demo);
    const r = await cli("outline", demo);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(renderOutline(outlineOf("demo", skill.body)));
    expect(r.stdout).toContain("- strasse-caf (~");
    expect(r.stdout.endsWith("\n")).toBe(false);
  });

  it("prints the outline data with --json", async () => {
    const skill = await loadValidSkill(demo);
    const r = await cli("outline", demo, "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(outlineOf("demo", skill.body));
  });

  it("fails with exit 1 and the problems on an invalid skill", async () => {
    const bad = path.join(root, "bad", "broken");
    write(path.join(bad, "SKILL.md"), "---\nname: wrong-name\ndescription: x\n---\nBody");
    const r = await cli("outline", bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/skill broken is invalid/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("exits 2 on a missing folder or extra arguments", async () => {
    expect((await cli("outline", path.join(root, "nope"))).code).toBe(2);
    expect((await cli("outline", demo, "extra")).code).toBe(2);
  });
});

describe("skillshelf section", () => {
  it("prints one section exactly (first match for a repeated key)", async () => {
    const skill = await loadValidSkill(demo);
    const outline = outlineOf("demo", skill.body);
    for (const key of ["preamble", "strasse-caf", "section", "setup-2"]) {
      const r = await cli("section", demo, key);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(sectionOf(skill.body, outline, key));
    }
    expect((await cli("section", demo, "setup-2")).stdout).toBe("## Setup\ntwo");
  });

  it("lists the existing keys for an unknown key", async () => {
    const r = await cli("section", demo, "nope");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Skill 'demo' has no section 'nope'; available keys: preamble, strasse-caf, section, setup, setup-2, setup-2");
  });

  it("exits 2 without a key", async () => {
    expect((await cli("section", demo)).code).toBe(2);
  });
});

describe("skillshelf catalog", () => {
  it("prints exactly what renderCatalog returns, for each flag", async () => {
    const metas = (await loadValidShelf(shelf)).map((s) => s.metadata);
    const cases: [string[], Parameters<typeof renderCatalog>[1]][] = [
      [[], {}],
      [["--format", "markdown"], { format: "markdown" }],
      [["--tags", "docs"], { tags: ["docs"] }],
      [["--include", "other"], { include: ["other"] }],
      [["--exclude", "demo,ghost"], { exclude: ["demo", "ghost"] }],
      [["--max-chars", "200"], { maxChars: 200 }],
      [["--total", "5", "--format", "markdown"], { total: 5, format: "markdown" }],
      [["--no-selection-hints"], { selectionHints: false }],
    ];
    for (const [flags, options] of cases) {
      const r = await cli("catalog", shelf, ...flags);
      expect([flags, r.code]).toEqual([flags, 0]);
      expect(r.stdout).toBe(renderCatalog(metas, options));
    }
  });

  it("prints the real library's catalog for the golden's skills", async () => {
    const two = path.join(root, "two");
    for (const meta of Object.values(golden.skills.two)) {
      write(path.join(two, "skills", meta.name, "SKILL.md"), skillMd(meta, `# ${meta.name}\nBody.`));
    }
    for (const c of golden.cases.filter((c) => c.registry === "two" && "output" in c)) {
      const args = c.args as { format: string; total?: number; selection_hints?: boolean };
      const flags = ["--format", args.format];
      if (args.total !== undefined) flags.push("--total", String(args.total));
      if (args.selection_hints === false) flags.push("--no-selection-hints");
      const r = await cli("catalog", two, ...flags);
      expect([c.name, r.stdout]).toEqual([c.name, c.output]);
    }
  });

  it("reports the library's errors and rejects bad flags", async () => {
    const unknown = await cli("catalog", shelf, "--include", "zeta,ghost");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("skillshelf: include names skills that are not registered: ghost, zeta\n");
    const tiny = await cli("catalog", shelf, "--max-chars", "3");
    expect(tiny.code).toBe(1);
    expect(tiny.stderr).toContain("max_chars=3 cannot hold the smallest possible catalog, which needs 57 characters.");
    expect((await cli("catalog", shelf, "--max-chars", "-1")).code).toBe(2);
    expect((await cli("catalog", shelf, "--max-chars", "ten")).code).toBe(2);
    expect((await cli("catalog", shelf, "--format", "json")).code).toBe(2);
    expect((await cli("catalog", shelf, "--bogus")).code).toBe(2);
  });

  it("refuses a shelf with an invalid skill, naming it", async () => {
    const broken = path.join(root, "broken-shelf");
    write(path.join(broken, "skills", "fine", "SKILL.md"), skillMd({ name: "fine", description: "Fine." }, "# Fine"));
    write(path.join(broken, "skills", "bad", "SKILL.md"), skillMd({ name: "bad" }, "# Bad"));
    const r = await cli("catalog", broken);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/1 skill\(s\) in .* are invalid/);
    expect(r.stderr).toMatch(/skill bad:/);
  });
});
