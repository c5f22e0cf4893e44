#!/usr/bin/env node
// `npm run build:worker`: bundles the Worker's package entry (src/worker/package.ts, the app and the core
// it imports) into dist/worker.mjs and writes its declarations to dist/worker.d.ts, which the package
// exports as `skillshelf/worker`. A team's repository deploys it with its own wrangler config: wrangler
// bundles dist/worker.mjs again with the team's node_modules, so the runtime dependencies stay imports
// (npm installs them with the package). Any other package import is an error.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { entryDeclarations, packageOf, writeAtomically } from "./lib/package-entry.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const WORKER_ENTRY = "src/worker/package.ts";
export const WORKER_BUNDLE = "dist/worker.mjs";
export const WORKER_TYPES = "dist/worker.d.ts";
/** Syntax target: what workerd runs (wrangler lowers nothing further). */
export const WORKER_TARGET = "es2022";

/**
 * Bundles the Worker and writes its declarations. Fails when it imports a package that package.json does not
 * list under `dependencies` (an installed skillshelf would not bring it).
 * @example await buildWorker() // => { outfile: "/…/dist/worker.mjs", bytes: 456789, packages: ["hono", …] }
 */
export async function buildWorker(
  options: { root?: string; outfile?: string; typesfile?: string } = {},
): Promise<{ outfile: string; bytes: number; packages: string[] }> {
  const root = options.root ?? ROOT;
  const outfile = options.outfile ?? path.join(root, WORKER_BUNDLE);
  const result = await build({
    entryPoints: [path.join(root, WORKER_ENTRY)],
    outfile,
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: WORKER_TARGET,
    packages: "external",
    // The pages are hono/jsx (tsconfig.json's jsxImportSource, which esbuild reads).
    tsconfig: path.join(root, "tsconfig.json"),
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    write: false,
  });
  const { dependencies = {} } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const packages = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) for (const { path: specifier } of output.imports) packages.add(packageOf(specifier));
  const missing = [...packages].filter((name) => !Object.hasOwn(dependencies, name));
  if (missing.length) throw new Error(`${WORKER_ENTRY} imports ${missing.join(", ")}, which package.json does not list under dependencies`);
  for (const file of result.outputFiles) await writeAtomically(file.path, file.contents);
  await writeAtomically(options.typesfile ?? path.join(root, WORKER_TYPES), entryDeclarations(root, WORKER_ENTRY));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { outfile, bytes, packages: [...packages].sort() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildWorker().then(
    ({ outfile, bytes, packages }) =>
      process.stdout.write(`wrote ${path.relative(ROOT, outfile)} (${bytes} bytes, ${WORKER_TARGET}; imports ${packages.join(", ")}) and ${WORKER_TYPES}\n`),
    (error: unknown) => {
      process.stderr.write(`build:worker: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
