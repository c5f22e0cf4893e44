// skillshelf build <shelf-dir> [--out <dir>] [--sign-key <file> --origin <url> --key-id <id>] [--json]:
// check every skill, then write the generation (manifest.json and every object under its SHA-256,
// and with a key signatures.json) atomically to the build folder.
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import type { BuiltGeneration } from "../../core/generation/assemble.ts";
import { signBuilt, signingOptions } from "../lib/signing.ts";
import { BuildRefusedError, buildShelf, checkBuildTarget, writeBuild } from "../lib/build.ts";

const USAGE = "skillshelf build <shelf-dir> [--out <dir>] [--sign-key <file> --origin <url> --key-id <id>] [--json]";
/** Where the build goes when --out is not given (git-ignored). */
export const DEFAULT_BUILD_DIR = "build";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { out: { type: "string" }, json: { type: "boolean" }, "sign-key": { type: "string" }, origin: { type: "string" }, "key-id": { type: "string" } },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one shelf folder\nusage: ${USAGE}`);
  const out = values.out ?? DEFAULT_BUILD_DIR;
  // Refuse a target we must not replace before the (possibly long) build, not after it.
  await checkBuildTarget(out, positionals[0]!);
  const signing = await signingOptions({ signKey: values["sign-key"], origin: values.origin, keyId: values["key-id"] }, ctx.env, {
    shelfDir: positionals[0]!,
    outDir: out,
  });
  let built: BuiltGeneration;
  try {
    built = await buildShelf(positionals[0]!, {
      onWarning: (w) => ctx.stderr(`${w.skill}: warning: ${w.field}: ${w.message}\n`),
      onRecordWarning: (w) => ctx.stderr(`warning: ${w}\n`),
    });
  } catch (error) {
    if (error instanceof BuildRefusedError && values.json) {
      ctx.stdout(`${JSON.stringify({ ok: false, problems: error.problems }, null, 2)}\n`);
      return 1;
    }
    throw error;
  }
  const signatures = signing ? await signBuilt(built, signing) : undefined;
  await writeBuild(built, out, { shelfDir: positionals[0]!, signatures });
  const m = built.manifest;
  const signed = signing ? { origin: signing.origin, key_id: signing.keyId } : null;
  if (values.json) {
    ctx.stdout(
      `${JSON.stringify({ ok: true, generation: built.id, out, skills: m.skill_count, files: m.file_count, bytes: m.total_bytes, objects: built.objects.length, signed }, null, 2)}\n`,
    );
  } else {
    ctx.stdout(
      `built generation ${built.id}\n  ${m.skill_count} skill(s), ${m.file_count} file(s), ${m.total_bytes} bytes, ${built.objects.length} object(s) in ${m.shards.length} shard(s) → ${out}\n${signed ? `  signed by key ${signed.key_id} for origin ${signed.origin}\n` : ""}`,
    );
  }
  return 0;
};
