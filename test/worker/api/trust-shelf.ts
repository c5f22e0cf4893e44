// A shelf that exercises every trust outcome, as plain data: skill folders, the validation records
// bound to their tree hashes, the advisories the build sees and the advisories in force later.
// Runtime-agnostic (core only), so the workerd tests publish it to R2 and the Node test writes it
// as a shelf folder for the real CLI: both sides judge the very same records.
import { buildInventory, type Inventory } from "../../../src/core/skill/inventory.ts";
import type { SkillFile } from "../../../src/core/skill/skill.ts";
import type { AdvisoryEntry, ValidationRecord } from "../../../src/core/trust/records.ts";

const encoder = new TextEncoder();

function skillMd(name: string, description: string, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\n## Steps\n\nFollow the steps.\n`;
}

/** Every skill folder of the shelf: name → path → text. */
export const TRUST_SKILLS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // Validated for these bytes: attachable, with an activation description.
  "audited-skill": { "SKILL.md": skillMd("audited-skill", "Audited procedures & <checks> for tests.") },
  // Validated, but bundles a script: requires review; declares tools and requirements.
  "scripted-skill": {
    "SKILL.md": skillMd(
      "scripted-skill",
      "Runs a bundled script for tests.",
      "allowed-tools: Read Bash(git:*)\nmetadata:\n  requires_mcp: [github]\n  requires_tools: gh\n",
    ),
    "scripts/run.sh": "#!/bin/sh\necho hello\n",
  },
  // No validation at all: unverified, requires review.
  "unverified-skill": { "SKILL.md": skillMd("unverified-skill", "Nobody reviewed this one.", "allowed-tools: Read Grep\n") },
  // Only a validation of a prior tree: provenance derived by name, unverified.
  "renamed-skill": { "SKILL.md": skillMd("renamed-skill", "Its validated tree is an older one.") },
  // Validated, but a medium advisory by name and source forces review.
  "warned-skill": { "SKILL.md": skillMd("warned-skill", "Carries a medium advisory.") },
  // Validated; a medium advisory matched at build time was withdrawn since.
  "withdrawn-skill": { "SKILL.md": skillMd("withdrawn-skill", "Its advisory was withdrawn after the build.") },
  // Validated; a critical advisory published after the build blocks it.
  "bad-skill": { "SKILL.md": skillMd("bad-skill", "Formats dates (and more).") },
};

/** A tree hash no skill here has: the prior tree renamed-skill's only record names. */
export const PRIOR_TREE = "ab".repeat(32);

/** The shelf as records and inventories. */
export interface TrustShelf {
  files: Map<string, SkillFile[]>;
  inventories: Map<string, Inventory>;
  validations: ValidationRecord[];
  /** advisories.yaml when the shelf is built (none blocks a skill: the build would refuse it). */
  buildAdvisories: AdvisoryEntry[];
  /** The advisories in force after publishing: the withdrawal and the blocking advisory added. */
  advisoriesInForce: AdvisoryEntry[];
}

function validation(name: string, tree: string, level: ValidationRecord["level"], method: string, extra: Partial<ValidationRecord> = {}): ValidationRecord {
  return {
    name,
    source: "first-party",
    tree_hash: tree,
    level,
    method,
    validated_by: "trust tests",
    validated_at: "2026-11-30",
    evidence: {},
    notes: null,
    activation_description: null,
    audience: "host",
    delivered_via_map: false,
    ...extra,
  };
}

function advisory(name: string, id: string, severity: AdvisoryEntry["severity"], extra: Partial<AdvisoryEntry> = {}): AdvisoryEntry {
  return {
    name,
    source: "first-party",
    official_intent: `does what ${name} says`,
    hidden_issue: `${name} hides an issue`,
    severity,
    reference: `https://example.test/adv/${id}`,
    tree_hash: null,
    advisory_id: id,
    discovered_at: "2026-11-01",
    status: "active",
    withdrawn_reason: null,
    withdrawn_at: null,
    ...extra,
  };
}

/** Builds the shelf's inventories and records (tree hashes are computed, never pasted). */
export async function trustShelf(): Promise<TrustShelf> {
  const files = new Map<string, SkillFile[]>();
  const inventories = new Map<string, Inventory>();
  for (const [name, tree] of Object.entries(TRUST_SKILLS)) {
    const list = Object.entries(tree).map(([path, text]) => ({ path, bytes: encoder.encode(text) }));
    files.set(name, list);
    inventories.set(name, await buildInventory(list));
  }
  const tree = (name: string) => inventories.get(name)!.tree_hash;
  const validations = [
    validation("audited-skill", tree("audited-skill"), "first_party", "first-party", { activation_description: "Use for audited <things> & more." }),
    validation("scripted-skill", tree("scripted-skill"), "audited", "external-audit", {
      source: "vendor-x",
      evidence: { reference: "https://example.test/audits/scripted-skill" },
    }),
    validation("renamed-skill", PRIOR_TREE, "adopted", "manual-review", { source: "vendor-y" }),
    validation("warned-skill", tree("warned-skill"), "first_party", "first-party"),
    validation("withdrawn-skill", tree("withdrawn-skill"), "first_party", "first-party"),
    validation("bad-skill", tree("bad-skill"), "first_party", "first-party"),
  ];
  const warned = advisory("warned-skill", "ADV-T-1", "medium");
  const withdrawable = advisory("withdrawn-skill", "ADV-T-2", "low");
  const withdrawn = { ...withdrawable, status: "withdrawn" as const, withdrawn_reason: "false positive", withdrawn_at: "2026-12-01" };
  const blocking = advisory("bad-skill", "ADV-T-3", "critical");
  return { files, inventories, validations, buildAdvisories: [warned, withdrawable], advisoriesInForce: [warned, withdrawn, blocking] };
}
