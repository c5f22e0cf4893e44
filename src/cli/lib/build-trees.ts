// The skill trees a build folder holds (manifest → shards → records → blobs), as snapshots for
// core's tree diff (`audit --since <build-dir>`): what was last built, and so last published.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { TreeSnapshot } from "../../core/generation/diff.ts";
import { auditSkill } from "../../core/audit/scan.ts";
import { UsageError } from "./cli.ts";

const Sha = z.string().regex(/^[0-9a-f]{64}$/);
const ManifestLinks = z.looseObject({ shards: z.array(z.looseObject({ sha256: Sha })) });
const ShardLinks = z.looseObject({ skills: z.array(z.looseObject({ name: z.string(), tree_hash: Sha, record: z.looseObject({ sha256: Sha }) })) });
const RecordFiles = z.looseObject({ files: z.array(z.looseObject({ path: z.string(), sha256: Sha })) });

async function readJson<T>(file: string, schema: z.ZodType<T>, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; --since takes a build folder (skillshelf build --out), a shelf URL, or a generation id with --url`,
    );
  }
  let parsed: z.ZodSafeParseResult<T>;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    throw new UsageError(`${file} is not JSON; --since takes a build folder (skillshelf build --out), a shelf URL, or a generation id with --url`);
  }
  if (!parsed.success) throw new UsageError(`${file} is not a build's ${what}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/**
 * Every skill of the generation a build folder holds, with its files' bytes and the audit's
 * findings for them (computed here, under the current rule set).
 * @example (await readBuildTrees("dist/shelf")).map((t) => t.tree_hash)
 */
export async function readBuildTrees(buildDir: string): Promise<TreeSnapshot[]> {
  const manifest = await readJson(path.join(buildDir, "manifest.json"), ManifestLinks, "manifest");
  const trees: TreeSnapshot[] = [];
  for (const shard of manifest.shards) {
    const links = await readJson(path.join(buildDir, "shards", shard.sha256), ShardLinks, "shard");
    for (const skill of links.skills) {
      const record = await readJson(path.join(buildDir, "records", skill.record.sha256), RecordFiles, "record");
      const files = await Promise.all(
        record.files.map(async (f) => {
          try {
            return { path: f.path, sha256: f.sha256, bytes: new Uint8Array(await readFile(path.join(buildDir, "blobs", f.sha256))) };
          } catch {
            throw new UsageError(
              `${buildDir} lacks the blob of ${skill.name}/${f.path} (${f.sha256}); rebuild it, or point --since at a complete build folder`,
            );
          }
        }),
      );
      trees.push({ name: skill.name, tree_hash: skill.tree_hash, files, findings: auditSkill(files).findings });
    }
  }
  return trees;
}
