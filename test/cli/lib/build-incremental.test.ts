// The incremental build: after edits, renames, deletions and additions, a build into the earlier
// build folder (reusing its cache, blobs and archives) is byte-identical to a fresh build of the
// same shelf (same generation id, same files); trust-record and signing-key changes change exactly
// the records (or signatures) they should; --verify rebuilds what the cache would have trusted.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run as attest } from "../../../src/cli/commands/attest.ts";
import { BUILD_CACHE_FILE } from "../../../src/cli/lib/build-cache.ts";
import { snapshot } from "./build-snapshot.ts";
import { buildShelf, BuildRefusedError, type BuildShelfOptions, type BuildSummary } from "../../../src/cli/lib/build.ts";
import { signBuilt } from "../../../src/cli/lib/signing.ts";
import { loadSkill, readSkillDir } from "../../../src/cli/lib/skill-dir.ts";
import { StagingError, stageSkillObjects } from "../../../src/cli/lib/skill-objects.ts";
import { buildInventory } from "../../../src/core/skill/inventory.ts";
import { SkillRecordSchema, type SkillRecord } from "../../../src/core/generation/manifest.ts";
import { generateSigningKey } from "../../../src/core/signing/ed25519.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-incremental-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: Does ${name} things. Use when testing builds.\n---\n\n# ${name}\n\nSteps.${extra}\n`;
let counter = 0;

/** A shelf of skills (name → extra files), every file dated an hour ago so the first build caches it. */
function shelf(skills: Record<string, Record<string, string>>): string {
  const dir = path.join(root, `shelf-${++counter}`);
  for (const [name, files] of Object.entries(skills)) {
    for (const [rel, content] of Object.entries({ "SKILL.md": skillMd(name), ...files })) writeSkillFile(dir, name, rel, content);
  }
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  return dir;
}

const HOUR_AGO = new Date(Date.now() - 3600_000);

/** Writes a file of a skill and dates it an hour ago (outside the cache's racy window). */
function writeSkillFile(dir: string, skill: string, rel: string, content: string): void {
  const file = path.join(dir, "skills", skill, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  utimesSync(file, HOUR_AGO, HOUR_AGO);
}

const quiet: BuildShelfOptions = { onWarning: () => {}, onRecordWarning: () => {} };

/** Builds into `out` (incremental when it holds an earlier build) and into a new folder, and checks both agree byte for byte. */
async function buildBoth(src: string, out: string, options: BuildShelfOptions = {}): Promise<BuildSummary> {
  const incremental = await buildShelf(src, out, { ...quiet, ...options });
  const freshDir = path.join(root, `fresh-${++counter}`);
  const fresh = await buildShelf(src, freshDir, { ...quiet, ...options, jobs: 1 });
  expect(incremental.id).toBe(fresh.id);
  expect(snapshot(out)).toEqual(snapshot(freshDir));
  rmSync(freshDir, { recursive: true, force: true });
  return incremental;
}

/** Every record of a build folder by skill name. */
function records(out: string): Map<string, SkillRecord> {
  const byName = new Map<string, SkillRecord>();
  for (const name of readdirSync(path.join(out, "records"))) {
    const record = SkillRecordSchema.parse(JSON.parse(readFileSync(path.join(out, "records", name), "utf8")));
    byName.set(record.name, record);
  }
  return byName;
}

/** The names whose records differ between two record maps (added and removed ones included). */
function changed(before: Map<string, SkillRecord>, after: Map<string, SkillRecord>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => JSON.stringify(before.get(n)) !== JSON.stringify(after.get(n))).sort();
}

describe("skillshelf build, incremental", () => {
  it("is byte-identical to a fresh build after edits, renames, deletions and additions, reading only what changed", async () => {
    const src = shelf({
      alpha: { "references/a.md": "# A\n", "scripts/x.py": "print(1)\n" },
      beta: { "references/b.md": "# B\n" },
      gamma: { "assets/g.txt": "gamma\n" },
    });
    const out = path.join(root, "inc-out");
    const first = await buildBoth(src, out, { jobs: 2 });
    expect([first.reused, first.archived]).toEqual([0, 3]);

    // Unchanged: nothing read, nothing compressed, only the manifest written, the cache left as it was.
    const cacheWritten = statSync(path.join(out, BUILD_CACHE_FILE)).mtimeMs;
    const same = await buildBoth(src, out);
    expect([same.id, same.reused, same.archived, same.written]).toEqual([first.id, 3, 0, 1]);
    expect(statSync(path.join(out, BUILD_CACHE_FILE)).mtimeMs).toBe(cacheWritten);

    // An edit to one file of one skill: that skill is read and archived again, the rest reused.
    writeSkillFile(src, "alpha", "references/a.md", "# A, edited\n");
    const edited = await buildBoth(src, out);
    expect(edited.id).not.toBe(first.id);
    expect([edited.reused, edited.archived]).toEqual([2, 1]);

    // A file renamed inside a skill.
    renameSync(path.join(src, "skills/beta/references/b.md"), path.join(src, "skills/beta/references/renamed.md"));
    const renamedFile = await buildBoth(src, out);
    expect([renamedFile.reused, renamedFile.archived]).toEqual([2, 1]);
    expect(
      records(out)
        .get("beta")!
        .files.map((f) => f.path),
    ).toContain("references/renamed.md");

    // A skill renamed (its folder and its name), one deleted, one added.
    renameSync(path.join(src, "skills/gamma"), path.join(src, "skills/delta"));
    writeSkillFile(src, "delta", "SKILL.md", skillMd("delta"));
    rmSync(path.join(src, "skills/beta"), { recursive: true });
    writeSkillFile(src, "epsilon", "SKILL.md", skillMd("epsilon"));
    const reshaped = await buildBoth(src, out, { jobs: 2 });
    expect([...records(out).keys()].sort()).toEqual(["alpha", "delta", "epsilon"]);
    expect([reshaped.reused, reshaped.archived]).toEqual([1, 2]);

    // A deleted file.
    rmSync(path.join(src, "skills/alpha/scripts/x.py"));
    const deleted = await buildBoth(src, out);
    expect(records(out).get("alpha")!.has_scripts).toBe(false);
    expect([deleted.reused, deleted.archived]).toEqual([2, 1]);

    // An edit that keeps the size and puts the old mtime back is still seen (the inode's ctime moved).
    const file = path.join(src, "skills/delta/assets/g.txt");
    const before = statSync(file);
    writeFileSync(file, "GAMMA\n");
    utimesSync(file, before.atime, before.mtime);
    const sneaky = await buildBoth(src, out);
    expect(sneaky.reused).toBe(2);
    expect(
      readFileSync(
        path.join(
          out,
          "blobs",
          records(out)
            .get("delta")!
            .files.find((f) => f.path === "assets/g.txt")!.sha256,
        ),
        "utf8",
      ),
    ).toBe("GAMMA\n");
  });

  it("changes exactly the re-attested skill's record, and only the advisory's skill on an advisory change", async () => {
    const src = shelf({ alpha: {}, beta: {}, gamma: {} });
    const out = path.join(root, "trust-out");
    await buildBoth(src, out);
    const initial = records(out);

    const io = { stdout: () => {}, stderr: () => {}, interactive: false, env: {} };
    expect(await attest({ ...io, args: [src, "alpha", "--by", "Ada", "--at", "2026-11-30"] })).toBe(0);
    const attested = await buildBoth(src, out);
    expect(attested.reused).toBe(3);
    const afterAttest = records(out);
    expect(changed(initial, afterAttest)).toEqual(["alpha"]);
    expect(afterAttest.get("alpha")!.trust.validations).toHaveLength(1);
    expect(afterAttest.get("alpha")!.trust.verdict.level).not.toBe(initial.get("alpha")!.trust.verdict.level);

    // An advisory for an older version of beta (another tree hash): beta's verdict notes it, no one else's record moves.
    const oldTree = "0".repeat(64);
    writeFileSync(
      path.join(src, "advisories.yaml"),
      `advisories:\n- name: beta\n  source: anywhere\n  official_intent: Helps.\n  hidden_issue: Leaked a token.\n  severity: high\n  reference: https://example.com/beta\n  tree_hash: ${oldTree}\n`,
    );
    const advised = await buildBoth(src, out);
    expect(advised.reused).toBe(3);
    const afterAdvisory = records(out);
    expect(changed(afterAttest, afterAdvisory)).toEqual(["beta"]);
    expect(advised.manifest.shelf.advisories).not.toBeNull();

    // The advisory now names beta's current tree: beta is blocked, the build refused, the folder as it was.
    const tree = afterAdvisory.get("beta")!.tree_hash;
    writeFileSync(path.join(src, "advisories.yaml"), readFileSync(path.join(src, "advisories.yaml"), "utf8").replace(oldTree, tree));
    const held = snapshot(out);
    await expect(buildShelf(src, out, quiet)).rejects.toBeInstanceOf(BuildRefusedError);
    expect(snapshot(out)).toEqual(held);
    expect(readdirSync(root).filter((n) => n.startsWith(".trust-out.tmp"))).toEqual([]);
  });

  it("re-signs with a new key without touching a record", async () => {
    const src = shelf({ alpha: {}, beta: {} });
    const out = path.join(root, "sign-out");
    const sign = (key: Awaited<ReturnType<typeof generateSigningKey>>, keyId: string) => ({
      sign: (documents: Parameters<typeof signBuilt>[0]) => signBuilt(documents, { key, keyFile: "unused", origin: "https://shelf.example", keyId }),
    });
    const a = await buildShelf(src, out, { ...quiet, ...sign(await generateSigningKey(), "key-a") });
    const recordsA = snapshot(out);
    const signaturesA = readFileSync(path.join(out, "signatures.json"), "utf8");
    const b = await buildShelf(src, out, { ...quiet, ...sign(await generateSigningKey(), "key-b") });
    expect(b.id).toBe(a.id);
    const signaturesB = readFileSync(path.join(out, "signatures.json"), "utf8");
    expect(JSON.parse(signaturesB).skills.map((s: { key_id: string }) => s.key_id)).toEqual(["key-b", "key-b"]);
    expect(signaturesB).not.toBe(signaturesA);
    const { "signatures.json": _a, ...restA } = recordsA;
    const { "signatures.json": _b, ...restB } = snapshot(out);
    expect(restB).toEqual(restA);
    // Unsigned again: the signatures go, the generation stays.
    const c = await buildShelf(src, out, quiet);
    expect(c.id).toBe(a.id);
    expect(existsSync(path.join(out, "signatures.json"))).toBe(false);
  });

  it("--verify rewrites an object the incremental build would have trusted, and ignores a damaged cache", async () => {
    const src = shelf({ alpha: { "references/a.md": "# A\n" } });
    const out = path.join(root, "verify-out");
    const built = await buildShelf(src, out, quiet);
    const blob = records(out)
      .get("alpha")!
      .files.find((f) => f.path === "references/a.md")!.sha256;
    writeFileSync(path.join(out, "blobs", blob), "tampered\n");
    // The incremental build trusts what the folder holds...
    await buildShelf(src, out, quiet);
    expect(readFileSync(path.join(out, "blobs", blob), "utf8")).toBe("tampered\n");
    // ...--verify reads, hashes and writes everything again.
    const verified = await buildShelf(src, out, { ...quiet, verify: true });
    expect(verified.id).toBe(built.id);
    expect(verified.reused).toBe(0);
    expect(readFileSync(path.join(out, "blobs", blob), "utf8")).toBe("# A\n");
    // A cache that is not JSON is an empty cache.
    writeFileSync(path.join(out, BUILD_CACHE_FILE), "{not json");
    const recovered = await buildShelf(src, out, quiet);
    expect([recovered.id, recovered.reused]).toEqual([built.id, 0]);
    // So is one that parses but was damaged after it was written (its first line is the digest of the rest).
    const cached = readFileSync(path.join(out, BUILD_CACHE_FILE), "utf8");
    expect(cached).toMatch(/^[0-9a-f]{64}\n\{/);
    expect((await buildShelf(src, out, quiet)).reused).toBe(1);
    writeFileSync(path.join(out, BUILD_CACHE_FILE), cached.replace(/"stats":\[\[/, '"stats":null,"was":[['));
    const damaged = await buildShelf(src, out, quiet);
    expect([damaged.id, damaged.reused]).toEqual([built.id, 0]);
    // A staging folder left by an interrupted build beside the folder is removed by the next build.
    const leftover = path.join(root, ".verify-out.tmp-99999-x");
    mkdirSync(path.join(leftover, "blobs"), { recursive: true });
    await buildShelf(src, out, quiet);
    expect(existsSync(leftover)).toBe(false);
  });

  it("hashes with Node's SHA-256 exactly as core's WebCrypto default does", async () => {
    const src = shelf({ alpha: { "references/a.md": "# A\n", "assets/bin.dat": "\u0000\u00ff binary-ish \u{1F600}" } });
    const dir = path.join(src, "skills", "alpha");
    const loaded = await loadSkill(dir);
    expect(loaded.inventory).toEqual(await buildInventory(await readSkillDir(dir)));
    expect(loaded.inventory!.content_hash).toBe(loaded.inventory!.files.find((f) => f.path === "SKILL.md")!.sha256);
  });

  it("refuses a file that changed between the scan and staging", async () => {
    const staging = mkdtempSync(path.join(root, "staging-"));
    const file = path.join(root, "changed.md");
    writeFileSync(file, "after\n");
    const task = {
      skill: "x",
      files: [{ path: "SKILL.md", abs: file, sha256: "0".repeat(64), size: 6 }],
      writeBlobs: ["0".repeat(64)],
      archive: true,
      plugin: { name: "x", description: "x", version: null, tree_hash: "0".repeat(64) },
      staging,
    };
    await expect(stageSkillObjects(task)).rejects.toBeInstanceOf(StagingError);
    expect(readdirSync(path.join(staging, "blobs"))).toEqual([]);
  });
});
