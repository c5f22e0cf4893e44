#!/usr/bin/env node
// The `skillshelf` command (package.json bin). In a checkout of the repository it runs the TypeScript sources
// (src/cli/skillshelf.ts) on a Node that strips types (the pinned Node 24 that `npx skillshelf` uses), so
// development never runs a stale build; the installed package ships no src/ and runs the bundle that
// `npm run build:cli` writes (dist/skillshelf.mjs, Node 20 and later). Plain JavaScript: Node 20 reads it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/skillshelf.ts", import.meta.url);
const bundle = new URL("../dist/skillshelf.mjs", import.meta.url);
// Node refuses to strip types under node_modules, so a copy installed there always takes the bundle.
const inCheckout = existsSync(source) && !fileURLToPath(import.meta.url).split(/[\\/]/).includes("node_modules");

if (inCheckout && process.features.typescript) await import(source.href);
else if (existsSync(bundle)) await import(bundle.href);
else {
  process.stderr.write(
    `skillshelf: this checkout runs src/cli/skillshelf.ts, which needs Node 24 (${process.version} here): use npx skillshelf, or run npm run build:cli to run dist/skillshelf.mjs on this Node\n`,
  );
  process.exitCode = 2;
}
