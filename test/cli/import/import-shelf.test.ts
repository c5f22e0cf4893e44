// import against a running shelf (a real Worker, started as `npm start` starts it): a shelf that
// imported a skill publishes its provenance on /v1/skills/{name}, the skill's page and MCP _meta,
// and another team imports from that shelf's well-known index, every digest checked against the
// bytes the Worker serves.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startShelfOnFreePort, type RunningShelf } from "../../../scripts/start.ts";
import { parseProvenance } from "../../../src/core/import/provenance.ts";
// The MCP view's key (src/worker/views/mcp/source.ts), written out: node tests do not compile Worker modules.
const PROVENANCE_META_KEY = "dev.skillshelf/provenance";

import { cli } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-import-shelf-"));
const shelfDir = path.join(root, "shelf");
const vendor = path.join(root, "vendor");
let shelf: RunningShelf | undefined;

const SKILL_MD =
  '---\nname: vendored-notes\ndescription: Takes meeting notes. Use when a meeting needs minutes.\nversion: "3.1.0"\n---\n\n# Notes\n\nWrite the minutes.\n';

beforeAll(async () => {
  cpSync("shelf", shelfDir, { recursive: true });
  mkdirSync(path.join(vendor, "vendored-notes"), { recursive: true });
  writeFileSync(path.join(vendor, "vendored-notes/SKILL.md"), SKILL_MD);
  writeFileSync(path.join(shelfDir, "skillshelf.yaml"), `sources:\n  - ${pathToFileURL(vendor).href}\n`);
  const imported = await cli("import", vendor, "--to", shelfDir);
  if (imported.code !== 0) throw new Error(imported.stderr);
  shelf = await startShelfOnFreePort({ shelfDir, persistTo: path.join(root, "state"), buildDir: path.join(root, "build") });
}, 180_000);

afterAll(async () => {
  await shelf?.stop();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("provenance on a running shelf", () => {
  it("is on /v1/skills/{name} for an imported skill, and absent for the team's own", async () => {
    const detail = (await (await fetch(`${shelf!.url}/v1/skills/vendored-notes`)).json()) as Record<string, unknown>;
    expect(detail.provenance).toMatchObject({ kind: "folder", source: pathToFileURL(vendor).href, path: "vendored-notes", version: "3.1.0", modified: false });
    expect((detail.trust as { requires_review: boolean }).requires_review).toBe(true);
    const own = (await (await fetch(`${shelf!.url}/v1/skills/code-review`)).json()) as Record<string, unknown>;
    expect(own).not.toHaveProperty("provenance");
  });

  it("is on the skill's page", async () => {
    const html = await (await fetch(`${shelf!.url}/ui/skills/vendored-notes`)).text();
    expect(html).toMatch(/<h2 id="provenance">Provenance<\/h2>/);
    expect(html).toContain(pathToFileURL(vendor).href);
    expect(html).toMatch(/no: the files are as imported/);
  });

  it("is in the MCP skill entry's _meta", async () => {
    const client = new Client({ name: "import-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${shelf!.url}/mcp`)));
    try {
      const { skill } = await new SkillsClient(client).get("skill://vendored-notes/SKILL.md");
      expect(skill._meta?.[PROVENANCE_META_KEY]).toMatchObject({ kind: "folder", version: "3.1.0", modified: false });
    } finally {
      await client.close();
    }
  });
});

describe("import from a running shelf's well-known index", () => {
  it("imports with the served digests checked, and records them", async () => {
    const team = path.join(root, "team");
    mkdirSync(path.join(team, "skills"), { recursive: true });
    writeFileSync(path.join(team, "skillshelf.yaml"), `sources:\n  - ${shelf!.url}\n`);
    const r = await cli("import", shelf!.url, "--skill", "code-review", "--skill", "release-checklist", "--to", team);
    expect(r.code, r.stderr).toBe(0);
    const index = (await (await fetch(`${shelf!.url}/.well-known/agent-skills/index.json`)).json()) as { skills: { name: string; digest: string }[] };
    const provenance = parseProvenance(readFileSync(path.join(team, "provenance.yaml"), "utf8"));
    for (const name of ["code-review", "release-checklist"]) {
      expect(provenance.get(name)).toMatchObject({ kind: "well-known", source: shelf!.url, digest: index.skills.find((s) => s.name === name)!.digest });
      // The files are the shelf's, byte for byte.
      expect(readFileSync(path.join(team, "skills", name, "SKILL.md"), "utf8")).toBe(readFileSync(path.join(shelfDir, "skills", name, "SKILL.md"), "utf8"));
    }
    expect((await cli("hash", path.join(team, "skills/release-checklist"))).stdout.trim()).toBe(
      (await cli("hash", path.join(shelfDir, "skills/release-checklist"))).stdout.trim(),
    );
    // Nothing newer on the shelf: --update says so.
    const update = await cli("import", "--update", "--to", team);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toMatch(/code-review: up to date/);
  });
});

describe("import from a ClawHub registry served by the Worker", () => {
  it("imports a version with its files checked against the registry's list and its fingerprint resolved", async () => {
    const team = path.join(root, "team-clawhub");
    mkdirSync(path.join(team, "skills"), { recursive: true });
    writeFileSync(path.join(team, "skillshelf.yaml"), `sources:\n  - clawhub:${shelf!.url}\n`);
    const r = await cli("import", "clawhub:release-checklist", "--registry", shelf!.url, "--to", team);
    expect(r.code, r.stderr).toBe(0);
    const entry = parseProvenance(readFileSync(path.join(team, "provenance.yaml"), "utf8")).get("release-checklist")!;
    const latest = (await (await fetch(`${shelf!.url}/api/v1/skills/release-checklist`)).json()) as { latestVersion: { version: string } };
    expect(entry).toMatchObject({
      kind: "clawhub",
      source: `clawhub:${shelf!.url}/release-checklist`,
      path: "release-checklist",
      ref: null,
      version: latest.latestVersion.version,
    });
    expect(entry.digest).toMatch(/^fingerprint:[0-9a-f]{64}$/);
    expect((await cli("hash", path.join(team, "skills/release-checklist"))).stdout.trim()).toBe(
      (await cli("hash", path.join(shelfDir, "skills/release-checklist"))).stdout.trim(),
    );
    // Another registry's slug is not allowed by this entry; a version the registry lacks is refused.
    expect((await cli("import", "clawhub:code-review", "--registry", "http://127.0.0.1:9", "--to", team)).stderr).toMatch(/not an allowed source/);
    const missing = await cli("import", "clawhub:code-review@9.9.9", "--registry", shelf!.url, "--to", team);
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const update = await cli("import", "--update", "release-checklist", "--to", team);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toMatch(/release-checklist: up to date/);
  });
});
