// The `skillshelf/agents` export (scripts/build-agents.ts): one ESM bundle that imports only the `agents` peer,
// declarations that stand alone (no path into src/, which the package does not ship), and the export working as
// an agent project imports it (scripts/check-agents-package.mjs, by self-reference) on the machine's Node 20
// and on the pinned Node, types included.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS_BUNDLE, AGENTS_TYPES, buildAgents } from "../../scripts/build-agents.ts";

const SYSTEM_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p));
const CHECK = path.resolve("scripts/check-agents-package.mjs");
const TSC = path.resolve("node_modules/.bin/tsc");
const scratch = mkdtempSync(path.join(tmpdir(), "skillshelf-agents-build-"));

beforeAll(async () => {
  await buildAgents();
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm run build:agents", () => {
  it("bundles the source with the core it uses; its one package import is agents/skills, a peer dependency", async () => {
    const { packages } = await buildAgents();
    expect(packages).toEqual(["agents"]);
    const bundle = readFileSync(AGENTS_BUNDLE, "utf8");
    const imports = ts.preProcessFile(bundle, true, true).importedFiles.map((f) => f.fileName);
    expect(imports).toEqual(["agents/skills"]);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
      devDependencies: Record<string, string>;
      exports: Record<string, unknown>;
      files: string[];
    };
    // Optional, so installing the CLI alone never pulls the Agents SDK in.
    expect(pkg.peerDependenciesMeta.agents).toEqual({ optional: true });
    expect(pkg.peerDependencies.agents).toBe(">=0.32.0 <0.33.0");
    expect(pkg.devDependencies.agents).toMatch(/^0\.32\.\d+$/);
    expect(pkg.exports["./agents"]).toEqual({ types: `./${AGENTS_TYPES}`, import: `./${AGENTS_BUNDLE}`, default: `./${AGENTS_BUNDLE}` });
    expect(pkg.files).toEqual(expect.arrayContaining([AGENTS_BUNDLE, AGENTS_TYPES]));
  });

  it("writes declarations that import only agents/skills and declare the public surface", () => {
    const types = readFileSync(AGENTS_TYPES, "utf8");
    expect(ts.preProcessFile(types, true, true).importedFiles.map((f) => f.fileName)).toEqual(["agents/skills"]);
    for (const name of [
      "function skillshelf",
      "interface SkillshelfSourceOptions",
      "interface ShelfFetcher",
      "SKILLSHELF_TRUST_FIELD",
      "interface SkillshelfTrust",
    ]) {
      expect(types).toContain(name);
    }
  });

  it("refuses to build when the module imports a package that is not a peer dependency", async () => {
    const root = path.join(scratch, "no-peers");
    execFileSync("mkdir", ["-p", root]);
    writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "x", type: "module" }));
    symlinkSync(path.resolve("src"), path.join(root, "src"));
    symlinkSync(path.resolve("tsconfig.base.json"), path.join(root, "tsconfig.base.json"));
    await expect(buildAgents({ root, outfile: path.join(root, "out.mjs"), typesfile: path.join(root, "out.d.ts") })).rejects.toThrow(
      /imports agents, which package.json does not list under peerDependencies/,
    );
  });
});

describe("the export as an agent project imports it", () => {
  const nodes = [["the pinned Node", process.execPath], ...(SYSTEM_NODE ? [[`the system Node (${SYSTEM_NODE})`, SYSTEM_NODE]] : [])] as const;
  for (const [label, node] of nodes) {
    it(`lists, activates and reads a shelf through loadSkillCatalog, refuses tampered bytes, and type-checks on ${label}`, () => {
      const run = spawnSync(node, [CHECK, "--tsc", TSC], { encoding: "utf8", timeout: 120_000 });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^skillshelf\/agents on Node v\d+.*refused tampered bytes, types check\n$/);
    }, 120_000);
  }
});
