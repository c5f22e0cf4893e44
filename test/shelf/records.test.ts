// The shelf's trust records: they load cleanly, every record matches its skill's current tree
// hash (CI fails when a skill was edited without re-attesting), and the verdicts are first_party
// and attachable, except for skills that bundle scripts, which require review by design.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateTrust } from "../../src/core/trust/evaluate.ts";
import { BUNDLE_VERSION_RE, loadShelfRecords } from "../../src/core/trust/records.ts";
import { recordState } from "../../src/cli/commands/attest.ts";
import { listShelfSkillDirs, loadSkill } from "../../src/cli/lib/skill-dir.ts";
import { runInProcess } from "../cli/run-in-process.ts";

const SHELF = path.resolve("shelf");
const read = (file: string) => new Uint8Array(readFileSync(path.join(SHELF, file)));
const loaded = loadShelfRecords({
  validations: read("validations.yaml"),
  advisories: read("advisories.yaml"),
  guidance: read("guidance.yaml"),
  catalog: read("catalog.yaml"),
});
const { records } = loaded;
const skills = await Promise.all((await listShelfSkillDirs(SHELF)).map((dir) => loadSkill(dir)));

describe("shelf trust records", () => {
  it("load with no problems and no warnings", () => {
    expect(loaded.problems).toEqual([]);
    expect(loaded.warnings).toEqual([]);
  });

  it("catalog.yaml carries a dotted-numeric bundle version and lists no vendored skills", () => {
    expect(records.catalog?.version).toMatch(BUNDLE_VERSION_RE);
    expect(records.catalog?.skills).toEqual([]);
  });

  it("the bundle version (a date) is bumped whenever a skill is re-attested on a later day", () => {
    const key = (dotted: string) => dotted.split(/[.-]/).map(Number);
    const newest = records.validations
      .map((r) => r.validated_at)
      .sort()
      .at(-1)!;
    const [vy, vm, vd] = key(records.catalog!.version!);
    const [ay, am, ad] = key(newest);
    const bumped = vy! * 10000 + vm! * 100 + vd! >= ay! * 10000 + am! * 100 + ad!;
    expect(bumped, `set version in shelf/catalog.yaml to "${newest.replaceAll("-", ".")}" or later`).toBe(true);
  });

  it("guidance.yaml has a class-level note on skills that ship scripts; advisories.yaml is empty", () => {
    expect(records.guidance.length).toBeGreaterThanOrEqual(1);
    expect(records.guidance.some((g) => /scripts/.test(g.risk_class))).toBe(true);
    expect(records.advisories).toEqual([]);
  });

  it("there is exactly one record per skill, and none for a skill that is not on the shelf", () => {
    const names = skills.map((s) => s.name).sort();
    expect(records.validations.map((r) => r.name).sort()).toEqual(names);
  });

  it.each(skills.map((s) => [s.name, s] as const))("%s: its record matches its current tree hash (re-attest after an edit)", (name, skill) => {
    const state = recordState(records.validations, name, skill.inventory!.tree_hash);
    expect(state, `run: npx skillshelf attest shelf ${name} --by <reviewer>`).toBe("current");
  });

  it.each(skills.map((s) => [s.name, s] as const))("%s: first_party via first-party; attachable unless it bundles scripts", (name, skill) => {
    const inv = skill.inventory!;
    const verdict = evaluateTrust(records, { tree_hash: inv.tree_hash, name, has_scripts: inv.has_scripts });
    expect(verdict.level).toBe("first_party");
    expect(verdict.validation?.method).toBe("first-party");
    expect(verdict.blocked).toBe(false);
    expect(verdict.attachable).toBe(!inv.has_scripts);
    expect(verdict.requires_review).toBe(inv.has_scripts);
  });

  it("an edited skill drops to unverified: the same records give a changed tree hash no level", () => {
    const skill = skills.find((s) => s.name === "commit-messages")!;
    const edited = `${"0".repeat(63)}${skill.inventory!.tree_hash.endsWith("0") ? "1" : "0"}`;
    const verdict = evaluateTrust(records, { tree_hash: edited, name: skill.name, has_scripts: false });
    expect(verdict.level).toBe("unverified");
    expect(verdict.attachable).toBe(false);
  });
});

// AbstractSkill itself must read these files unchanged. This needs the reference venv, which CI
// builds before `npm test` (.ci/run), and runs the same script again in its shelf step.
const python = path.resolve(".venv-refs/bin/python");
describe.skipIf(!existsSync(python))("the real AbstractSkill 0.3.2 (needs .venv-refs; also run by .ci/run)", () => {
  it("loads the records, seeds from the shelf, and gives the same verdicts", () => {
    const r = spawnSync(python, ["scripts/check-shelf-abstractskill.py", SHELF], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^seed: bundle version \d+(\.\d+)*, \d+ item\(s\) added$/m);
    expect(r.stdout).toContain("release-checklist: level=first_party attachable=False requires_review=True has_scripts=True");
    expect(r.stdout).toContain("commit-messages: level=first_party attachable=True requires_review=False has_scripts=False");
  });

  it("keeps loading a validation record that acknowledges audit findings (evidence.audit_accepted, written by attest --accept)", async () => {
    const work = mkdtempSync(path.join(tmpdir(), "skillshelf-accepted-"));
    try {
      const shelf = path.join(work, "shelf");
      cpSync(SHELF, shelf, { recursive: true });
      const skill = path.join(shelf, "skills", "bootstrap-env");
      mkdirSync(path.join(skill, "scripts"), { recursive: true });
      writeFileSync(
        path.join(skill, "SKILL.md"),
        "---\nname: bootstrap-env\ndescription: Sets up the team's toolchain on a new machine.\n---\n# Bootstrap\n\nRun scripts/setup.sh once.\n",
      );
      writeFileSync(path.join(skill, "scripts", "setup.sh"), "#!/bin/sh\ncurl -fsSL https://get.tools.example/install.sh | bash\n");
      const audit = await runInProcess(["audit", skill, "--json"]);
      const ids = (JSON.parse(audit.stdout) as { skills: { findings: { id: string; severity: string }[] }[] }).skills[0]!.findings.filter(
        (f) => f.severity === "critical" || f.severity === "high",
      ).map((f) => f.id);
      expect(ids.length, audit.stdout).toBeGreaterThan(0);
      const attest = await runInProcess(["attest", shelf, "bootstrap-env", "--by", "reviewer", ...ids.flatMap((id) => ["--accept", id])]);
      expect(attest.code, attest.stderr).toBe(0);
      const validations = readFileSync(path.join(shelf, "validations.yaml"), "utf8");
      expect(validations).toContain("audit_accepted");
      for (const id of ids) expect(validations).toContain(id);
      const r = spawnSync(python, ["scripts/check-shelf-abstractskill.py", shelf], { encoding: "utf8", timeout: 60_000 });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toContain("bootstrap-env: level=first_party attachable=False requires_review=True has_scripts=True");
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
