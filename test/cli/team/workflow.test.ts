// The GitHub Actions workflow `skillshelf init` writes, checked by actionlint (the linter GitHub
// workflows are usually checked with: expressions, contexts, shell scripts when shellcheck is there).
// actionlint is a Go program, installed pinned into .tools/bin by `npm run tools:setup` (.ci/run runs it).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { teamFiles, WORKFLOW_FILE } from "../../../src/cli/lib/team/template.ts";

const ACTIONLINT = path.resolve(".tools/bin/actionlint");
const work = mkdtempSync(path.join(tmpdir(), "skillshelf-workflow-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function workflowText(): string {
  const files = teamFiles({
    name: "acme-skills",
    skillshelfSpec: "file:vendor/skillshelf-0.1.0.tgz",
    versions: { skillshelf: "0.1.0", node: "24.21.0", wrangler: "4.156.2" },
    seeded: ["code-review"],
    packageSource: "a tarball under vendor/",
  });
  return files.find((f) => f.path === WORKFLOW_FILE)!.text;
}

/** Runs actionlint on one workflow file; its exit code and what it printed. */
function actionlint(text: string, name: string): { code: number | null; output: string } {
  const file = path.join(work, name);
  writeFileSync(file, text);
  const run = spawnSync(ACTIONLINT, ["-no-color", file], { encoding: "utf8" });
  return { code: run.status, output: run.stdout + run.stderr };
}

describe.skipIf(!existsSync(ACTIONLINT))("the workflow init writes, under actionlint (needs npm run tools:setup; .ci/run runs it)", () => {
  it("is the pinned actionlint", () => {
    expect(execFileSync(ACTIONLINT, ["--version"], { encoding: "utf8" }).split("\n")[0]).toBe("v1.7.12");
  });

  it("passes actionlint", () => {
    const result = actionlint(workflowText(), "shelf.yml");
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("would fail it with a mistake planted (an unknown context), so the check can fail", () => {
    const result = actionlint(workflowText().replace("vars.SHELF_URL", "varz.SHELF_URL"), "planted.yml");
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/undefined variable "varz"/);
  });
});
