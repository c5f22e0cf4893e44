// skillshelf audit --since <shelf URL | generation id> against the real Worker (wrangler dev on
// loopback, local R2 and KV, as npm start runs it): a shelf is published, then the local copy gains
// a script that fetches from a new host; --since the shelf's URL, its /g/<generation> URL and the
// generation id with --url each report the added script and the new host, read from what the
// shelf serves (an unchanged skill is not downloaded). After publishing the change, --since the
// shelf says nothing changed, while --since the first generation still names the change.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "../../../scripts/start.ts";
import { runInProcess } from "../run-in-process.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(path.join(tmpdir(), "skillshelf-audit-since-"));
const shelfDir = path.join(work, "shelf");
let shelf: RunningShelf;
let first = "";

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(shelfDir, rel)), { recursive: true });
  writeFileSync(path.join(shelfDir, rel), text);
}

type Since = {
  shelf?: string;
  generation?: string;
  changes: { name: string; status: string; files_added: string[]; scripts_changed: string[]; new_hosts: string[] }[];
};

async function since(...args: string[]): Promise<Since> {
  const r = await runInProcess(["audit", shelfDir, "--json", "--since", ...args]);
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  return JSON.parse(r.stdout).since as Since;
}

beforeAll(async () => {
  write(
    "skills/tool/SKILL.md",
    "---\nname: tool\ndescription: Fetches the team's tool for the audit since tests.\n---\n# Tool\n\nSee https://docs.example/tool.\n",
  );
  write("skills/tool/references/a.md", "Docs live at https://docs.example/a\n");
  write("skills/steady/SKILL.md", "---\nname: steady\ndescription: Never changes in the audit since tests.\n---\n# Steady\n");
  shelf = await startShelfOnFreePort({ shelfDir, persistTo: path.join(work, "state"), buildDir: path.join(work, "start-build") });
  const current = (await (await fetch(`${shelf.url}/v1/shelf`)).json()) as { generation: string };
  first = current.generation;
  // The local copy moves on: a script that downloads from a host the published tree never named.
  write("skills/tool/scripts/get.sh", "#!/bin/sh\ncurl -s -o /tmp/tool https://downloads.new-host.example/tool\n");
}, 180_000);

afterAll(async () => {
  await shelf?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("audit --since a published shelf", () => {
  it("--since <shelf URL> reports the added script and the new host, and only for the changed skill", async () => {
    const s = await since(shelf.url);
    expect(s.generation).toBe(first);
    expect(s.changes).toHaveLength(1);
    expect(s.changes[0]).toMatchObject({
      name: "tool",
      status: "changed",
      files_added: ["scripts/get.sh"],
      scripts_changed: ["scripts/get.sh"],
      new_hosts: ["downloads.new-host.example"],
    });
    const text = await runInProcess(["audit", shelfDir, "--since", shelf.url]);
    expect(text.stdout).toContain(`tool: changed since generation ${first.slice(0, 12)}`);
    expect(text.stdout).toContain("new network hosts: downloads.new-host.example\n");
    expect(text.stdout).toContain("scripts added or changed: scripts/get.sh");
  });

  it("--since <generation> --url <shelf> and --since <shelf>/g/<generation> read that generation", async () => {
    expect((await since(first, "--url", shelf.url)).changes.map((c) => [c.name, c.new_hosts])).toEqual([["tool", ["downloads.new-host.example"]]]);
    expect((await since(`${shelf.url}/g/${first}`)).generation).toBe(first);
    const single = await runInProcess(["audit", path.join(shelfDir, "skills", "tool"), "--json", "--since", shelf.url]);
    expect(JSON.parse(single.stdout).since.changes.map((c: { name: string }) => c.name)).toEqual(["tool"]);
  });

  it("after publishing the change the shelf has it; the first generation still differs", async () => {
    const out = path.join(work, "build");
    expect((await runInProcess(["build", shelfDir, "--out", out])).code).toBe(0);
    const token = (await readFile(path.join(ROOT, LOCAL_TOKEN_FILE), "utf8")).trim();
    const published = await runInProcess(["publish", "--url", shelf.url, "--dir", out], { env: { SKILLSHELF_PUBLISH_TOKEN: token } });
    expect(published.code, published.stderr).toBe(0);
    const now = await since(shelf.url);
    expect(now.generation).not.toBe(first);
    expect(now.changes).toEqual([]);
    expect((await runInProcess(["audit", shelfDir, "--since", shelf.url])).stdout).toContain("nothing changed");
    expect((await since(first, "--url", shelf.url)).changes.map((c) => c.name)).toEqual(["tool"]);
  });

  it("a generation the shelf never published is a clear error", async () => {
    const r = await runInProcess(["audit", shelfDir, "--since", "0".repeat(64), "--url", shelf.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`does not serve generation ${"0".repeat(64)}`);
  });
});
