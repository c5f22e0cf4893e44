// skillshelf build <shelf-dir> [--out <dir>] [--sign-key <file> --origin <url> --key-id <id>] [--verify] [--jobs <n>] [--json]:
// check every skill, then write the generation (manifest.json and every object under its SHA-256,
// and with a key signatures.json) to the build folder. Incremental (src/cli/lib/build.ts): an
// unchanged skill costs a stat of its files; --verify reads and compresses everything again.
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { signBuilt, signingOptions } from "../lib/signing.ts";
import { BuildRefusedError, buildShelf, type BuildProgress, type BuildSummary } from "../lib/build.ts";
import { checkBuildTarget } from "../lib/build-folder.ts";

const USAGE = "skillshelf build <shelf-dir> [--out <dir>] [--sign-key <file> --origin <url> --key-id <id>] [--verify] [--jobs <n>] [--json]";
/** Where the build goes when --out is not given (git-ignored). */
export const DEFAULT_BUILD_DIR = "build";
/** Progress lines start after this long and come at most this often, so quick builds print none. */
const PROGRESS_EVERY_MS = 1000;

/**
 * A progress reporter that stays quiet for the first second, then prints at most once a second.
 * Changed skills are prepared in a staging folder that reaches the build folder only when every
 * skill passes, so the line says "prepared": a refusal later still leaves nothing written.
 */
export function progressLines(write: (line: string) => void, clock: () => number = Date.now): (p: BuildProgress) => void {
  const started = clock();
  let last = started;
  return (p) => {
    const now = clock();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    write(`build: checked ${p.checked}/${p.total} skill(s), prepared ${p.staged}/${p.staging} changed skill(s) (${((now - started) / 1000).toFixed(0)} s)\n`);
  };
}

/** One line on the audit: what it found (by severity) and how many skills it scanned. */
function auditLine(a: BuildSummary["audit"]): string {
  const found = Object.entries(a.counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
  return `  audit (${a.rule_set}): ${found ? `${found} finding(s) in ${a.skills_with_findings} skill(s); details: skillshelf audit <shelf>` : "no findings"}; ${a.scanned} skill(s) scanned, the rest unchanged\n`;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      out: { type: "string" },
      json: { type: "boolean" },
      verify: { type: "boolean" },
      jobs: { type: "string" },
      "sign-key": { type: "string" },
      origin: { type: "string" },
      "key-id": { type: "string" },
    },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one shelf folder\nusage: ${USAGE}`);
  let jobs: number | undefined;
  if (values.jobs !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(values.jobs))
      throw new UsageError(`--jobs must be a whole number from 1 to 999 (1 compresses on the main thread), not ${JSON.stringify(values.jobs)}`);
    jobs = Number(values.jobs);
  }
  const out = values.out ?? DEFAULT_BUILD_DIR;
  // Refuse a target we must not replace before the (possibly long) build, not after it.
  await checkBuildTarget(out, positionals[0]!);
  const signing = await signingOptions({ signKey: values["sign-key"], origin: values.origin, keyId: values["key-id"] }, ctx.env, {
    shelfDir: positionals[0]!,
    outDir: out,
  });
  let built: BuildSummary;
  try {
    built = await buildShelf(positionals[0]!, out, {
      onWarning: (w) => ctx.stderr(`${w.skill}: warning: ${w.field}: ${w.message}\n`),
      onRecordWarning: (w) => ctx.stderr(`warning: ${w}\n`),
      onProgress: values.json ? undefined : progressLines(ctx.stderr),
      verify: values.verify ?? false,
      jobs,
      sign: signing ? (documents) => signBuilt(documents, signing) : undefined,
    });
  } catch (error) {
    if (error instanceof BuildRefusedError && values.json) {
      ctx.stdout(`${JSON.stringify({ ok: false, problems: error.problems }, null, 2)}\n`);
      return 1;
    }
    throw error;
  }
  const m = built.manifest;
  const signed = signing ? { origin: signing.origin, key_id: signing.keyId } : null;
  if (values.json) {
    ctx.stdout(
      `${JSON.stringify(
        {
          ok: true,
          generation: built.id,
          out,
          skills: m.skill_count,
          files: m.file_count,
          bytes: m.total_bytes,
          objects: built.objects,
          reused: built.reused,
          archived: built.archived,
          written: built.written,
          written_bytes: built.writtenBytes,
          audit: built.audit,
          verified: values.verify ?? false,
          signed,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const how = values.verify
      ? "every skill read and compressed again (--verify)"
      : `${built.reused} skill(s) unchanged since the last build, ${built.archived} archived`;
    ctx.stdout(
      `built generation ${built.id}\n  ${m.skill_count} skill(s), ${m.file_count} file(s), ${m.total_bytes} bytes, ${built.objects} object(s) in ${m.shards.length} shard(s) → ${out}\n  ${how}; wrote ${built.written} object(s), ${built.writtenBytes} bytes\n${signed ? `  signed by key ${signed.key_id} for origin ${signed.origin}\n` : ""}${auditLine(built.audit)}`,
    );
  }
  return 0;
};
