// The Claude Code plugin zip in `skillshelf build`: made at build time beside the .tar.gz and .zip
// (on worker threads or inline, the same bytes), stored under its SHA-256 and named in the record
// (`archives.claude_plugin`), the shard entry and the shard's blob list; the same skill gives the
// same plugin zip on every build, and plugin.json's version changes whenever the skill's bytes do.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "../run-in-process.ts";
import { pluginManifest, pluginZip } from "../../../src/core/generation/claude-plugin.ts";
import { GenerationManifestSchema, ShardSchema, SkillRecordSchema, type SkillRecord } from "../../../src/core/generation/manifest.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-plugin-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const md = (name: string, version: string, body = "Steps.\n") =>
  `---\nname: ${name}\ndescription: Does ${name} things for the plugin tests.\nversion: "${version}"\n---\n# ${name}\n\n${body}`;

function shelf(name: string): string {
  const dir = path.join(root, name);
  const files: Record<string, string> = {
    "skills/alpha/SKILL.md": md("alpha", "1.2.0"),
    "skills/alpha/references/guide.md": "# Guide\n".repeat(40),
    "skills/alpha/scripts/run.sh": "#!/bin/sh\necho hi\n",
    "skills/beta/SKILL.md": md("beta", "0.1.0"),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

async function build(src: string, out: string, ...flags: string[]): Promise<void> {
  const r = await runInProcess(["build", src, "--out", out, "--json", ...flags]);
  expect(r.code, r.stderr).toBe(0);
}

/** Each skill's record in a build folder's generation, by name (manifest → shards → records). */
function records(out: string): Map<string, SkillRecord> {
  const read = (kind: string, sha256: string) => JSON.parse(readFileSync(path.join(out, kind, sha256), "utf8")) as unknown;
  const manifest = GenerationManifestSchema.parse(JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")));
  const entries = manifest.shards.flatMap((ref) => ShardSchema.parse(read("shards", ref.sha256)).skills);
  return new Map(entries.map((e) => [e.name, SkillRecordSchema.parse(read("records", e.record.sha256))]));
}

const blob = (out: string, sha256: string) => new Uint8Array(readFileSync(path.join(out, "blobs", sha256)));
const pluginJson = (zip: Uint8Array) => JSON.parse(new TextDecoder().decode(unzipSync(zip)[".claude-plugin/plugin.json"])) as { version: string };

describe("the Claude Code plugin zip in the build", () => {
  it("is byte-identical on two builds (worker threads and inline), in the record, the shard entry and its blob list", async () => {
    const src = shelf("same");
    const a = path.join(root, "same-a");
    const b = path.join(root, "same-b");
    await build(src, a, "--jobs", "2");
    await build(src, b, "--jobs", "1");
    const ra = records(a);
    const rb = records(b);
    expect([...ra.keys()].sort()).toEqual(["alpha", "beta"]);
    for (const [name, record] of ra) {
      const plugin = record.archives.claude_plugin;
      expect(plugin, `${name} has a plugin zip`).toBeDefined();
      expect(rb.get(name)!.archives.claude_plugin).toEqual(plugin);
      const bytes = blob(a, plugin!.sha256);
      expect(bytes).toEqual(blob(b, plugin!.sha256));
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(plugin!.sha256);
      expect(bytes.length).toBe(plugin!.size);
      // What the Worker derives for an older generation is the same bytes.
      expect(pluginZip(blob(a, record.archives.zip.sha256), pluginManifest(record))).toEqual(bytes);
      const entries = unzipSync(bytes);
      expect(Object.keys(entries)[0]).toBe(".claude-plugin/plugin.json");
      for (const f of record.files) expect(entries[`skills/${name}/${f.path}`]).toEqual(blob(a, f.sha256));
    }
    const manifest = GenerationManifestSchema.parse(JSON.parse(readFileSync(path.join(a, "manifest.json"), "utf8")));
    for (const ref of manifest.shards) {
      const shard = ShardSchema.parse(JSON.parse(readFileSync(path.join(a, "shards", ref.sha256), "utf8")));
      for (const entry of shard.skills) {
        expect(entry.archives.claude_plugin).toEqual(ra.get(entry.name)!.archives.claude_plugin);
        expect(shard.blobs).toContain(entry.archives.claude_plugin!.sha256);
      }
    }
  });

  it("changes its bytes and plugin.json's version when the skill's bytes change, and keeps the declared version", async () => {
    const src = shelf("edits");
    const out = path.join(root, "edits-out");
    await build(src, out);
    const before = records(out).get("alpha")!;
    const beforeZip = blob(out, before.archives.claude_plugin!.sha256);
    expect(pluginJson(beforeZip).version).toBe(`1.2.0+${before.tree_hash.slice(0, 12)}`);
    const betaBefore = records(out).get("beta")!.archives.claude_plugin;

    // A reference edited, the declared version not: the version's build metadata follows the tree.
    writeFileSync(path.join(src, "skills/alpha/references/guide.md"), "# Guide, edited\n");
    await build(src, out);
    const edited = records(out).get("alpha")!;
    expect(edited.tree_hash).not.toBe(before.tree_hash);
    expect(edited.archives.claude_plugin!.sha256).not.toBe(before.archives.claude_plugin!.sha256);
    const editedVersion = pluginJson(blob(out, edited.archives.claude_plugin!.sha256)).version;
    expect(editedVersion).toBe(`1.2.0+${edited.tree_hash.slice(0, 12)}`);
    expect(editedVersion).not.toBe(pluginJson(beforeZip).version);
    // The untouched skill's plugin zip is reused as it was.
    expect(records(out).get("beta")!.archives.claude_plugin).toEqual(betaBefore);

    // A new declared version.
    writeFileSync(path.join(src, "skills/alpha/SKILL.md"), md("alpha", "1.3.0"));
    await build(src, out);
    expect(pluginJson(blob(out, records(out).get("alpha")!.archives.claude_plugin!.sha256)).version).toMatch(/^1\.3\.0\+[0-9a-f]{12}$/);

    // Back to the first bytes: the first plugin zip again, byte for byte.
    writeFileSync(path.join(src, "skills/alpha/SKILL.md"), md("alpha", "1.2.0"));
    writeFileSync(path.join(src, "skills/alpha/references/guide.md"), "# Guide\n".repeat(40));
    await build(src, out);
    expect(records(out).get("alpha")!.archives.claude_plugin).toEqual(before.archives.claude_plugin);
    expect(blob(out, before.archives.claude_plugin!.sha256)).toEqual(beforeZip);
    // And a copy of the shelf elsewhere builds it too.
    const copy = path.join(root, "edits-copy");
    cpSync(src, copy, { recursive: true });
    await build(copy, path.join(root, "edits-copy-out"));
    expect(records(path.join(root, "edits-copy-out")).get("alpha")!.archives.claude_plugin).toEqual(before.archives.claude_plugin);
  });
});
