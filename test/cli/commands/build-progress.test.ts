// Build's progress and failure agree (issue 27): while the build runs, changed skills are prepared
// in a staging folder, and nothing reaches the build folder until every skill passes, so progress
// never says "wrote" and a refused build says the build folder is unchanged.
import { describe, expect, it } from "vitest";
import { progressLines } from "../../../src/cli/commands/build.ts";
import { BuildRefusedError } from "../../../src/cli/lib/build.ts";

describe("build's progress line", () => {
  it("says prepared (staged), not wrote, and after the first second only", () => {
    let now = 0;
    const lines: string[] = [];
    const report = progressLines(
      (line) => lines.push(line),
      () => now,
    );
    report({ total: 4, checked: 1, staging: 1, staged: 0 });
    expect(lines).toEqual([]);
    now = 1500;
    report({ total: 4, checked: 3, staging: 4, staged: 1 });
    expect(lines).toEqual(["build: checked 3/4 skill(s), prepared 1/4 changed skill(s) (2 s)\n"]);
  });
});

describe("a refused build", () => {
  it("says the build folder is unchanged (what was prepared is discarded)", () => {
    const error = new BuildRefusedError([{ skill: "broken", field: "description", message: "is required" }]);
    expect(error.message).toBe("build refused: 1 problem(s); nothing was written (the build folder is unchanged):\n  broken: description: is required");
  });
});
