// npm test's checks step (scripts/checks.ts): it runs every check npm test ran before vitest, each a
// package.json script, and fails a green lint or dry-run bundle that printed what a green run must
// not (issue 23). The steps themselves run in npm test; here, what the runner makes of their output.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LANES, noise } from "../../scripts/checks.ts";

describe("npm test's checks", () => {
  it("are format, lint, the type-checks, the stale-types check and the dry-run bundle, each once, each a script", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    const steps = LANES.flat();
    expect([...steps].sort()).toEqual(["build:check", "format:check", "lint", "typecheck", "types:check"]);
    for (const step of steps) expect(scripts[step], step).toBeDefined();
    expect(scripts.test).toMatch(/^npm run checks && .*vitest run$/);
    expect(scripts.checks).toBe("node scripts/checks.ts");
    // Format before lint, and the stale-types check before the bundle built against those types.
    const lane = LANES.find((l) => l.includes("lint"))!;
    expect(lane.indexOf("format:check")).toBeLessThan(lane.indexOf("lint"));
    expect(lane.indexOf("types:check")).toBeLessThan(lane.indexOf("build:check"));
  });

  it("fail a lint that reports infos or warnings, and pass a quiet one", () => {
    expect(noise("lint", "Checked 512 files in 1203ms. No fixes applied.\n")).toBeNull();
    expect(noise("lint", "src/x.ts:1:1 lint/style/useConst\n\nChecked 512 files in 1203ms. No fixes applied.\nFound 1 info.\n")).toMatch(/infos or warnings/);
    expect(noise("lint", "\x1b[1mFound 2 warnings.\x1b[0m\n")).toMatch(/infos or warnings/);
  });

  it("fail a dry-run bundle that warns, and pass a quiet one", () => {
    expect(noise("build:check", "Total Upload: 812.33 KiB / gzip: 160.10 KiB\n--dry-run: exiting now.\n")).toBeNull();
    expect(noise("build:check", "\x1b[33m▲ [WARNING]\x1b[0m Multiple environments are defined in the Wrangler configuration file\n")).toMatch(/warning/);
  });

  it("leave the other steps' output alone", () => {
    expect(noise("typecheck", "WARNING Found 1 info")).toBeNull();
  });
});
