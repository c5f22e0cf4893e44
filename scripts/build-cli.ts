#!/usr/bin/env node
// `npm run build:cli`: bundles the skillshelf CLI (src/cli/skillshelf.ts and everything it imports) into one
// JavaScript file for Node 20 and later, dist/skillshelf.mjs, which the packed package runs (bin/skillshelf.js),
// and the build's worker thread beside it (dist/skill-objects-worker.mjs).
// The runtime dependencies stay imports (npm installs them with the package); anything else is an error.
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { packageOf } from "./lib/package-entry.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where the bundle goes; package.json's `files` ships it and bin/skillshelf.js runs it. */
export const CLI_BUNDLE = "dist/skillshelf.mjs";
/** The oldest Node the bundle runs on: its syntax is lowered to this target, and a test runs it on Node 20. */
export const CLI_NODE_TARGET = "node20";

/** Options for {@link buildCli}. */
export interface BuildCliOptions {
  /** Project root; defaults to this repository. */
  root?: string;
  /** Defaults to <root>/dist/skillshelf.mjs. */
  outfile?: string;
}

/**
 * Bundles the CLI. Fails when the CLI imports a package that package.json does not list under
 * `dependencies` (an installed package would not have it).
 * @example await buildCli() // => { outfile: "/…/dist/skillshelf.mjs", bytes: 235780, packages: ["canonicalize", …] }
 */
export async function buildCli(options: BuildCliOptions = {}): Promise<{ outfile: string; bytes: number; packages: string[] }> {
  const root = options.root ?? ROOT;
  const outfile = options.outfile ?? path.join(root, CLI_BUNDLE);
  const result = await build({
    // The build's worker thread is its own entry, written beside the bundle, where
    // src/cli/lib/skill-objects-pool.ts looks for it (skill-objects-worker.mjs).
    entryPoints: [
      { in: path.join(root, "src/cli/skillshelf.ts"), out: path.basename(outfile, ".mjs") },
      { in: path.join(root, "src/cli/lib/skill-objects-worker.ts"), out: "skill-objects-worker" },
    ],
    outdir: path.dirname(outfile),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: CLI_NODE_TARGET,
    // Dependencies are imported from node_modules at run time, as npm installs them with the package.
    packages: "external",
    // The entry's own `#!/usr/bin/env node` line is kept at the top, so the file runs as a command.
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
  });
  const { dependencies = {} } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const builtins = new Set(builtinModules);
  const packages = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path: specifier, external } of output.imports) {
      if (!external || specifier.startsWith("node:") || builtins.has(specifier)) continue;
      packages.add(packageOf(specifier));
    }
  }
  const missing = [...packages].filter((name) => !Object.hasOwn(dependencies, name));
  if (missing.length) {
    throw new Error(`the CLI imports ${missing.join(", ")}, which package.json does not list under dependencies; an installed skillshelf would not find it`);
  }
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { outfile, bytes, packages: [...packages].sort() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildCli().then(
    ({ outfile, bytes, packages }) =>
      process.stdout.write(`wrote ${path.relative(ROOT, outfile)} (${bytes} bytes, ${CLI_NODE_TARGET}; imports ${packages.join(", ")})\n`),
    (error: unknown) => {
      process.stderr.write(`build:cli: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
