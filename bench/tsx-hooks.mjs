// Module hooks for the benchmarks: Node strips TypeScript types itself, but not JSX, so the
// Worker's .tsx pages (imported through src/worker/index.ts) are compiled here with esbuild,
// with the settings wrangler uses for them (tsconfig.base.json: react-jsx, hono/jsx).
import { readFile } from "node:fs/promises";
import { transform } from "esbuild";

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".tsx")) return nextLoad(url, context);
  const source = await readFile(new URL(url), "utf8");
  const { code } = await transform(source, { loader: "tsx", format: "esm", jsx: "automatic", jsxImportSource: "hono/jsx", sourcefile: url });
  return { format: "module", source: code, shortCircuit: true };
}
