// skills/list answered by our handler (src/worker/views/mcp/list.ts) in place of the skills
// extension's: every answer must be the SDK handler's byte for byte. Each request below is sent
// with the SDK's handler serving skills/list and with ours, on the same shelf and isolate, and
// the two responses (status, Content-Type, body bytes) compared: pages one to three, scopes,
// pinned and private callers, cursors past the end and before the start, bad cursors and bad
// params, a skill whose advisory changes its verdict, and an entry the SDK refuses.
import { ListSkillsRequestParamsSchema } from "@modelcontextprotocol/core/ext/skills";
import { specTypeSchemas } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { serveSkillsListWithSdk, skillsListAnsweredHere } from "../../../src/worker/views/mcp/list.ts";
import { resetMcpServerPool } from "../../../src/worker/views/mcp/server.ts";
import { MCP_PAGE_SIZE } from "../../../src/worker/views/mcp/source.ts";
import { encodeCursor } from "../../../src/worker/views/mcp/uris.ts";
import { advisoryFor, BLOCKING_ADVISORY, publishFixtureShelf, type FixtureSkill } from "../fixture-shelf.ts";
import { appFetch, BASE, modernRequest } from "./helpers.ts";

const TOKEN = "sk_read_mcp_list_handler_token_0123";
const BULK = 2 * MCP_PAGE_SIZE + 37;

const SKILLS: FixtureSkill[] = [
  {
    name: "nested",
    description: "Nested folders and names that need escaping.",
    files: {
      "SKILL.md":
        "---\nname: nested\ndescription: Nested folders and names that need escaping.\nreviewed: 2024-05-01\nrevision: 2.0\nmetadata:\n  owner: docs\n---\n\n# Nested\n",
      "references/form guide.md": "spaces\n",
      "references/café.md": "accents\n",
      "references/deep/more.md": "# More\n",
      "scripts/run.sh": "#!/bin/sh\n",
    },
  },
  // Valid for the build, refused by the SDK's entry check (metadata must map strings to strings).
  {
    name: "typed-metadata",
    description: "Frontmatter metadata the SDK refuses.",
    files: { "SKILL.md": "---\nname: typed-metadata\ndescription: Frontmatter metadata the SDK refuses.\nmetadata:\n  count: 3\n---\n\nBody.\n" },
  },
  { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
  { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
  ...Array.from({ length: BULK }, (_, i) => ({ name: `bulk-${String(i).padStart(3, "0")}`, description: `Bulk skill number ${i}.` })),
];

let generation: string;

beforeAll(async () => {
  resetStorageMemory();
  resetMcpServerPool();
  // bulk-007: an advisory that does not block, so its entry is re-decided (requires review) per request.
  const published = await publishFixtureShelf(env, SKILLS, {
    advisories: [BLOCKING_ADVISORY, { ...advisoryFor("bulk-007", { advisory_id: "ADV-2026-007" }), severity: "medium" }],
  });
  generation = published.generation;
}, 120_000);

afterEach(() => serveSkillsListWithSdk(false));

interface Sent {
  status: number;
  type: string | null;
  body: string;
}

const privateBindings = async () => ({ ...env, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: await sha256Hex(new TextEncoder().encode(TOKEN)) });

/** One skills/list over the Worker, as raw as a host sends it; `params` replaces the whole params object when it is not a plain cursor. */
async function send(path: string, params: Record<string, unknown>, caller: "public" | "private"): Promise<Sent> {
  const init = modernRequest("skills/list", params, caller === "private" ? { Authorization: `Bearer ${TOKEN}` } : {}, 41);
  const fetch = appFetch(caller === "private" ? await privateBindings() : env);
  const res = await fetch(`${BASE}${path}`, init);
  return { status: res.status, type: res.headers.get("Content-Type"), body: await res.text() };
}

/** The same request answered by the SDK's handler and by ours (twice: the first teaches ours the SDK's verdicts). */
async function both(path: string, params: Record<string, unknown>, caller: "public" | "private" = "public") {
  serveSkillsListWithSdk(true);
  const sdk = await send(path, params, caller);
  serveSkillsListWithSdk(false);
  await send(path, params, caller);
  const before = skillsListAnsweredHere();
  const ours = await send(path, params, caller);
  return { sdk, ours, answeredHere: skillsListAnsweredHere() - before };
}

/** Every page of a listing, following nextCursor from the SDK's answers. */
async function pages(path: string, caller: "public" | "private" = "public"): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [{}];
  for (;;) {
    serveSkillsListWithSdk(true);
    const answer = JSON.parse((await send(path, all.at(-1)!, caller)).body) as { result: { nextCursor?: string } };
    if (answer.result.nextCursor === undefined) return all;
    all.push({ cursor: answer.result.nextCursor });
  }
}

describe("skills/list answered by our handler", () => {
  it("checks params with the very schema the skills extension registers", () => {
    expect(specTypeSchemas.PaginatedRequestParams).toBe(ListSkillsRequestParamsSchema);
  });

  it.each([
    ["the whole shelf", "/mcp", "public", 2],
    ["a pinned generation", "pinned", "public", 2],
    ["a private shelf", "/mcp", "private", 2],
    ["a scope across pages", "/mcp?include=bulk-001,bulk-150,bulk-236,review-me,bulk-007,nested,bad-skill,no-such", "public", 1],
  ] as const)("gives the SDK's bytes on every page: %s", async (_label, where, caller, answeredHere) => {
    const path = where === "pinned" ? `/g/${generation}/mcp` : where;
    const cursors = await pages(path, caller);
    let fast = 0;
    for (const params of cursors) {
      const { sdk, ours, answeredHere } = await both(path, params, caller);
      expect(sdk.status).toBe(200);
      expect(ours, JSON.stringify(params)).toEqual(sdk);
      fast += answeredHere;
    }
    // Three pages of the whole shelf; ours answers each but the last, which holds the entry the
    // SDK refuses (typed-metadata): that page is the SDK's, every time.
    expect(cursors.length).toBe(where.includes("include=") ? 1 : 3);
    expect(fast).toBe(answeredHere);
  });

  it("drops the entry the SDK refuses, as the SDK does", async () => {
    const { sdk } = await both("/mcp?include=typed-metadata,nested", {});
    const names = (JSON.parse(sdk.body) as { result: { skills: { frontmatter: { name: string } }[] } }).result.skills.map((s) => s.frontmatter.name);
    expect(names).toEqual(["nested"]);
  });

  it.each([
    ["a cursor past the end", { cursor: encodeCursor("zzz") }],
    ["a cursor before the start", { cursor: encodeCursor("") }],
    ["a cursor between names", { cursor: encodeCursor("bulk-099x") }],
    ["a cursor not ours", { cursor: "garbage!" }],
    ["an empty cursor", { cursor: "" }],
    ["a truncated cursor", { cursor: "YWZ0ZXI" }],
    ["a cursor of another prefix", { cursor: btoa("before:x") }],
    ["a cursor that is a number", { cursor: 5 }],
    ["a cursor that is null", { cursor: null }],
    ["an unknown param beside the cursor", { cursor: encodeCursor("bulk-050"), extra: [1, 2] }],
  ])("gives the SDK's answer for %s", async (_label, params) => {
    const { sdk, ours } = await both("/mcp", params);
    expect(ours).toEqual(sdk);
  });
});
