// The folder fingerprint the Worker's /api/v1/resolve compares (src/core/api/clawhub.ts) against the
// real `clawhub` 0.23.3 CLI's own (its dist/skills.js, as `clawhub update` computes it): equal for
// every curated skill folder and for paths whose localeCompare order differs from byte order.
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
// The CLI's package has no exports map: its modules are imported by path, as the CLI imports them.
import { buildSkillFingerprint, hashSkillFiles, listSkillFiles } from "../../node_modules/clawhub/dist/skills.js";
import { clawhubFingerprint } from "../../src/core/api/clawhub.ts";
import { LOCALE_ORDER_PATHS, LOCALE_ORDER_FINGERPRINT } from "../core/api/clawhub-paths.ts";

const SHELF = path.resolve(import.meta.dirname, "../../shelf/skills");

describe("the ClawHub folder fingerprint", () => {
  it("equals the CLI's for every curated skill folder", async () => {
    const names = (await readdir(SHELF, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      const cli = hashSkillFiles(await listSkillFiles(path.join(SHELF, name)));
      expect([name, await clawhubFingerprint(cli.files)]).toEqual([name, cli.fingerprint]);
    }
  });

  it("sorts as the CLI sorts (localeCompare, not bytes), and leaves out what it leaves out", async () => {
    const files = LOCALE_ORDER_PATHS.map((p) => ({ path: p, sha256: createHash("sha256").update(p).digest("hex") }));
    const cli = buildSkillFingerprint(files.filter((f) => !f.path.split("/").some((s) => s.startsWith(".") || s === "node_modules")));
    expect(await clawhubFingerprint(files)).toBe(cli);
    // The golden the workerd test checks the Worker's own localeCompare against.
    expect(cli).toBe(LOCALE_ORDER_FINGERPRINT);
    // Byte order would give another fingerprint: the trap /resolve must not fall into.
    const kept = files.filter((f) => !f.path.split("/").some((s) => s.startsWith(".") || s === "node_modules"));
    const bytewise = kept.sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => `${f.path}:${f.sha256}`);
    expect(createHash("sha256").update(bytewise.join("\n")).digest("hex")).not.toBe(cli);
  });
});
