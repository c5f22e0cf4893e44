// A recorded request/response sweep over every read and admin route: status, every header and
// the SHA-256 of the body, for a fixed fixture shelf at a fixed clock. Restructuring the Worker
// must leave this file identical (`route-sweep.json`); a deliberate behaviour change updates it
// with `npx vitest run test/worker/sweep -u` and says why in its commit.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, adminRequest, buildGeneration, skillInput, TOKEN, workerFetch } from "../admin/helpers.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf } from "../fixture-shelf.ts";

const BASE = "https://shelf.test";
const READ_TOKEN = "sk_sweep_read_token_0123456789abcdef";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

interface Recorded {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: { bytes: number; sha256: string; text?: string };
}

async function record(label: string, response: Response): Promise<Recorded> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of [...response.headers.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) headers[k] = v;
  const type = response.headers.get("content-type") ?? "";
  const small = bytes.length <= 600 && /json|text/.test(type);
  return {
    request: label,
    status: response.status,
    headers,
    body: { bytes: bytes.length, sha256: await sha256Hex(bytes), ...(small ? { text: new TextDecoder().decode(bytes) } : {}) },
  };
}

let generation = "";
const FAKE_NOW = new Date("2026-11-30T12:00:00.000Z");

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(FAKE_NOW);
  resetStorageMemory();
  const shelf = await publishFixtureShelf(
    env,
    [
      { name: "solo", description: "A skill that is only a SKILL.md." },
      {
        name: "nested",
        description: "A skill with nested resources, a binary asset and a script.",
        files: {
          "references/guide.md": "# Guide\n\nRead me.\n",
          "references/deep/more.md": "# More\n",
          "assets/logo.png": PNG,
          "assets/page.html": "<script>alert(1)</script>\n",
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
        },
      },
      { name: "review-me", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
      { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
    ],
    { advisories: [BLOCKING_ADVISORY] },
  );
  generation = shelf.generation;
});

afterAll(() => {
  vi.useRealTimers();
});

/** The read requests, each as [label, path, init]. */
function readRequests(): [string, RequestInit][] {
  const g = generation;
  const paths = [
    "/",
    "/nope",
    "/healthz",
    "/skills/index.json",
    "/skills/solo/index.json",
    "/skills/nested/index.json",
    "/skills/review-me/index.json",
    "/skills/bad-skill/index.json",
    "/skills/missing/index.json",
    "/skills/solo/SKILL.md",
    "/skills/nested/SKILL.md",
    "/skills/nested/references/guide.md",
    "/skills/nested/references/deep/more.md",
    "/skills/nested/assets/logo.png",
    "/skills/nested/assets/page.html",
    "/skills/nested/scripts/run.sh",
    "/skills/nested/references/nope.md",
    "/skills/bad-skill/SKILL.md",
    "/skills/missing/SKILL.md",
    "/skills/nested/references%2fguide.md",
    "/skills/Bad_Name/SKILL.md",
    "/.well-known/agent-skills/index.json",
    "/.well-known/agent-skills/solo.tar.gz",
    "/.well-known/agent-skills/nested.zip",
    "/.well-known/agent-skills/bad-skill.zip",
    "/.well-known/agent-skills/nested.rar",
    "/.well-known/agent-skills/solo/SKILL.md",
    "/.well-known/agent-skills/nested/references/guide.md",
    "/.well-known/skills/index.json",
    "/.well-known/skills/nested/references/guide.md",
    "/.well-known/skills/bad-skill/SKILL.md",
    "/v1/shelf",
    `/g/${g}/skills/index.json`,
    `/g/${g}/skills/solo/SKILL.md`,
    `/g/${g}/.well-known/agent-skills/index.json`,
    `/g/${g}/.well-known/agent-skills/nested.tar.gz`,
    `/g/${g}/v1/shelf`,
    `/g/${"0".repeat(64)}/skills/solo/SKILL.md`,
    "/g/not-a-generation/skills/solo/SKILL.md",
    "/c/some-token/skills/solo/SKILL.md",
  ];
  const out: [string, RequestInit][] = [];
  for (const p of paths) out.push([`GET ${p}`, {}]);
  for (const p of ["/skills/solo/SKILL.md", "/skills/index.json", "/.well-known/agent-skills/nested.zip", "/skills/missing/SKILL.md"])
    out.push([`HEAD ${p}`, { method: "HEAD" }]);
  out.push(["GET /skills/nested/references/guide.md Range: bytes=2-5", { headers: { Range: "bytes=2-5" } }]);
  out.push(["GET /skills/nested/references/guide.md Range: bytes=900-", { headers: { Range: "bytes=900-" } }]);
  out.push(["GET /skills/solo/SKILL.md Origin", { headers: { Origin: "https://agent.example" } }]);
  out.push(["GET /skills/missing/SKILL.md Origin", { headers: { Origin: "https://agent.example" } }]);
  out.push([
    "OPTIONS /skills/solo/SKILL.md preflight",
    { method: "OPTIONS", headers: { Origin: "https://agent.example", "Access-Control-Request-Method": "GET" } },
  ]);
  out.push([
    "OPTIONS /.well-known/agent-skills/index.json preflight",
    { method: "OPTIONS", headers: { Origin: "https://agent.example", "Access-Control-Request-Method": "GET" } },
  ]);
  out.push(["POST /skills/solo/SKILL.md", { method: "POST", body: "x" }]);
  return out;
}

/** Sends each request twice: plainly, then with the ETag the first answer gave (a 304 sweep). */
async function sweepReads(fetcher: (r: Request) => Promise<Response>, prefix: string, headers: Record<string, string> = {}): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (const [label, init] of readRequests()) {
    const path = label.split(" ")[1]!;
    const merged = { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } };
    resetStorageMemory();
    const first = await fetcher(new Request(`${BASE}${prefix}${path}`, merged));
    const etag = first.headers.get("etag");
    out.push(await record(`${prefix} ${label}`, first));
    if (etag && (init.method ?? "GET") === "GET" && first.status === 200) {
      const again = await fetcher(new Request(`${BASE}${prefix}${path}`, { ...merged, headers: { ...merged.headers, "If-None-Match": etag } }));
      out.push(await record(`${prefix} ${label} If-None-Match`, again));
    }
  }
  return out;
}

it("every read and admin route answers the recorded status, headers and body", async () => {
  const publicEnv = await adminEnv();
  const sweep: Recorded[] = [];
  const publicFetch = workerFetch(publicEnv);
  sweep.push(...(await sweepReads(publicFetch, "")));

  const readHash = await sha256Hex(READ_TOKEN);
  const privateEnv = { ...publicEnv, SHELF_VISIBILITY: "private", READ_TOKEN_SHA256: readHash, SHELF_CAPABILITY_URLS: "on" };
  const privateFetch = workerFetch(privateEnv);
  for (const path of ["/skills/solo/SKILL.md", "/skills/index.json", "/.well-known/agent-skills/index.json", "/v1/shelf"]) {
    resetStorageMemory();
    sweep.push(await record(`private no token GET ${path}`, await privateFetch(new Request(`${BASE}${path}`))));
    sweep.push(
      await record(
        `private wrong token GET ${path}`,
        await privateFetch(new Request(`${BASE}${path}`, { headers: { Authorization: "Bearer wrong-token-value" } })),
      ),
    );
  }
  sweep.push(...(await sweepReads(privateFetch, "", { Authorization: `Bearer ${READ_TOKEN}` })));
  sweep.push(...(await sweepReads(privateFetch, `/c/${READ_TOKEN}`)));

  const legacyOnly = workerFetch({ ...publicEnv, SHELF_DISCOVERY: "v0.1" });
  for (const path of ["/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"]) {
    resetStorageMemory();
    sweep.push(await record(`discovery v0.1 only GET ${path}`, await legacyOnly(new Request(`${BASE}${path}`))));
  }

  // The admin API: authentication, each route's answers and its input errors.
  const admin = workerFetch(publicEnv);
  const a = async (label: string, request: Request) => {
    resetStorageMemory();
    sweep.push(await record(`admin ${label}`, await admin(request)));
  };
  await a("GET /pointer no token", adminRequest("GET", "/pointer", undefined, null));
  await a("GET /pointer wrong token", adminRequest("GET", "/pointer", undefined, "wrong"));
  await a("GET /pointer", adminRequest("GET", "/pointer"));
  await a("GET /history", adminRequest("GET", "/history"));
  await a("GET /advisories", adminRequest("GET", "/advisories"));
  await a("GET /nope", adminRequest("GET", "/nope"));
  const extra = await buildGeneration([await skillInput("extra", { "references/a.md": "# A\n" })]);
  const blob = extra.objects.find((o) => o.kind === "blob")!;
  const recordObject = extra.objects.find((o) => o.kind === "record")!;
  await a("POST /missing", adminRequest("POST", "/missing", { blobs: [blob.sha256], records: [recordObject.sha256], shards: [], generations: [extra.id] }));
  await a("POST /missing not json", new Request(`${BASE}/admin/v1/missing`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` }, body: "{nope" }));
  await a("POST /missing array", adminRequest("POST", "/missing", [1, 2]));
  await a(
    "POST /missing too large",
    new Request(`${BASE}/admin/v1/missing`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` }, body: "x".repeat(2_000_000) }),
  );
  await a(
    "PUT /blobs wrong digest",
    new Request(`${BASE}/admin/v1/blobs/${"a".repeat(64)}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: "hello" }),
  );
  await a("PUT /blobs bad sha", new Request(`${BASE}/admin/v1/blobs/xyz`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: "hello" }));
  await a(
    "PUT /blobs",
    new Request(`${BASE}/admin/v1/blobs/${blob.sha256}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: blob.bytes }),
  );
  await a(
    "PUT /blobs again",
    new Request(`${BASE}/admin/v1/blobs/${blob.sha256}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: blob.bytes }),
  );
  await a(
    "PUT /records not json",
    new Request(`${BASE}/admin/v1/records/${"b".repeat(64)}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: "{" }),
  );
  await a(
    "PUT /generations unknown shards",
    new Request(`${BASE}/admin/v1/generations/${extra.id}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body: extra.manifestBytes }),
  );
  await a("POST /pointer missing generation", adminRequest("POST", "/pointer", {}));
  await a("POST /pointer unknown generation", adminRequest("POST", "/pointer", { generation: "c".repeat(64), previous: generation }));
  await a("POST /pointer stale previous", adminRequest("POST", "/pointer", { generation, previous: "d".repeat(64) }));
  await a("POST /pointer bad previous", adminRequest("POST", "/pointer", { generation, previous: 7 }));
  await a("POST /rollback unknown", adminRequest("POST", "/rollback", { generation: "e".repeat(64), previous: generation }));
  await a("POST /rollback current", adminRequest("POST", "/rollback", { generation, previous: generation }));
  await a("POST /advisories bad", adminRequest("POST", "/advisories", { advisories: "nope" }));
  await a("POST /advisories", adminRequest("POST", "/advisories", { advisories: [] }));
  await a("POST /gc bad keep", adminRequest("POST", "/gc", { keep: "two" }));
  await a("POST /gc dry run", adminRequest("POST", "/gc", { keep: 1, grace_seconds: 0 }));

  await expect(`${JSON.stringify(sweep, null, 1)}\n`).toMatchFileSnapshot("./route-sweep.json");
});
