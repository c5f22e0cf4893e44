// The MCP skills extension (SEP-2640) at /mcp, driven by the official SDK's SkillsClient on both
// protocol eras: skills/list (every page), skills/get (listed, review-required, unknown, blocked),
// every file read and verified (digest, size, and for SKILL.md the frontmatter the client parses),
// text versus blob, directory walks, and -32602 for unknown skills, files, directories and cursors.
import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import { DIRECTORY_MIME_TYPE, type Skill, type SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { shardCountFor, shardOf } from "../../../src/core/generation/manifest.ts";
import { MCP_PAGE_SIZE, TRUST_META_KEY } from "../../../src/worker/views/mcp/source.ts";
import { CURRENT_TTL_MS } from "../../../src/worker/views/mcp/server.ts";
import { skillUri } from "../../../src/worker/views/mcp/uris.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, type FixtureSkill, type PublishedFixture } from "../fixture-shelf.ts";
import { connectMcp, ERAS } from "./helpers.ts";

/** A result schema for client.request on the extension's methods (not spec methods, so the SDK needs one). */
const AnyResult = z.looseObject({});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00, 0x80]);
const BULK = MCP_PAGE_SIZE + 30;

const SKILLS: FixtureSkill[] = [
  {
    name: "nested",
    description: "A skill with nested folders, a binary asset, a BOM file and names that need escaping.",
    files: {
      "SKILL.md":
        "---\nname: nested\ndescription: A skill with nested folders, a binary asset, a BOM file and names that need escaping.\nreviewed: 2024-05-01\nrevision: 2.0\nmetadata:\n  owner: docs\n---\n\n# Nested\n\nRead references/guide.md.\n",
      "references/guide.md": "# Guide\n\nRead me.\n",
      "references/deep/more.md": "# More\n",
      "references/deep/deeper/most.md": "# Most\n",
      "references/form guide.md": "spaces\n",
      "references/café.md": "accents\n",
      "references/bom.md": "\ufeffStarts with a BOM.\n",
      "assets/logo.png": PNG,
      "scripts/run.sh": "#!/bin/sh\necho hi\n",
    },
  },
  { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
  { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
  ...Array.from({ length: BULK }, (_, i) => ({ name: `bulk-${String(i).padStart(3, "0")}`, description: `Bulk skill number ${i}.` })),
];

let shelf: PublishedFixture;
/**
 * The served skills in shelf order, as skills/list pages them (docs/mcp.md): by shard (the
 * build's shardOf over the generation's shard count), then by name within a shard.
 */
const served = () => {
  const shards = shardCountFor(shelf.entries.size);
  const byShelfOrder = (a: string, b: string) => shardOf(a, shards) - shardOf(b, shards) || (a < b ? -1 : a > b ? 1 : 0);
  return [...shelf.entries.keys()].filter((n) => n !== "bad-skill").sort(byShelfOrder);
};

beforeAll(async () => {
  resetStorageMemory();
  shelf = await publishFixtureShelf(env, SKILLS, { advisories: [BLOCKING_ADVISORY] });
}, 60_000);

/** The -32602 a promise rejects with; fails when it resolves or rejects otherwise. */
async function invalidParams(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(-32602);
  return error as ProtocolError;
}

describe.each(ERAS)("skills extension, %s era", (era) => {
  let client: Client;
  let skills: SkillsClient;
  beforeAll(async () => {
    ({ client, skills } = await connectMcp({ era }));
  });
  afterAll(() => client.close());

  it("declares the extension with directoryRead, and resources", () => {
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
  });

  it("lists every served skill across pages (blocked one absent), with the era's cache fields", async () => {
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri)).toEqual(served().map((n) => skillUri(n, "SKILL.md")));
    if (era === "modern") {
      expect(listing.ttlMs).toBe(CURRENT_TTL_MS);
      expect(listing.cacheScope).toBe("public");
    } else {
      expect(listing.ttlMs).toBeUndefined();
      expect(listing.cacheScope).toBeUndefined();
    }
  });

  it("pages by cursor: full pages of MCP_PAGE_SIZE, then the rest, no overlap", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request({ method: "skills/list", params: cursor === undefined ? {} : { cursor } }, AnyResult);
      const result = page as unknown as { skills: Skill[]; nextCursor?: string };
      pages.push(result.skills.map((s) => s.uri));
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    expect(pages.length).toBe(Math.ceil(served().length / MCP_PAGE_SIZE));
    expect(pages.slice(0, -1).every((p) => p.length === MCP_PAGE_SIZE)).toBe(true);
    expect(pages.flat()).toEqual(served().map((n) => skillUri(n, "SKILL.md")));
  });

  it("refuses a cursor it did not issue with -32602", async () => {
    for (const cursor of ["garbage!", "", "YWZ0ZXI", btoa("before:x")]) {
      await invalidParams(client.request({ method: "skills/list", params: { cursor } }, AnyResult));
    }
  });

  it("lists each skill's complete files with the build's digests and sizes", async () => {
    const { skills: entries } = await skills.list();
    for (const entry of entries) {
      const name = entry.frontmatter.name;
      const record = shelf.records.get(name)!;
      const expected = record.files
        .map((f) => ({ uri: skillUri(name, f.path), digest: `sha256:${f.sha256}`, size: f.size }))
        .sort((a, b) => (a.uri < b.uri ? -1 : 1));
      expect(entry.resources, name).toEqual(expected);
      for (const r of expected) expect(new URL(r.uri).href, r.uri).toBe(r.uri);
    }
  });

  it("gives the frontmatter as the SDK reads SKILL.md (YAML 1.2), not the build's YAML 1.1 reading", async () => {
    const { skill } = await skills.get(skillUri("nested", "SKILL.md"));
    expect(skill.frontmatter).toEqual({
      name: "nested",
      description: "A skill with nested folders, a binary asset, a BOM file and names that need escaping.",
      reviewed: "2024-05-01",
      revision: 2,
      metadata: { owner: "docs" },
    });
    expect(shelf.records.get("nested")!.frontmatter.reviewed).toBe("2024-05-01T00:00:00.000Z");
    // SkillsClient checks the entry's frontmatter against its own parse of the bytes.
    const main = await skills.read(skill);
    expect(main.verified).toBe(true);
    expect(main.frontmatter).toEqual(skill.frontmatter);
  });

  it("says which skills need review under dev.skillshelf/trust", async () => {
    const { skill } = await skills.get(skillUri("review-me", "SKILL.md"));
    expect(skill._meta?.[TRUST_META_KEY]).toEqual({ level: "unverified", requires_review: true });
    const { skill: other } = await skills.get(skillUri("nested", "SKILL.md"));
    expect(other._meta?.[TRUST_META_KEY]).toEqual({ level: "first_party", requires_review: false });
  });

  it("reads every file of every non-bulk skill, verified by SkillsClient, byte for byte", async () => {
    for (const name of ["nested", "review-me"]) {
      const { skill } = await skills.get(skillUri(name, "SKILL.md"));
      const resources = skill.resources === "dynamic" ? [] : skill.resources;
      expect(resources.length).toBe(shelf.files.get(name)!.size);
      for (const resource of resources) {
        const file = await skills.read(skill, resource.uri);
        const path = shelf.records.get(name)!.files.find((f) => skillUri(name, f.path) === resource.uri)!.path;
        expect(file.verified, resource.uri).toBe(true);
        expect(file.bytes, resource.uri).toEqual(shelf.files.get(name)!.get(path));
      }
    }
  });

  it("sends text for lossless UTF-8 (a BOM kept) and a base64 blob otherwise, with the recorded media type", async () => {
    const read = (uri: string) => client.readResource({ uri });
    const png = (await read(skillUri("nested", "assets/logo.png"))).contents[0]!;
    expect(png).toEqual({ uri: skillUri("nested", "assets/logo.png"), mimeType: "image/png", blob: btoa(String.fromCharCode(...PNG)) });
    const bom = (await read(skillUri("nested", "references/bom.md"))).contents[0]!;
    expect(bom).toMatchObject({ mimeType: "text/markdown", text: "\ufeffStarts with a BOM.\n" });
    const escaped = (await read("skill://nested/references/form%20guide.md")).contents[0]!;
    expect(escaped).toMatchObject({ text: "spaces\n" });
    const accented = (await read(skillUri("nested", "references/café.md"))).contents[0]!;
    expect(accented).toMatchObject({ uri: "skill://nested/references/caf%C3%A9.md", text: "accents\n" });
  });

  it("answers -32602 for unknown skills and files, folders read as files, and blocked skills with the advisory", async () => {
    await invalidParams(skills.get("skill://nope/SKILL.md"));
    await invalidParams(skills.get("skill://nested/references/guide.md"));
    await invalidParams(client.readResource({ uri: "skill://nested/references/missing.md" }));
    await invalidParams(client.readResource({ uri: "skill://nope/SKILL.md" }));
    await invalidParams(client.readResource({ uri: "skill://nested/references/../SKILL.md?x=1" }));
    const folder = await invalidParams(client.readResource({ uri: "skill://nested/references/deep" }));
    expect(folder.message).toContain("is a directory; use resources/directory/read");
    const blocked = await invalidParams(skills.get("skill://bad-skill/SKILL.md"));
    expect(blocked.message).toContain("blocked by advisory ADV-2026-001");
    expect((blocked.data as { blocked: { advisory: { advisory_id: string } } }).blocked.advisory.advisory_id).toBe("ADV-2026-001");
    await invalidParams(client.readResource({ uri: "skill://bad-skill/references/y.md" }));
  });

  it("walks a skill's folders with resources/directory/read and finds exactly its files", async () => {
    const found: string[] = [];
    const walk = async (uri: string): Promise<void> => {
      const { resources } = await skills.readDirectory(uri);
      expect(resources.map((r) => r.uri)).toEqual([...resources.map((r) => r.uri)].sort());
      for (const child of resources) {
        if (child.mimeType === DIRECTORY_MIME_TYPE) {
          expect(child.size).toBeUndefined();
          await walk(child.uri);
        } else {
          found.push(child.uri);
        }
      }
    };
    await walk("skill://nested");
    const { skill } = await skills.get(skillUri("nested", "SKILL.md"));
    expect(found.sort()).toEqual((skill.resources as { uri: string }[]).map((r) => r.uri).sort());
    const top = await skills.readDirectory("skill://nested/");
    expect(top.resources.map((r) => r.name)).toEqual(["SKILL.md", "assets", "references", "scripts"]);
    expect(top.resources.find((r) => r.name === "SKILL.md")).toEqual({
      uri: "skill://nested/SKILL.md",
      name: "SKILL.md",
      mimeType: "text/markdown",
      size: shelf.entries.get("nested")!.skill_md.size,
    });
  });

  it("answers -32602 for directory reads of files, unknown folders, unknown or blocked skills and bad cursors", async () => {
    for (const uri of ["skill://nested/references/guide.md", "skill://nested/nothing", "skill://nope", "skill://bad-skill"]) {
      await invalidParams(skills.readDirectory(uri));
    }
    await invalidParams(client.request({ method: "resources/directory/read", params: { uri: "skill://nested", cursor: "nope" } }, AnyResult));
  });
});
