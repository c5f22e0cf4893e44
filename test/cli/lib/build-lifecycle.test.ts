// lifecycle.yaml in `skillshelf build` and `validate`: read beside the record files, checked
// against the shelf's skills (every problem named, nothing written), and built into the
// generation as a content-addressed blob the manifest names, so the Worker serves what was built.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "../run-in-process.ts";
import { GenerationManifestSchema } from "../../../src/core/generation/manifest.ts";
import { LifecycleSchema } from "../../../src/core/changes/lifecycle.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-lifecycle-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function shelf(name: string, lifecycle: string | null): string {
  const dir = path.join(root, name);
  for (const skill of ["lint-rules", "review-kit"]) {
    mkdirSync(path.join(dir, "skills", skill), { recursive: true });
    writeFileSync(
      path.join(dir, "skills", skill, "SKILL.md"),
      `---\nname: ${skill}\ndescription: Does ${skill} things for the lifecycle tests.\n---\n# ${skill}\n\nSteps.\n`,
    );
  }
  if (lifecycle !== null) writeFileSync(path.join(dir, "lifecycle.yaml"), lifecycle);
  return dir;
}

describe("lifecycle.yaml in the build", () => {
  it("is built into a blob the manifest names, and leaves the skills' trees alone", async () => {
    const plain = await runInProcess(["build", shelf("plain", null), "--out", path.join(root, "plain-out"), "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    const src = shelf("with", "skills:\n  lint-rules: {deprecated: use review-kit, replaced_by: review-kit}\n  old-review: {replaced_by: review-kit}\n");
    const out = path.join(root, "with-out");
    const r = await runInProcess(["build", src, "--out", out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = GenerationManifestSchema.parse(JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")));
    const before = GenerationManifestSchema.parse(JSON.parse(readFileSync(path.join(root, "plain-out", "manifest.json"), "utf8")));
    expect(manifest.shelf.lifecycle).toBeDefined();
    expect(before.shelf.lifecycle).toBeUndefined();
    // The same shards (same trees): only the shelf's metadata differs.
    expect(manifest.shards).toEqual(before.shards);
    const blob = path.join(out, "blobs", manifest.shelf.lifecycle!.sha256);
    expect(existsSync(blob)).toBe(true);
    expect(LifecycleSchema.parse(JSON.parse(readFileSync(blob, "utf8"))).skills).toEqual({
      "lint-rules": { deprecated: "use review-kit", replaced_by: "review-kit" },
      "old-review": { deprecated: null, replaced_by: "review-kit" },
    });
  });

  it("refuses a malformed lifecycle.yaml, naming every entry, and validate reports the same", async () => {
    const src = shelf("bad", "skills:\n  gone: {deprecated: removed}\n  lint-rules: {replaced_by: nowhere}\n");
    const out = path.join(root, "bad-out");
    const r = await runInProcess(["build", src, "--out", out]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(70);
    expect(r.stderr).toContain("lifecycle.yaml: gone: is not a skill on this shelf");
    expect(r.stderr).toContain("lifecycle.yaml: lint-rules: replaced_by names nowhere");
    expect(existsSync(path.join(out, "manifest.json"))).toBe(false);
    const v = await runInProcess(["validate", src]);
    expect(v.code).not.toBe(0);
    expect(v.stdout + v.stderr).toContain("lifecycle.yaml: gone: is not a skill on this shelf");
  });
});
