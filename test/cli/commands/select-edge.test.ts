// The edge equals the CLI: the trust shelf (test/worker/api/trust-shelf.ts) written as a shelf
// folder, built and published to a real local Worker the way `npm start` does, its advisories
// then changed with `skillshelf advise` (a withdrawal, a blocking advisory); `skillshelf select
// --json` and `skillshelf trust --json` on the folder are compared with POST /v1/select and
// GET /v1/trust on the running Worker. What legitimately differs is mapped, nothing else:
// where a copy lives (a folder path vs /g/<generation>/skills/<name>), the wording of the
// enable notes (--enable/--names vs the body's fields), and the Worker's hold on a skill whose
// build-time advisory was withdrawn (kept until the next build, with its reason).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_TOKEN_FILE, startShelfOnFreePort, type RunningShelf } from "../../../scripts/start.ts";
import { serializeAdvisories, serializeValidations } from "../../../src/core/trust/serialize.ts";
import type { SelectableSkill } from "../../../src/core/trust/select.ts";
import { effectiveToolsForSkill } from "../../../src/core/trust/tools.ts";
import { trustShelf, type TrustShelf } from "../../worker/api/trust-shelf.ts";
import { runInProcess, type InProcessRun } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-select-edge-"));
const shelfDir = path.join(root, "shelf");
let shelf: TrustShelf;
let running: RunningShelf | undefined;

/** Runs the CLI in this process (the Worker is this process's child, serving while the command awaits it). */
function cli(args: string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  return runInProcess(args, { env });
}

beforeAll(async () => {
  shelf = await trustShelf();
  for (const [name, files] of shelf.files) {
    for (const file of files) {
      const at = path.join(shelfDir, "skills", name, file.path);
      mkdirSync(path.dirname(at), { recursive: true });
      writeFileSync(at, file.bytes);
    }
  }
  writeFileSync(path.join(shelfDir, "validations.yaml"), serializeValidations(shelf.validations));
  writeFileSync(path.join(shelfDir, "advisories.yaml"), serializeAdvisories(shelf.buildAdvisories));
  running = await startShelfOnFreePort({ shelfDir, persistTo: path.join(root, "state"), buildDir: path.join(root, "build") });
  // After publishing, the operator withdraws one advisory and blocks a skill; the folder says the same.
  writeFileSync(path.join(shelfDir, "advisories.yaml"), serializeAdvisories(shelf.advisoriesInForce));
  const advised = await cli(["advise", "--url", running.url, shelfDir], { SKILLSHELF_PUBLISH_TOKEN: readFileSync(LOCAL_TOKEN_FILE, "utf8").trim() });
  if (advised.code !== 0) throw new Error(`advise failed: ${advised.stderr}`);
}, 180_000);

afterAll(async () => {
  await running?.stop();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

const ALL = ["audited-skill", "scripted-skill", "unverified-skill", "renamed-skill", "warned-skill", "withdrawn-skill", "bad-skill"];

/**
 * The CLI's selection in the edge's terms: its locations, its enable notes' wording, the fields
 * the edge answers, and (the CLI has no grant) each active skill's effective tools as core
 * computes them from the skill the CLI activated.
 */
function asEdge(cliJson: Record<string, unknown>, generation: string, grant: string[]): Record<string, unknown> {
  const { active, record_warnings: _records, ...selection } = cliJson as { active: SelectableSkill[]; record_warnings: unknown };
  let text = JSON.stringify(selection);
  for (const name of ALL) text = text.replaceAll(JSON.stringify(path.join(shelfDir, "skills", name)).slice(1, -1), `/g/${generation}/skills/${name}`);
  const mapped = JSON.parse(text) as { warnings: string[] };
  mapped.warnings = mapped.warnings.map((w) =>
    w
      .replace(/^--enable (".*?") /, "enabled entry $1 ")
      .replace(/names no requested skill \(--names (.*)\); it grants nothing$/, "names no requested skill (names: $1); it grants nothing"),
  );
  const effective_tools = Object.fromEntries(active.map((skill) => [skill.name, effectiveToolsForSkill(grant, skill)]));
  return { generation, ...mapped, effective_tools };
}

const GRANT = ["Bash(git:*)", "Grep", "Read", "write_file"];

async function bothSelections(names: string[], enabled: string[]) {
  const local = await cli(["select", shelfDir, "--names", names.join(","), ...enabled.flatMap((e) => ["--enable", e]), "--json"]);
  expect(local.code, local.stderr).toBe(0);
  const res = await fetch(`${running!.url}/v1/select`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ names, enabled, grant: GRANT }),
  });
  expect(res.status).toBe(200);
  const edge = (await res.json()) as Record<string, unknown> & { generation: string };
  return { edge, local: asEdge(JSON.parse(local.stdout) as Record<string, unknown>, edge.generation, GRANT) };
}

describe("POST /v1/select on a running Worker equals skillshelf select on the shelf folder", () => {
  it("with nothing enabled: active, held, blocked, missing, warnings, requires, tree hashes, the activation block", async () => {
    const { edge, local } = await bothSelections([...ALL, "no-such-skill", "audited-skill"], []);
    expect(edge).toEqual(local);
    expect(edge.active_names).toEqual(["audited-skill", "withdrawn-skill"]);
    expect((edge.blocked as { name: string }[]).map((b) => b.name)).toEqual(["bad-skill"]);
    expect(edge.generation).toBe(running!.generation);
  }, 60_000);

  it("with bare and pinned enables, a stale pin, and entries that grant nothing (the API refuses malformed pins, which the CLI warns about)", async () => {
    const tree = (name: string) => shelf.inventories.get(name)!.tree_hash;
    const enabled = [
      "unverified-skill",
      `scripted-skill@${tree("scripted-skill")}`,
      `warned-skill@${"0".repeat(64)}`,
      `bad-skill@${tree("bad-skill")}`,
      "no-such-name",
    ];
    const { edge, local } = await bothSelections(ALL, enabled);
    expect(edge).toEqual(local);
    expect(edge.active_names).toEqual(["audited-skill", "scripted-skill", "unverified-skill", "withdrawn-skill"]);
    expect((edge.effective_tools as Record<string, { allowed: string[] }>)["scripted-skill"]!.allowed).toEqual(["Bash(git:*)", "Read"]);
    expect((edge.warnings as string[]).some((w) => w.startsWith('enabled entry "no-such-name" names no requested skill'))).toBe(true);
  }, 60_000);
});

describe("GET /v1/trust on a running Worker equals skillshelf trust on the shelf folder", () => {
  it("gives every served skill the CLI's verdict, holding the withdrawn-advisory skill until the next build", async () => {
    const local = await cli(["trust", shelfDir, "--json"]);
    expect(local.code, local.stderr).toBe(0);
    const verdicts = (JSON.parse(local.stdout) as { skills: { name: string; verdict: { blocked: boolean; reasons: string[] } }[] }).skills;
    const edge = (await (await fetch(`${running!.url}/v1/trust`)).json()) as { skills: { name: string; verdict: unknown }[]; blocked: { name: string }[] };
    expect(edge.blocked.map((b) => b.name)).toEqual(verdicts.filter((v) => v.verdict.blocked).map((v) => v.name));
    const served = verdicts.filter((v) => !v.verdict.blocked);
    expect(edge.skills.map((s) => s.name)).toEqual(served.map((v) => v.name));
    for (const { name, verdict } of served) {
      const atEdge = edge.skills.find((s) => s.name === name)!.verdict as { reasons: string[] };
      if (name !== "withdrawn-skill") expect(atEdge, name).toEqual(verdict);
      else {
        expect(atEdge).toEqual({ ...verdict, requires_review: true, attachable: false, reasons: [...verdict.reasons, atEdge.reasons.at(-1)] });
        expect(atEdge.reasons.at(-1)).toMatch(/^review: the build's verdict requires review \(/);
      }
    }
  }, 60_000);
});
