// Structural checks on src/: no module imports itself through a circle of relative imports (type-only
// imports included: a reader follows those too), imports follow the layers (core imports no runtime; the
// Worker and the CLI never import each other), the Worker's views import neither storage nor each other,
// and no Worker source file grows past MAX_WORKER_FILE_LINES.
// test/scripts/check-tree.test.ts enforces both in npm test; `node scripts/check-tree.ts` prints what it finds.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Over this many lines a Worker module is doing more than one job (issue 10). */
export const MAX_WORKER_FILE_LINES = 450;

/** Source files by POSIX path relative to the repository root, e.g. "src/core/skill/hash.ts". */
export type SourceTree = ReadonlyMap<string, string>;

/** Module path → the module paths it imports (relative specifiers only, resolved). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Every relative module specifier a source file names: static imports and re-exports (`import type`
 * and `export type` too), side-effect imports, `import()` and `typeof import()`. Comments and strings
 * are not imports: TypeScript's own scanner reads the file.
 * @example relativeImports('import type { A } from "./a.ts";') // => ["./a.ts"]
 */
export function relativeImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith("./") || s.startsWith("../"));
}

/** The import graph of a tree: each specifier resolved against its file (a missing `.ts` is tried too). */
export function importGraph(tree: SourceTree): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [file, source] of tree) {
    const targets = new Set<string>();
    for (const spec of relativeImports(source)) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const target = [resolved, `${resolved}.ts`, `${resolved}/index.ts`].find((candidate) => tree.has(candidate));
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The circles of imports in a graph, one per strongly connected component (Tarjan), each written
 * as the path that closes it: ["a.ts", "b.ts", "a.ts"]. A module importing itself is a circle of one.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => circleThrough(graph, new Set(component))).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

// One concrete circle inside a strongly connected component, from its first module back to it
// (breadth-first, so the shortest), which is what a reader fixing the cycle needs to see.
function circleThrough(graph: ImportGraph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const circle = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at)) circle.splice(1, 0, at);
        return [...circle, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/**
 * Which top-level folders under src/ each may import (besides itself): the core is imported by
 * the two runtimes and imports neither; the Worker and the CLI never import each other.
 */
export const ALLOWED_LAYERS: Readonly<Record<string, readonly string[]>> = {
  "src/core": [],
  "src/worker": ["src/core"],
  "src/cli": ["src/core"],
  "src/agents": ["src/core"],
};

/** Imports that cross the layering of ALLOWED_LAYERS, as "from -> to". */
export function layerViolations(graph: ImportGraph, allowed: Readonly<Record<string, readonly string[]>> = ALLOWED_LAYERS): string[] {
  const layerOf = (file: string) => Object.keys(allowed).find((layer) => file === layer || file.startsWith(`${layer}/`));
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const layer = layerOf(from);
    if (layer === undefined) continue;
    for (const to of targets) {
      const target = layerOf(to);
      if (target !== undefined && target !== layer && !allowed[layer]!.includes(target)) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** Where the Worker's views live: each file or folder directly under it is one view. */
export const WORKER_VIEWS = "src/worker/views";
/** What no view may import: the Worker's storage (views ask the shelf service). */
export const VIEWS_NEVER_IMPORT: readonly string[] = ["src/worker/storage"];

/**
 * The Worker's inner rules, as "from -> to": a view (a file or folder directly under
 * `views`) never imports storage (it asks the shelf service, the read surface and http/), nor
 * another view (what two views share belongs in src/worker/read or src/worker/shelf).
 * @example viewViolations(new Map([["src/worker/views/mcp/a.ts", ["src/worker/views/api/b.ts"]]])) // => ["src/worker/views/mcp/a.ts -> src/worker/views/api/b.ts"]
 */
export function viewViolations(graph: ImportGraph, views = WORKER_VIEWS, forbidden: readonly string[] = VIEWS_NEVER_IMPORT): string[] {
  const prefix = `${views}/`;
  const viewOf = (file: string) =>
    file.startsWith(prefix)
      ? file
          .slice(prefix.length)
          .split("/")[0]!
          .replace(/\.tsx?$/, "")
      : undefined;
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const view = viewOf(from);
    if (view === undefined) continue;
    for (const to of targets) {
      const other = viewOf(to);
      const crossesViews = other !== undefined && other !== view;
      if (crossesViews || forbidden.some((folder) => to.startsWith(`${folder}/`))) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** Files under `folder` with more than `maxLines` lines, with their line counts. */
export function oversizedFiles(tree: SourceTree, folder: string, maxLines: number): { file: string; lines: number }[] {
  const prefix = folder.endsWith("/") ? folder : `${folder}/`;
  return [...tree]
    .filter(([file]) => file.startsWith(prefix))
    .map(([file, source]) => ({ file, lines: source.split("\n").length - (source.endsWith("\n") ? 1 : 0) }))
    .filter((f) => f.lines > maxLines)
    .sort((a, b) => b.lines - a.lines);
}

/** Every hand-written .ts and .tsx file under `root`/`folder` (declaration files are generated, so skipped). */
export function readSourceTree(root: string, folder = "src"): Map<string, string> {
  const tree = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && /\.tsx?$/.test(child) && !child.endsWith(".d.ts")) tree.set(child, readFileSync(path.join(root, child), "utf8"));
    }
  };
  walk(folder);
  return tree;
}

function main(): number {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const tree = readSourceTree(root);
  const graph = importGraph(tree);
  const cycles = importCycles(graph);
  const crossings = layerViolations(graph);
  const oversized = oversizedFiles(tree, "src/worker", MAX_WORKER_FILE_LINES);
  const viewCrossings = viewViolations(graph);
  for (const circle of cycles) process.stderr.write(`import cycle: ${circle.join(" -> ")}\n`);
  for (const crossing of crossings) process.stderr.write(`layer crossing: ${crossing} (core imports no runtime; worker and cli never import each other)\n`);
  for (const crossing of viewCrossings) process.stderr.write(`view crossing: ${crossing} (views never import storage or each other)\n`);
  for (const f of oversized) process.stderr.write(`${f.file}: ${f.lines} lines, over ${MAX_WORKER_FILE_LINES}; split it by job\n`);
  process.stdout.write(
    `check-tree: ${tree.size} modules, ${cycles.length} import cycle(s), ${crossings.length} layer crossing(s), ${viewCrossings.length} view crossing(s), ${oversized.length} oversized Worker file(s)\n`,
  );
  return cycles.length || crossings.length || viewCrossings.length || oversized.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
