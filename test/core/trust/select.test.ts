// selectSkills over an in-memory source, as the Worker runs it with hashes computed at build:
// the gate, pins and notes without a filesystem. (Parity with abstractskill over real folders
// is in test/cli/commands/select.test.ts.)
import { describe, expect, it } from "vitest";
import { selectSkills, parseEnabled, type SkillSource } from "../../../src/core/trust/select.ts";
import type { AdvisoryEntry, ValidationRecord } from "../../../src/core/trust/records.ts";

const h = (c: string) => c.repeat(64);
const skills: Record<string, { tree_hash: string; has_scripts: boolean; metadata?: Record<string, unknown> }> = {
  clean: { tree_hash: h("a"), has_scripts: false },
  scripted: { tree_hash: h("b"), has_scripts: true, metadata: { requires_tools: "write_file" } },
  banned: { tree_hash: h("c"), has_scripts: false },
  stranger: { tree_hash: h("d"), has_scripts: false },
};
const memory: SkillSource = {
  resolve(name) {
    const s = skills[name];
    if (!s) return { ok: false, message: `skill not found: ${name}` };
    return {
      ok: true,
      resolved: {
        skill: { name, description: `${name} <desc>`, metadata: s.metadata ?? {} },
        tree_hash: s.tree_hash,
        has_scripts: s.has_scripts,
        location: `shelf:skills/${name}`,
      },
    };
  },
};
const record = (name: string, extra: Partial<ValidationRecord> = {}): ValidationRecord => ({
  name,
  source: "team",
  tree_hash: skills[name]!.tree_hash,
  level: "first_party",
  method: "first-party",
  validated_by: "t",
  validated_at: "d",
  evidence: {},
  notes: null,
  activation_description: null,
  audience: "host",
  delivered_via_map: false,
  ...extra,
});
const ban: AdvisoryEntry = {
  name: "banned",
  source: "x",
  official_intent: "i",
  hidden_issue: "bad",
  severity: "low",
  reference: "r",
  tree_hash: h("c"),
  advisory_id: null,
  discovered_at: null,
  status: "active",
  withdrawn_reason: null,
  withdrawn_at: null,
};
const records = { validations: [record("clean", { activation_description: 'Clean & "quoted"' }), record("scripted"), record("banned")], advisories: [ban] };

describe("selectSkills with a precomputed source", () => {
  it("gates: attachable active, review held, blocked never, missing reported", async () => {
    const s = await selectSkills(records, memory, ["clean", "scripted", "banned", "stranger", "ghost"], { enabled: ["banned"] });
    expect(s.active_names).toEqual(["clean"]);
    expect(s.held.map((x) => x.name)).toEqual(["scripted", "stranger"]);
    expect(s.blocked.map((x) => x.name)).toEqual(["banned"]);
    expect(s.missing).toEqual(["ghost"]);
    expect(s.requires).toEqual({ scripted: { mcp_servers: [], tools: ["write_file"] } });
    expect(s.activation_block).toBe(
      "<available_skills>\n  <skill>\n    <name>clean</name>\n    <description>Clean &amp; &quot;quoted&quot;</description>\n  </skill>\n</available_skills>",
    );
  });
  it("a pin grants exactly the pinned bytes", async () => {
    const ok = await selectSkills(records, memory, ["scripted"], { enabled: [`scripted@${h("B")}`] });
    expect(ok.active_names).toEqual(["scripted"]);
    expect(ok.warnings).toEqual([`skill 'scripted' activated by hash-pinned operator enable from shelf:skills/scripted (tree ${"b".repeat(16)}…)`]);
    const stale = await selectSkills(records, memory, ["scripted"], { enabled: [`scripted@${h("e")}`, "scripted"] });
    expect(stale.active_names).toEqual([]);
    expect(stale.warnings.some((w) => w.includes(`pinned to tree(s) ['${"e".repeat(16)}…']`) && w.includes(`has tree ${"b".repeat(16)}…`))).toBe(true);
  });
  it("malformed pins grant nothing and are never demoted to bare grants", () => {
    const notes: string[] = [];
    const { bare, pins } = parseEnabled(["scripted@abc", `Scripted@${h("b")}`, `scripted@${h("b").slice(1)}`, 3], (m) => notes.push(m));
    expect([...bare]).toEqual([]);
    expect([...pins]).toEqual([]);
    expect(notes).toHaveLength(4);
  });
  it("activates nothing when nothing is requested", async () => {
    const s = await selectSkills(records, memory, []);
    expect(s.activation_block).toBe("<available_skills></available_skills>");
  });
});
