// Every file of a build folder with its SHA-256, for byte-for-byte comparisons of builds (the
// local build cache aside: it records stats and paths, not the generation).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { BUILD_CACHE_FILE } from "../../../src/cli/lib/build-cache.ts";

/** Relative path → SHA-256 of every file under `dir`, build-cache.json left out. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (child === BUILD_CACHE_FILE) continue;
      if (entry.isDirectory()) walk(child);
      else
        out[child] = createHash("sha256")
          .update(readFileSync(path.join(dir, child)))
          .digest("hex");
    }
  };
  walk("");
  return out;
}
