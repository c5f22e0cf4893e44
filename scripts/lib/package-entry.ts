// What the scripts that bundle a package entry share (build-agents.ts, build-worker.ts): which package a
// bare import names, atomic writes (tests build while others read the bundle), and one entry's
// declarations as a single file that stands alone.
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import ts from "typescript";

/**
 * The package a bare import specifier names.
 * @example packageOf("agents/skills") // => "agents"; packageOf("@hono/zod-openapi") // => "@hono/zod-openapi"
 */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Writes through a temporary file and a rename: a reader sees the old file or the new one. */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(temporary, data);
  await rename(temporary, file);
}

/**
 * The declarations of one entry (a path under `root`) as one file. Only its own exported types may appear: a
 * relative import left in the output would point at src/, which the package does not ship, so it is an error.
 */
export function entryDeclarations(root: string, entry: string): string {
  const file = path.join(root, entry);
  const { config } = ts.readConfigFile(path.join(root, "tsconfig.base.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram([file], { ...options, noEmit: false, declaration: true, emitDeclarationOnly: true, types: [] });
  const wanted = `${path.basename(entry, ".ts")}.d.ts`;
  let text: string | undefined;
  const result = program.emit(program.getSourceFile(file), (name, data) => {
    if (path.basename(name) === wanted) text = data;
  });
  const problems = result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  if (problems.length || text === undefined) throw new Error(`declarations for ${entry} failed: ${problems.join("; ") || "nothing emitted"}`);
  const relative = ts.preProcessFile(text, true, true).importedFiles.filter((f) => f.fileName.startsWith("."));
  if (relative.length)
    throw new Error(`the declarations of ${entry} would import ${relative.map((f) => f.fileName).join(", ")}, which the package does not ship`);
  return text;
}
