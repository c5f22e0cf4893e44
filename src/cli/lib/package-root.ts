// The skillshelf package this CLI runs from: its folder (a checkout, or node_modules/skillshelf) and its
// package.json, for --version, `init` (the versions a team pins, the curated shelf it seeds from) and
// `init --check`. The sources sit two folders below package.json (src/cli/lib), the bundle one (dist/).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The fields of skillshelf's package.json the CLI reads. */
export interface OwnPackage {
  root: string;
  name: string;
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

let cached: Promise<OwnPackage> | undefined;

async function find(): Promise<OwnPackage> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++, dir = path.dirname(dir)) {
    try {
      const json = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as Partial<OwnPackage>;
      if (json.name === "skillshelf" && json.version)
        return {
          root: dir,
          name: json.name,
          version: json.version,
          devDependencies: json.devDependencies ?? {},
          peerDependencies: json.peerDependencies ?? {},
        };
    } catch {
      // not this folder
    }
  }
  throw new Error(`skillshelf's package.json was not found above ${fileURLToPath(import.meta.url)}`);
}

/** skillshelf's own package (found once per process). */
export function ownPackage(): Promise<OwnPackage> {
  cached ??= find();
  return cached;
}

/** The curated shelf the package ships (`seed --from curated`). */
export async function curatedShelfDir(): Promise<string> {
  return path.join((await ownPackage()).root, "shelf");
}
