#!/usr/bin/env node
// `npm run build:agents`: bundles the Cloudflare Agents skill source (src/agents/skill-source.ts and the core
// modules it imports) into dist/agents.mjs, and writes its declarations to dist/agents.d.ts, which the package
// exports as `skillshelf/agents`. Web APIs only (workerd, Node 20+); `agents` stays an import, since the agent
// that imports this module brings its own copy (a peer dependency). Any other package import is an error.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { entryDeclarations, packageOf, writeAtomically } from "./lib/package-entry.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The module a Worker-based agent imports, and where its bundle and declarations go (package.json `exports`). */
export const AGENTS_ENTRY = "src/agents/skill-source.ts";
export const AGENTS_BUNDLE = "dist/agents.mjs";
export const AGENTS_TYPES = "dist/agents.d.ts";
/** Syntax target: what workerd and Node 20 both run. */
export const AGENTS_TARGET = "es2022";

/**
 * Bundles the module and writes its declarations. Fails when it imports a package that package.json does not
 * list under `peerDependencies` (the agent installs those; nothing else would be there).
 * @example await buildAgents() // => { outfile: "/…/dist/agents.mjs", bytes: 12345, packages: ["agents"] }
 */
export async function buildAgents(
  options: { root?: string; outfile?: string; typesfile?: string } = {},
): Promise<{ outfile: string; bytes: number; packages: string[] }> {
  const root = options.root ?? ROOT;
  const outfile = options.outfile ?? path.join(root, AGENTS_BUNDLE);
  const result = await build({
    entryPoints: [path.join(root, AGENTS_ENTRY)],
    outfile,
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: AGENTS_TARGET,
    packages: "external",
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    write: false,
  });
  const { peerDependencies = {} } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { peerDependencies?: Record<string, string> };
  const packages = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) for (const { path: specifier } of output.imports) packages.add(packageOf(specifier));
  const missing = [...packages].filter((name) => !Object.hasOwn(peerDependencies, name));
  if (missing.length) throw new Error(`${AGENTS_ENTRY} imports ${missing.join(", ")}, which package.json does not list under peerDependencies`);
  for (const file of result.outputFiles) await writeAtomically(file.path, file.contents);
  await writeAtomically(options.typesfile ?? path.join(root, AGENTS_TYPES), entryDeclarations(root, AGENTS_ENTRY));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { outfile, bytes, packages: [...packages].sort() };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildAgents().then(
    ({ outfile, bytes, packages }) =>
      process.stdout.write(`wrote ${path.relative(ROOT, outfile)} (${bytes} bytes, ${AGENTS_TARGET}; imports ${packages.join(", ")}) and ${AGENTS_TYPES}\n`),
    (error: unknown) => {
      process.stderr.write(`build:agents: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
