// The budget table's subject on a bench shelf (bench/shelf-gen.ts): the skill, files and query
// every route of test/worker/budget/routes.ts is aimed at. Shared by the budget bench and the
// cold-request profiler so both measure the same requests.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { GenerationManifestSchema, ShardSchema, shardOf } from "../../src/core/generation/manifest.ts";
import type { BudgetSubject } from "../../test/worker/budget/routes.ts";
import { benchSkillName } from "../shelf-gen.ts";

/**
 * The subject on a built bench shelf, sending `adminToken` on the admin routes.
 * @example budgetRoutes(benchBudgetSubject(build, token))
 */
export function benchBudgetSubject(build: string, adminToken: string): BudgetSubject {
  const skill = benchSkillName(1);
  return {
    skill,
    reference: "references/guide.md",
    asset: "assets/data.bin",
    script: "scripts/run.py",
    section: skill,
    query: "deploy",
    adminToken,
    pluginArchive: pluginArchivePath(build, skill),
  };
}

/** The marketplace's path to a skill's plugin zip in a build folder's generation (manifest → its shard → the entry). */
function pluginArchivePath(build: string, name: string): string {
  if (!existsSync(path.join(build, "manifest.json"))) throw new Error(`${build} holds no build`);
  const read = (file: string) => JSON.parse(readFileSync(path.join(build, file), "utf8")) as unknown;
  const manifest = GenerationManifestSchema.parse(read("manifest.json"));
  const ref = manifest.shards.find((s) => s.index === shardOf(name, manifest.shard_count));
  const entry = ref && ShardSchema.parse(read(`shards/${ref.sha256}`)).skills.find((e) => e.name === name);
  const plugin = entry?.archives.claude_plugin;
  if (!plugin) throw new Error(`the build in ${build} has no Claude Code plugin zip for ${name}; rebuild it with this checkout`);
  return `/.claude-plugin/plugins/${name}/${plugin.sha256}.zip`;
}
