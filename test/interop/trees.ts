// What every interop check ends with: the files a client installed, compared with the shelf's
// skill folder byte for byte (a missing, a changed and an extra file are each a problem). Each
// client's check reads the two trees its own way (which names it skips, whether it follows links).

/** The differences between the shelf's files `want` and the installed `got` (path → bytes), as problems named under `label`. */
export function compareTrees(label: string, want: Map<string, Buffer>, got: Map<string, Buffer>): string[] {
  const problems: string[] = [];
  for (const [file, bytes] of want) {
    const have = got.get(file);
    if (!have) problems.push(`${label}/${file} was not installed`);
    else if (!have.equals(bytes)) problems.push(`${label}/${file} differs from the shelf's bytes`);
  }
  for (const file of got.keys()) if (!want.has(file)) problems.push(`${label}/${file} was installed but is not on the shelf`);
  return problems;
}
