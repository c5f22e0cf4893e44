// The catalog's storage budget on a 1,000-skill shelf, held by counting binding calls: a cold
// /v1/catalog reads the shards once; a repeated request (any format, any equal argument set)
// reads no R2 object and no KV; a new argument set on a warm isolate reads nothing either (the
// shards are in memory); and nothing on the request path writes KV. Bytes equal the core's.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { renderCatalog } from "../../../src/core/disclosure/catalog.ts";
import type { BuiltGeneration } from "../../../src/core/generation/assemble.ts";
import { resetComputedCache } from "../../../src/worker/read/respond.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { r2Key } from "../../../src/worker/storage/keys.ts";
import { adminEnv, adminRequest, buildGeneration, newCounts, skillInput, total, WORKER_URL, workerFetch } from "../admin/helpers.ts";
import { expectDocumented } from "./openapi-check.ts";

const NAMES = Array.from({ length: 1000 }, (_, i) => `skill-${String(i).padStart(4, "0")}`);
let built: BuiltGeneration;

beforeAll(async () => {
  await reset();
  resetStorageMemory();
  const skills = [];
  for (const name of NAMES) skills.push(await skillInput(name));
  built = await buildGeneration(skills);
  for (let i = 0; i < built.objects.length; i += 50) {
    await Promise.all(built.objects.slice(i, i + 50).map((o) => env.SHELF_BUCKET.put(r2Key(o.kind, o.sha256), o.bytes, { sha256: o.sha256 })));
  }
  await env.SHELF_BUCKET.put(r2Key("generation", built.id), built.manifestBytes);
  const res = await workerFetch(await adminEnv())(adminRequest("POST", "/pointer", { generation: built.id, previous: null }));
  expect(res.status).toBe(200);
}, 120_000);

/** What the CLI's catalog reads for each skill: the metadata the build validated (the records hold it too). */
function catalogInput() {
  return built.objects
    .filter((o) => o.kind === "record")
    .map(
      (o) =>
        JSON.parse(new TextDecoder().decode(o.bytes)) as {
          name: string;
          description: string;
          when_to_use: string[];
          when_not_to_use: string[];
          tags: string[];
        },
    );
}

describe("/v1/catalog on a 1,000-skill shelf", () => {
  it("reads the shards once cold, then nothing for a repeated or a new argument set, and never writes KV", async () => {
    resetStorageMemory();
    resetComputedCache();
    const counts = newCounts();
    const call = workerFetch(await adminEnv(counts));
    const url = `${WORKER_URL}/v1/catalog?format=markdown&max_chars=8000&total=1200`;

    const cold = await call(new Request(url));
    await expectDocumented("get", url, cold);
    expect(cold.status).toBe(200);
    const text = await cold.text();
    expect(text).toBe(renderCatalog(catalogInput(), { format: "markdown", maxChars: 8000, total: 1200 }));
    expect(text).toContain("_Catalog truncated: showing ");
    expect(counts.calls["R2.get"] ?? 0).toBeGreaterThan(built.manifest.shards.length - 1);

    for (const k of Object.keys(counts.calls)) delete counts.calls[k];
    const again = await call(new Request(url));
    await expectDocumented("get", url, again);
    expect(await again.text()).toBe(text);
    expect(total(counts, "R2.")).toBe(0);
    expect(total(counts, "KV.")).toBe(0);

    // Equal arguments written differently share the cached answer.
    const reordered = await call(new Request(`${WORKER_URL}/v1/catalog?total=1200&max_chars=8000&format=markdown`));
    await expectDocumented("get", "/v1/catalog?format=markdown", reordered);
    expect(await reordered.text()).toBe(text);
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(0);

    // A new argument set on a warm isolate computes anew from shards held in memory.
    const json = await call(new Request(`${WORKER_URL}/v1/catalog?format=json&exclude=skill-0000`));
    await expectDocumented("get", `${WORKER_URL}/v1/catalog?format=json`, json);
    const body = (await json.json()) as { shown: number; skills: Array<{ name: string }> };
    expect(body.shown).toBe(999);
    expect(body.skills[0]!.name).toBe("skill-0001");
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(0);

    const etag = again.headers.get("ETag")!;
    const conditional = await call(new Request(url, { headers: { "If-None-Match": etag } }));
    await expectDocumented("get", url, conditional);
    expect(conditional.status).toBe(304);
    expect(total(counts, "R2.") + total(counts, "KV.")).toBe(0);
    expect(counts.calls["KV.put"] ?? 0).toBe(0);
  });

  it("the fast path picks its candidate without bodies: with 1,000 skills in play it reads nothing, on a miss or a hit", async () => {
    resetComputedCache();
    const counts = newCounts();
    const call = workerFetch(await adminEnv(counts));
    for (const attempt of ["miss", "hit"]) {
      const res = await call(new Request(`${WORKER_URL}/v1/fast-path?max_tokens=100000`));
      await expectDocumented("get", "/v1/fast-path", res);
      expect(await res.json(), attempt).toEqual({ applies: false, reason: "no fast path: 1000 skills are in play, the fast path needs exactly 1" });
      expect(total(counts, "R2.") + total(counts, "KV."), attempt).toBe(0);
    }
  });

  it("serves a repeated catalog from the computed cache: with the storage memory gone it reads no shard, a new argument set reads them all", async () => {
    const url = `${WORKER_URL}/v1/catalog?tags=none-of-these`;
    const first = await workerFetch(await adminEnv())(new Request(url));
    await expectDocumented("get", url, first);
    expect(first.status).toBe(200);
    resetStorageMemory();
    const counts = newCounts();
    const call = workerFetch(await adminEnv(counts));
    const again = await call(new Request(url));
    await expectDocumented("get", url, again);
    expect(await again.text()).toBe(await first.text());
    // The pointer, the advisories and the manifest (to know the generation the key names), no shard.
    expect(counts.calls["R2.get"] ?? 0).toBeLessThanOrEqual(3);
    for (const k of Object.keys(counts.calls)) delete counts.calls[k];
    const other = await call(new Request(`${url}&format=markdown`));
    await expectDocumented("get", `${url}&format=markdown`, other);
    expect(other.status).toBe(200);
    expect(counts.calls["R2.get"] ?? 0).toBeGreaterThanOrEqual(built.manifest.shards.length);
  });
});
