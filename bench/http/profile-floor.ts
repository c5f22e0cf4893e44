// Where the Worker's own per-request time goes, in workerd: a small shelf (100 skills) built and
// published as bench/http.bench.ts does, then V8's sampling profiler on skillshelf's isolate while a
// bounded number of requests of one kind run (loopback, 4 connections), its samples summed by
// function (self time). A tool for finding the per-request floor, not a bench: nothing is written to
// docs. Run: node --import ./bench/register-tsx.mjs bench/http/profile-floor.ts [route…]
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Inspector } from "../budget/inspector.ts";
import { benchSkillName, writeBenchShelf } from "../shelf-gen.ts";
import { type BenchRequest, loadRound, pool, send } from "./load.ts";
import { bundleSkillshelf, runNode, skillshelfConfig, startWorkerd } from "./workerd.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SKILLS = 100;
const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 3000);
const tmp = mkdtempSync(path.join(tmpdir(), "skillshelf-floor-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));

const shelfDir = path.join(tmp, "shelf");
const buildDir = path.join(tmp, "build");
writeBenchShelf(shelfDir, SKILLS);
const cli = path.join(ROOT, "bin/skillshelf.js");
const [, bundle] = await Promise.all([runNode([cli, "build", shelfDir, "--out", buildDir], { cwd: ROOT }), bundleSkillshelf(ROOT, path.join(tmp, "bundle"))]);
const token = randomBytes(32).toString("hex");
const workerd = await startWorkerd({
  stateDir: path.join(tmp, "state"),
  inspector: true,
  skillshelf: { bundle, config: skillshelfConfig(ROOT), extraVars: { PUBLISH_TOKEN_SHA256: createHash("sha256").update(token).digest("hex") } },
});
try {
  await runNode([cli, "publish", "--url", workerd.skillshelf!.origin, "--dir", buildDir, "--token-env", "T"], { cwd: ROOT, env: { T: token, CI: "1" } });
  const target = pool(workerd.skillshelf!, 4);
  const names = Array.from({ length: SKILLS }, (_, i) => benchSkillName(i));
  const routes: Record<string, BenchRequest[]> = {
    healthz: [{ path: "/healthz", status: 200 }],
    "skill-md": names.map((n) => ({ path: `/skills/${n}/SKILL.md`, status: 200 })),
    reference: names.map((n) => ({ path: `/skills/${n}/references/guide.md`, status: 200 })),
    // A revalidation that matches: no body, so the per-request floor is nearly all of it.
    "not-modified": await Promise.all(
      names.map(async (n) => {
        const etag = (await fetch(`${workerd.skillshelf!.origin}/skills/${n}/SKILL.md`)).headers.get("ETag") ?? "";
        return { path: `/skills/${n}/SKILL.md`, headers: { "If-None-Match": etag }, status: 304 };
      }),
    ),
  };
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(routes);
  const isolate = await Inspector.connect(workerd.inspector!, "skillshelf");
  await isolate.send("Profiler.setSamplingInterval", { interval: 100 });
  for (const id of wanted) {
    const requests = routes[id]!;
    for (const r of requests) await send(target, r);
    await isolate.send("Profiler.start");
    const cpu0 = workerd.cpuSeconds();
    const round = await loadRound(target, requests, { requests: REQUESTS, seconds: 10, connections: 4 }, () => workerd.cpuSeconds());
    const { profile } = (await isolate.send("Profiler.stop")) as { profile: Profile };
    const cpu = (workerd.cpuSeconds() - cpu0) * 1000;
    console.log(`\n== ${id}: ${round.requests} requests, ${round.perSecond.toFixed(0)}/s, workerd ${(cpu / round.requests).toFixed(3)} ms/request`);
    summarize(profile, round.requests);
  }
  isolate.close();
  await target.close();
} finally {
  await workerd.stop();
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

function summarize(profile: Profile, requests: number): void {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  for (const [i, id] of profile.samples.entries()) {
    const d = profile.timeDeltas[i + 1] ?? 0;
    const f = nodes.get(id)!.callFrame;
    if (f.functionName === "(idle)") continue;
    busy += d;
    const key = (c: Profile["nodes"][number]["callFrame"]) => `${c.functionName || "(anon)"} :${c.lineNumber}`;
    self.set(key(f), (self.get(key(f)) ?? 0) + d);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = key(nodes.get(at)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + d);
    }
  }
  const per = (us: number) => `${(us / requests).toFixed(1).padStart(6)} µs`;
  console.log(`isolate busy ${per(busy)} per request`);
  console.log("self:");
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${per(v)} ${k}`);
  console.log("total:");
  for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${per(v)} ${k}`);
}
