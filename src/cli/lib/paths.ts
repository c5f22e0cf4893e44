// Where a path really is: the build's target checks and signing's "never inside a shelf or build
// folder" rule ask the same question, with symlinks resolved as far as the path exists.
import { realpath } from "node:fs/promises";
import path from "node:path";

/** The real path of `p`: symlinks resolved for the longest existing prefix, the rest appended. */
export async function realPathOf(p: string): Promise<string> {
  const abs = path.resolve(p);
  try {
    return await realpath(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(await realPathOf(parent), path.basename(abs));
  }
}

/** True when the (already real) path `inner` is `outer` or lies somewhere beneath it. */
export function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * True when `inner` is `outer` or lies beneath it, real paths compared.
 * @example await isInside("shelf/key.pem", "shelf") // true
 */
export async function isInside(inner: string, outer: string): Promise<boolean> {
  return isWithin(await realPathOf(inner), await realPathOf(outer));
}
