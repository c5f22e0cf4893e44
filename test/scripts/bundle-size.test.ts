// The Worker bundle against the Free plan's size limit (3 MB after compression) with the margin
// docs/deploy.md ("Start-up and size") records: it fails once the gzip-compressed bundle grows past
// 1 MiB, a third of the limit, so a heavy dependency is noticed (and lazy-loaded or dropped) long
// before a deploy is refused. Reads what `npm run build:check` wrote to .wrangler/dry when it is
// newer than every file under src/, and bundles afresh into a temporary folder otherwise.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** The documented threshold: a third of the Free plan's 3 MB (docs/deploy.md, "Start-up and size"). */
const GZIP_LIMIT_BYTES = 1024 * 1024;
const DRY = path.join(ROOT, ".wrangler/dry/index.js");
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The newest modification time of any file under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** The deploy bundle's main module: build:check's when it is current, else a fresh `wrangler deploy --dry-run`. */
function bundle(): Buffer {
  if (existsSync(DRY) && statSync(DRY).mtimeMs >= newest(path.join(ROOT, "src"))) return readFileSync(DRY);
  const out = mkdtempSync(path.join(tmpdir(), "skillshelf-bundle-size-"));
  made.push(out);
  const run = spawnSync(process.execPath, [path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--env=", "--outdir", out], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "warn" },
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed (exit ${run.status ?? run.signal}):\n${run.stderr.slice(-2000)}`);
  return readFileSync(path.join(out, "index.js"));
}

it("keeps the gzip-compressed Worker bundle under 1 MiB, a third of the Free plan's 3 MB", { timeout: 150_000 }, () => {
  const bytes = bundle();
  const compressed = gzipSync(bytes).byteLength;
  expect(bytes.byteLength, "the bundle is not empty").toBeGreaterThan(100_000);
  expect(
    compressed,
    `the bundle is ${(compressed / 1024).toFixed(0)} KiB gzipped (${(bytes.byteLength / 1024).toFixed(0)} KiB raw); docs/deploy.md says what to do`,
  ).toBeLessThanOrEqual(GZIP_LIMIT_BYTES);
});
