#!/usr/bin/env node
// `npm run build:agents`: bundles the Cloudflare Agents skill source (src/agents/skill-source.ts and the core
// modules it imports) into dist/agents.mjs, and writes its declarations to dist/agents.d.ts, which the package
// exports as `skillshelf/agents`. Web APIs only (workerd, Node 20+); `agents` stays an import, since the agent
// that imports this module brings its own copy (a peer dependency). Any other package import is an error.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The module a Worker-based agent imports, and where its bundle and declarations go (package.json `exports`). */
export const AGENTS_ENTRY = "src/agents/skill-source.ts";
export const AGENTS_BUNDLE = "dist/agents.mjs";
export const AGENTS_TYPES = "dist/agents.d.ts";
/** Syntax target: what workerd and Node 20 both run. */
export const AGENTS_TARGET = "es2022";

/** The package a bare import specifier names: "agents/skills" → "agents". */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The entry's declarations as one file. Only its own exported types may appear: a relative import left in the
 * output would point at src/, which the package does not ship, so it is an error.
 */
function declarations(root: string): string {
  const entry = path.join(root, AGENTS_ENTRY);
  const { config } = ts.readConfigFile(path.join(root, "tsconfig.base.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram([entry], { ...options, noEmit: false, declaration: true, emitDeclarationOnly: true, types: [] });
  let text: string | undefined;
  const result = program.emit(program.getSourceFile(entry), (file, data) => {
    if (file.endsWith("skill-source.d.ts")) text = data;
  });
  const problems = result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  if (problems.length || text === undefined) throw new Error(`declarations for ${AGENTS_ENTRY} failed: ${problems.join("; ") || "nothing emitted"}`);
  const relative = ts.preProcessFile(text, true, true).importedFiles.filter((f) => f.fileName.startsWith("."));
  if (relative.length) throw new Error(`${AGENTS_TYPES} would import ${relative.map((f) => f.fileName).join(", ")}, which the package does not ship`);
  return text;
}

// Tests build while others import the bundle (and npm pack reads it): a reader sees the old file or the new one.
async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(temporary, data);
  await rename(temporary, file);
}

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
  await writeAtomically(options.typesfile ?? path.join(root, AGENTS_TYPES), declarations(root));
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
