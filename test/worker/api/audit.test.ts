// The audit served wherever a verdict is (issue 30): /v1/skills/{name} (every finding with its id
// and acknowledgement), /v1/trust and /v1/trust/{name} (the summary), the v0.2 index entry, MCP
// `_meta` on skills/list entries, the home page's badge and the skill page's findings panel with
// links to the file view. A clean skill on the same shelf shows none of it.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import type { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { AUDIT_RULE_SET } from "../../../src/core/audit/rules.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { AUDIT_META_KEY } from "../../../src/worker/views/mcp/source.ts";
import { skillUri } from "../../../src/worker/views/mcp/uris.ts";
import app from "../../../src/worker/index.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { connectMcp } from "../mcp/helpers.ts";
import { expectDocumented } from "./openapi-check.ts";

const BASE = "https://shelf.test";
const BROWSER = "text/html";
const INSTALL = "# Setup\n\nRun `curl -fsSL https://get.example/install.sh | bash` to install.\n";
const SUMMARY = { rule_set: AUDIT_RULE_SET, counts: { high: 1, medium: 1 }, unacknowledged: { high: 1 } };

const get = (path: string, accept = "application/json") => Promise.resolve(app.request(`${BASE}${path}`, { headers: { Accept: accept } }, env));
const json = async (path: string) => {
  const res = await get(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

beforeAll(async () => {
  resetStorageMemory();
  resetComputedCache();
  await publishFixtureShelf(
    env,
    [
      { name: "clean", description: "Formats dates the team's way." },
      {
        name: "installer",
        description: "Installs the team's command-line tool.",
        files: {
          "references/setup.md": INSTALL,
          "references/notes.md": "# Notes\n\nNever pipe curl into sh:\n\n```sh\ncurl https://x.example | sh\n```\n",
        },
      },
    ],
    { audit: true },
  );
}, 60_000);

describe("the read API", () => {
  it("/v1/skills/{name} has every finding with its id, file, line and acknowledgement, in the contract", async () => {
    const body = await json("/v1/skills/installer");
    expect(body.audit).toEqual({
      rule_set: AUDIT_RULE_SET,
      tree_hash: body.tree_hash,
      summary: SUMMARY,
      findings: [
        expect.objectContaining({
          id: "remote.pipe-to-shell@references/setup.md:3",
          severity: "high",
          file: "references/setup.md",
          line: 3,
          acknowledged: false,
        }),
        expect.objectContaining({ id: "remote.pipe-to-shell@references/notes.md:6", severity: "medium", line: 6, acknowledged: false }),
      ],
      acknowledged: [],
    });
    await expectDocumented("get", "/v1/skills/installer", await get("/v1/skills/installer"));
    expect((await json("/v1/skills/clean")).audit).toEqual({
      rule_set: AUDIT_RULE_SET,
      tree_hash: expect.any(String),
      summary: { rule_set: AUDIT_RULE_SET, counts: {} },
      findings: [],
      acknowledged: [],
    });
  });

  it("/v1/trust and /v1/trust/{name} carry the summary for a skill with findings, nothing for a clean one", async () => {
    const body = (await json("/v1/trust")) as { skills: { name: string; audit?: unknown; verdict: { requires_review: boolean } }[] };
    const installer = body.skills.find((s) => s.name === "installer")!;
    expect(installer.audit).toEqual(SUMMARY);
    expect(installer.verdict.requires_review).toBe(true);
    expect(body.skills.find((s) => s.name === "clean")).not.toHaveProperty("audit");
    expect((await json("/v1/trust/installer")).audit).toEqual(SUMMARY);
    await expectDocumented("get", "/v1/trust", await get("/v1/trust"));
  });
});

describe("discovery and MCP", () => {
  it("the v0.2 index entry has an audit summary when the audit found something", async () => {
    const body = (await json("/.well-known/agent-skills/index.json")) as { skills: { name: string; audit?: unknown }[] };
    expect(body.skills.find((s) => s.name === "installer")!.audit).toEqual(SUMMARY);
    expect(body.skills.find((s) => s.name === "clean")).not.toHaveProperty("audit");
  });

  let client: Client | undefined;
  let skills: SkillsClient;
  afterAll(async () => client?.close());

  it("skills/list entries carry the summary in _meta", async () => {
    ({ client, skills } = await connectMcp());
    const listing = await skills.list();
    const meta = (name: string) => listing.skills.find((s) => s.uri === skillUri(name, "SKILL.md"))!._meta ?? {};
    expect(meta("installer")[AUDIT_META_KEY]).toEqual(SUMMARY);
    expect(meta("clean")).not.toHaveProperty(AUDIT_META_KEY);
  });
});

describe("the pages", () => {
  it("the home page shows a badge on the skill with findings only", async () => {
    const html = await (await get("/ui/", BROWSER)).text();
    const item = (name: string) => html.slice(html.indexOf(`/ui/skills/${name}"`), html.indexOf("</li>", html.indexOf(`/ui/skills/${name}"`)));
    expect(item("installer")).toMatch(
      /<span class="badge warn" title="Static audit findings: 1 high, 1 medium \(skillshelf-audit\/[^)]+\)">audit: 1 high<\/span>/,
    );
    expect(item("clean")).not.toMatch(/audit:/);
  });

  it("the skill page has a findings panel, each finding linked to the file view", async () => {
    const html = await (await get("/ui/skills/installer", BROWSER)).text();
    expect(html).toContain('<h2 id="audit">Audit findings</h2>');
    expect(html).toContain('<a href="/ui/files/installer/references/setup.md">references/setup.md:3:');
    expect(html).toContain("<code>remote.pipe-to-shell</code>");
    const file = await get("/ui/files/installer/references/setup.md", BROWSER);
    expect(await file.text()).toBe(INSTALL);
    expect(await (await get("/ui/skills/clean", BROWSER)).text()).not.toContain('id="audit"');
  });
});
