// Listings from shard entries (SkillEntry `listing`): the SKILL.md head stands in for the file when
// the MCP SDK reads frontmatter (checked against the SDK's own reading of the whole file, tricky
// files included), and a generation whose entries lack `listing` (built before it) gives the same
// MCP skills/list and /v1/trust answers by reading the records, at more storage reads.
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalDocument } from "../../../src/core/generation/canonical-json.ts";
import type { GenerationManifest, Shard } from "../../../src/core/generation/manifest.ts";
import { frontmatterHead } from "../../../src/core/skill/skill-md.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetBodyCache } from "../../../src/worker/shelf/service.ts";
import { R2_POINTER_KEY, r2Key } from "../../../src/worker/storage/keys.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { resetSkillMdFacts } from "../../../src/worker/views/mcp/skill-md.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, type FixtureSkill } from "../fixture-shelf.ts";
import { appFetch, BASE, connectMcp } from "./helpers.ts";

const SDK_CASES: Record<string, string> = {
  plain: "---\nname: x\ndescription: d\n---\n\n# Body\n",
  crlf: "---\r\nname: x\r\ndescription: d\r\nmetadata:\r\n  owner: a\r\n---\r\nbody\r\n",
  "a --- inside a value": "---\nname: x\ndescription: |\n  a\n  ---x\n---\nbody\n",
  "yaml 1.2 typing": "---\nname: x\ndescription: d\nrevision: 2.0\nreviewed: 2024-05-01\nflag: yes\noctal: 010\n---\nbody\n",
  "no body": "---\nname: x\ndescription: d\n---",
  "a bom": "\ufeff---\nname: x\ndescription: d\n---\nbody\n",
};

async function sdkReading(name: string, text: string): Promise<unknown> {
  try {
    return (await skillEntry(name, { "SKILL.md": text })).frontmatter;
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

describe("frontmatterHead", () => {
  it.each(Object.entries(SDK_CASES))("gives the MCP SDK the same frontmatter as the whole file: %s", async (_label, text) => {
    const head = frontmatterHead(text);
    expect(head).toBeDefined();
    expect(text.startsWith(head!)).toBe(true);
    expect(await sdkReading("x", head!)).toEqual(await sdkReading("x", text));
  });

  it("cuts only at a closing line that is exactly ---, and never past a lone CR", () => {
    expect(frontmatterHead("---\nname: x\n---\nbody\n---\n")).toBe("---\nname: x\n---\n");
    expect(frontmatterHead("---\nname: x\n---  \nbody\n")).toBeUndefined();
    expect(frontmatterHead("---\nname: x\rdescription: d\n---\nbody\n")).toBeUndefined();
    expect(frontmatterHead("---\nname: x\n")).toBeUndefined();
    expect(frontmatterHead("no frontmatter")).toBeUndefined();
  });
});

const SKILLS: FixtureSkill[] = [
  {
    name: "typed",
    description: "Frontmatter the two YAML readings type differently.",
    files: {
      "SKILL.md": "---\nname: typed\ndescription: Frontmatter the two YAML readings type differently.\nrevision: 2.0\nreviewed: 2024-05-01\n---\n\n# Typed\n",
      "references/guide.md": "# Guide\n",
    },
  },
  { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "scripts/run.sh": "#!/bin/sh\n" } },
  ...Array.from({ length: 6 }, (_, i) => ({ name: `plain-${i}`, description: `Plain skill ${i}.` })),
];

/** Rewrites the published generation as a build before `listing` wrote it: shards without it, a new manifest and pointer. */
async function stripListings(bucket: R2Bucket, generation: string): Promise<string> {
  const manifest = (await (await bucket.get(r2Key("generation", generation)))!.json()) as GenerationManifest;
  for (const ref of manifest.shards) {
    const shard = (await (await bucket.get(r2Key("shard", ref.sha256)))!.json()) as Shard;
    for (const entry of shard.skills) delete entry.listing;
    const doc = await canonicalDocument(shard);
    await bucket.put(r2Key("shard", doc.sha256), doc.bytes);
    Object.assign(ref, { sha256: doc.sha256, size: doc.size });
  }
  const doc = await canonicalDocument(manifest);
  await bucket.put(r2Key("generation", doc.sha256), doc.bytes);
  const pointer = (await (await bucket.get(R2_POINTER_KEY))!.json()) as { generation: string; history: { generation: string }[] };
  pointer.generation = doc.sha256;
  pointer.history[0]!.generation = doc.sha256;
  await bucket.put(R2_POINTER_KEY, JSON.stringify(pointer));
  return doc.sha256;
}

/** Storage reads (R2 and KV gets) of `fn` on a cold isolate, and what it answered. */
async function coldReads<T>(fn: (bindings: object) => Promise<T>): Promise<{ reads: number; answer: T }> {
  let reads = 0;
  const counted = <B extends object>(target: B, method: string): B =>
    new Proxy(target, {
      get(obj, prop) {
        const value = Reflect.get(obj, prop);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (prop === method) reads++;
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  const bindings = { ...env, SHELF_BUCKET: counted(env.SHELF_BUCKET, "get"), SHELF_KV: counted(env.SHELF_KV, "get") };
  resetStorageMemory();
  resetSkillMdFacts();
  resetBodyCache();
  resetComputedCache();
  const answer = await fn(bindings);
  return { reads, answer };
}

async function mcpListing(bindings: object): Promise<unknown> {
  const { client, skills } = await connectMcp({ bindings });
  try {
    return (await skills.list()).skills;
  } finally {
    await client.close();
  }
}

async function trustListing(bindings: object): Promise<unknown> {
  const res = await appFetch(bindings)(`${BASE}/v1/trust`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { generation: string };
  return { ...body, generation: "(differs)" };
}

describe("listings over entries with and without `listing`", () => {
  beforeEach(() => resetStorageMemory());

  it("answer MCP skills/list and /v1/trust the same, the older generation by reading each record", async () => {
    const published = await publishFixtureShelf(env, SKILLS);
    expect(published.entries.get("typed")!.listing?.skill_md_head).toMatch(/^---\nname: typed\n[\s\S]*\n---\n$/);
    const fromEntries = { mcp: await coldReads(mcpListing), trust: await coldReads(trustListing) };
    await stripListings(env.SHELF_BUCKET, published.generation);
    const fromRecords = { mcp: await coldReads(mcpListing), trust: await coldReads(trustListing) };

    expect(fromRecords.mcp.answer).toEqual(fromEntries.mcp.answer);
    expect(fromRecords.trust.answer).toEqual(fromEntries.trust.answer);
    // The SDK's YAML 1.2 reading, not the build's: 2.0 is a number, the date a string.
    const typed = (fromEntries.mcp.answer as { uri: string; frontmatter: Record<string, unknown> }[]).find((s) => s.uri === "skill://typed/SKILL.md")!;
    expect(typed.frontmatter).toMatchObject({ revision: 2, reviewed: "2024-05-01" });
    // From entries: no read per skill; from records: at least one per skill.
    expect(fromEntries.mcp.reads).toBeLessThan(8);
    expect(fromEntries.trust.reads).toBeLessThan(8);
    expect(fromRecords.mcp.reads).toBeGreaterThanOrEqual(fromEntries.mcp.reads + SKILLS.length);
    expect(fromRecords.trust.reads).toBeGreaterThanOrEqual(fromEntries.trust.reads + SKILLS.length);
  }, 60_000);
});

describe("an /mcp request on a shelf of many shards with an advisory in force", () => {
  it("opens no shard to rule out the fast path (the manifest's count says more than one skill is served)", async () => {
    const many: FixtureSkill[] = [
      { name: "bad-skill", description: "Blocked after the build." },
      ...Array.from({ length: 70 }, (_, i) => ({ name: `many-${i}`, description: `Skill ${i}.` })),
    ];
    await publishFixtureShelf(env, many, { advisories: [BLOCKING_ADVISORY] });
    const { reads, answer } = await coldReads(async (bindings) => {
      const { client } = await connectMcp({ bindings });
      try {
        return (await client.listTools()).tools.length;
      } finally {
        await client.close();
      }
    });
    expect(answer).toBeGreaterThan(1);
    // The pointer, the advisories and the manifest (a KV look-up and an R2 read); before, the
    // shelf's two shards too (a KV bulk get and an R2 read each).
    expect(reads).toBeLessThanOrEqual(4);
  }, 60_000);
});
