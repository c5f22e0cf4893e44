// Storage operations of /mcp on a warm isolate, side by side with the routes that answer the same
// questions: a skills/list of 1,000 skills (every page, through the SDK's own client) against
// /v1/skills (every page) and the static and well-known indexes; a resources/read of one file
// against the static layout's and /v1's bytes of it. Binding calls are counted on in-memory R2
// and KV (KV empty: every document falls back to R2, as when KV copies have expired), through
// the whole Worker app (src/worker/index.ts). Also CPU per request (a median of a few calls).
// Run: npm run bench -- --only mcp. Not a test: it only fails when /mcp costs more storage
// operations than the route it is compared with. Quick mode repeats each row fewer times.
import "./workerd-shims.ts";
import app from "../src/worker/index.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { resetComputedCache } from "../src/worker/read/respond.ts";
import { resetSkillMdFacts } from "../src/worker/views/mcp/skill-md.ts";
import { resetStorageMemory } from "../src/worker/storage/index.ts";
import { benchSkill, emptyKv, machineLine, MemoryBucket, publishInMemory } from "./harness.ts";
import { median, ms, QUICK, reportSection, table } from "./report.ts";

const encoder = new TextEncoder();
const SKILLS = 1_000;

const BASE = "https://shelf.test";

const name = (i: number) => `skill-${String(i).padStart(5, "0")}`;
const skillMd = (i: number) =>
  `---\nname: ${name(i)}\ndescription: ${JSON.stringify(`Skill ${i} handles incidents for team ${i % 17}: a description of typical length.`)}\nmetadata:\n  owner: team-${i % 17}\n---\n\n# Skill ${i}\n\nRead references/guide.md.\n`;

/** Calls per binding method ("R2.get", "KV.get", …). */
const calls: Record<string, number> = {};
const count = (key: string) => {
  calls[key] = (calls[key] ?? 0) + 1;
};

async function seedShelf(bucket: MemoryBucket): Promise<void> {
  const inputs = [];
  for (let i = 0; i < SKILLS; i++) {
    const files = [
      { path: "SKILL.md", bytes: encoder.encode(skillMd(i)) },
      { path: "references/guide.md", bytes: encoder.encode(`# Guide ${i}\n\nThe details.\n`) },
    ];
    inputs.push((await benchSkill(name(i), files)).input);
  }
  await publishInMemory(bucket, inputs);
}

const bucket = new MemoryBucket(count);
await seedShelf(bucket);
const bindings = { SHELF_BUCKET: bucket, SHELF_KV: emptyKv(count), SHELF_VISIBILITY: "public" };
const appFetch = async (input: string | URL | Request, init?: RequestInit) => app.request(input instanceof Request ? input : String(input), init, bindings);

async function get(path: string): Promise<void> {
  const res = await appFetch(`${BASE}${path}`);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

/** Every page of /v1/skills at the largest page size. */
async function v1SkillPages(): Promise<void> {
  let cursor: string | undefined;
  do {
    const res = await appFetch(`${BASE}/v1/skills?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (res.status !== 200) throw new Error(`/v1/skills: ${res.status} ${await res.text()}`);
    cursor = ((await res.json()) as { next_cursor?: string | null }).next_cursor ?? undefined;
  } while (cursor);
}

/** Repetitions per row: storage operations are exact, CPU is their median. */
const REPEATS = QUICK ? 3 : 5;

/**
 * Storage operations and CPU of `fn` on a warm isolate (after one run that warms it), or on a
 * cold one (every isolate memory cleared first), each repeated: the operations of every
 * repetition must agree, and the CPU is their median.
 */
async function measure(fn: () => Promise<void>, cold = false): Promise<{ ops: Record<string, number>; total: number; cpuMs: number }> {
  const cpu: number[] = [];
  let ops: Record<string, number> | undefined;
  if (!cold) await fn();
  for (let i = 0; i < REPEATS; i++) {
    if (cold) {
      resetStorageMemory();
      resetSkillMdFacts();
      resetComputedCache();
    }
    for (const key of Object.keys(calls)) delete calls[key];
    const start = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
    if (ops && JSON.stringify(ops) !== JSON.stringify(calls))
      throw new Error(`storage operations differ between repetitions: ${JSON.stringify(ops)}, ${JSON.stringify(calls)}`);
    ops ??= { ...calls };
  }
  return { ops: ops!, total: Object.values(ops!).reduce((a, b) => a + b, 0), cpuMs: median(cpu) };
}

const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: appFetch }));
const skills = new SkillsClient(client);

console.log(`${SKILLS} skills; ${machineLine()}; in-memory R2, empty KV`);

type Measured = Awaited<ReturnType<typeof measure>>;
const rows: string[][] = [];
const verdicts: string[] = [];
let failed = false;
const row = (label: string, m: Measured) => {
  const kinds = Object.entries(m.ops).map(([kind, n]) => `${kind} ${n}`);
  rows.push([label, String(m.total), kinds.length ? kinds.join(", ") : "none", ms(m.cpuMs)]);
  console.log(`${label}: ${m.total} storage ops ${JSON.stringify(m.ops)}, ${ms(m.cpuMs)}`);
};
const compare = (what: string, mcp: { total: number }, others: { total: number }[]) => {
  const least = Math.min(...others.map((o) => o.total));
  const ok = mcp.total <= least;
  if (!ok) failed = true;
  verdicts.push(`${ok ? "ok" : "**MORE**"}: ${what} costs ${mcp.total} storage operations; the cheapest equivalent route ${least}.`);
  console.log(verdicts.at(-1));
};

let listed = 0;
const mcpList = await measure(async () => {
  listed = (await skills.list()).skills.length;
});
if (listed !== SKILLS) throw new Error(`skills/list gave ${listed} skills`);
row(`MCP \`skills/list\`, all ${Math.ceil(SKILLS / 100)} pages (SDK \`SkillsClient\`)`, mcpList);
const v1List = await measure(v1SkillPages);
row("GET `/v1/skills?limit=200`, all pages", v1List);
row("GET `/skills/index.json` (names only)", await measure(() => get("/skills/index.json")));
row("GET `/.well-known/agent-skills/index.json`", await measure(() => get("/.well-known/agent-skills/index.json")));
compare("a warm `skills/list`", mcpList, [v1List]);
row(
  "cold isolate, for contrast: MCP `skills/list`, all pages (each page reads the shards it spans; KV empty, so from R2)",
  await measure(async () => void (await skills.list()), true),
);
row("cold isolate, for contrast: GET `/v1/skills?limit=200`, all pages", await measure(v1SkillPages, true));

const target = name(421);
const { skill } = await skills.get(`skill://${target}/SKILL.md`);
const mcpRead = await measure(async () => {
  // bypass: the client's own response cache would answer a warm read without asking the server.
  const file = await skills.read(skill, `skill://${target}/references/guide.md`, { cacheMode: "bypass" });
  if (!file.verified) throw new Error("unverified read");
});
row("MCP `resources/read` of references/guide.md (verified by `SkillsClient`)", mcpRead);
const staticRead = await measure(() => get(`/skills/${target}/references/guide.md`));
row("GET `/skills/<name>/references/guide.md`", staticRead);
const v1Read = await measure(() => get(`/v1/skills/${target}/resources/references/guide.md`));
row("GET `/v1/skills/<name>/resources/references/guide.md`", v1Read);
compare("a warm `resources/read`", mcpRead, [staticRead, v1Read]);

const mcpSkillMd = await measure(async () => {
  await skills.read(skill, undefined, { cacheMode: "bypass" });
});
row("MCP `resources/read` of SKILL.md", mcpSkillMd);
const staticSkillMd = await measure(() => get(`/skills/${target}/SKILL.md`));
row("GET `/skills/<name>/SKILL.md`", staticSkillMd);
compare("a warm SKILL.md read", mcpSkillMd, [staticSkillMd]);

await client.close();
reportSection(
  "mcp",
  [
    `${SKILLS.toLocaleString("en-US")} skills; warm isolate unless the row says cold; storage calls counted on in-memory R2 and an empty KV (every document falls back to R2); CPU (process) the median of ${REPEATS} calls; ${machineLine()}.`,
    "",
    table(["Request", "Storage ops", "By binding", "CPU"], rows),
    "",
    ...verdicts.map((v) => `- ${v}`),
  ].join("\n"),
);
if (failed) {
  console.error("mcp bench: /mcp cost more storage operations than an equivalent route");
  process.exit(1);
}
