// The tree's structure rules: no import cycle anywhere under src/ (type-only imports count), the
// layers kept, no Worker module over MAX_WORKER_FILE_LINES lines; and proof on made-up trees that the checks can fail.
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  importCycles,
  importGraph,
  layerViolations,
  MAX_WORKER_FILE_LINES,
  oversizedFiles,
  viewViolations,
  readSourceTree,
  relativeImports,
} from "../../scripts/check-tree.ts";

const tree = (files: Record<string, string>) => new Map(Object.entries(files));

describe("relativeImports", () => {
  it("reads every kind of relative import and nothing in comments or strings", () => {
    const source = [
      '// import { no } from "./comment.ts";',
      'import type { A } from "./a.ts";',
      'import { type B, c } from "../b.ts";',
      'export { d } from "./d.ts";',
      'export type { E } from "./e.ts";',
      'import "./f.ts";',
      'const g = await import("./g.ts");',
      'type H = typeof import("./h.ts");',
      "const s = \"import x from './string.ts'\";",
      'import {\n  i,\n} from "./i.ts";',
      'import { z } from "zod";',
    ].join("\n");
    expect(relativeImports(source)).toEqual(["./a.ts", "../b.ts", "./d.ts", "./e.ts", "./f.ts", "./g.ts", "./h.ts", "./i.ts"]);
  });
});

describe("importCycles", () => {
  it("finds a circle of three and names it in import order", () => {
    const graph = importGraph(
      tree({
        "src/a.ts": 'import { b } from "./b.ts";',
        "src/b.ts": 'import { c } from "./sub/c.ts";',
        "src/sub/c.ts": 'import { a } from "../a.ts";',
        "src/d.ts": 'import { a } from "./a.ts";',
      }),
    );
    expect(importCycles(graph)).toEqual([["src/a.ts", "src/b.ts", "src/sub/c.ts", "src/a.ts"]]);
  });
  it("counts a circle closed only by a type import", () => {
    const graph = importGraph(
      tree({ "src/errors.ts": 'import { access } from "./access.ts";', "src/access.ts": 'import type { HttpError } from "./errors.ts";' }),
    );
    expect(importCycles(graph)).toEqual([["src/access.ts", "src/errors.ts", "src/access.ts"]]);
  });
  it("finds a module that imports itself", () => {
    expect(importCycles(importGraph(tree({ "src/self.ts": 'export * from "./self.ts";' })))).toEqual([["src/self.ts", "src/self.ts"]]);
  });
  it("finds no circle in a diamond", () => {
    const graph = importGraph(
      tree({
        "src/top.ts": 'import "./left.ts";\nimport "./right.ts";',
        "src/left.ts": 'import "./bottom.ts";',
        "src/right.ts": 'import "./bottom.ts";',
        "src/bottom.ts": "export const x = 1;",
      }),
    );
    expect(importCycles(graph)).toEqual([]);
  });
});

describe("oversizedFiles", () => {
  it("counts lines, not the trailing newline, and looks only inside the folder", () => {
    const files = tree({ "src/worker/big.ts": "x\n".repeat(5), "src/worker/ok.ts": "x\n".repeat(4), "src/core/big.ts": "x\n".repeat(9) });
    expect(oversizedFiles(files, "src/worker", 4)).toEqual([{ file: "src/worker/big.ts", lines: 5 }]);
  });
});

describe("layerViolations", () => {
  it("names core importing a runtime and the two runtimes importing each other, and nothing else", () => {
    const graph = importGraph(
      tree({
        "src/core/a.ts": 'import { w } from "../worker/w.ts";',
        "src/core/b.ts": 'import { a } from "./a.ts";',
        "src/worker/w.ts": 'import { b } from "../core/b.ts";\nimport { c } from "../cli/c.ts";',
        "src/cli/c.ts": 'import { b } from "../core/b.ts";',
      }),
    );
    expect(layerViolations(graph)).toEqual(["src/core/a.ts -> src/worker/w.ts", "src/worker/w.ts -> src/cli/c.ts"]);
  });
});

describe("viewViolations", () => {
  it("names a view importing storage or another view, and nothing else", () => {
    const graph = importGraph(
      tree({
        "src/worker/storage/s.ts": "export const s = 1;",
        "src/worker/read/r.ts": 'import { s } from "../storage/s.ts";',
        "src/worker/views/api/a.ts": 'import { r } from "../../read/r.ts";\nimport { b } from "./b.ts";',
        "src/worker/views/api/b.ts": "export const b = 1;",
        "src/worker/views/mcp/m.ts": 'import { a } from "../api/a.ts";\nimport { s } from "../../storage/s.ts";',
        "src/worker/views/well-known.ts": 'import { m } from "./mcp/m.ts";',
      }),
    );
    expect(viewViolations(graph)).toEqual([
      "src/worker/views/mcp/m.ts -> src/worker/storage/s.ts",
      "src/worker/views/mcp/m.ts -> src/worker/views/api/a.ts",
      "src/worker/views/well-known.ts -> src/worker/views/mcp/m.ts",
    ]);
  });

  it("fails on a violation planted in the real tree", () => {
    const src = readSourceTree(path.resolve(import.meta.dirname, "../.."));
    const planted = new Map(src);
    planted.set("src/worker/views/mcp/planted.ts", 'import { r2Key } from "../../storage/keys.ts";\nimport { apiRoutes } from "../api/index.ts";');
    expect(viewViolations(importGraph(planted))).toEqual([
      "src/worker/views/mcp/planted.ts -> src/worker/storage/keys.ts",
      "src/worker/views/mcp/planted.ts -> src/worker/views/api/index.ts",
    ]);
  });
});

describe("the source tree", () => {
  const src = readSourceTree(path.resolve(import.meta.dirname, "../.."));
  it("is read in full", () => {
    expect(src.has("src/core/skill/hash.ts")).toBe(true);
    expect(src.has("src/worker/index.ts")).toBe(true);
  });
  it("has no import cycle under src/", () => {
    expect(importCycles(importGraph(src)).map((circle) => circle.join(" -> "))).toEqual([]);
  });
  it("keeps its layers: core imports no runtime, the Worker and the CLI never import each other", () => {
    expect(layerViolations(importGraph(src))).toEqual([]);
  });
  it("keeps the Worker's inner rules: views import neither storage nor each other", () => {
    expect(viewViolations(importGraph(src))).toEqual([]);
  });
  it(`has no Worker file over ${MAX_WORKER_FILE_LINES} lines`, () => {
    expect(oversizedFiles(src, "src/worker", MAX_WORKER_FILE_LINES)).toEqual([]);
  });
});
