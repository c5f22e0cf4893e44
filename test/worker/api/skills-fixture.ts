// The fixture shelf of the skills-group tests: a skill with sections (preamble, repeated and
// nested headings, a fenced `#`, non-ASCII titles) and resources in every folder (nested, a
// name with a space, a PNG, a non-UTF-8 binary, a .json file, a file outside the resource
// folders); a skill the build marked requires_review; a skill an advisory in force now marks
// for review (with a file too large for as=text); and a skill an advisory blocks.
import { env } from "cloudflare:workers";
import { RESOURCE_TEXT_MAX_BYTES } from "../../../src/core/api/skills.ts";
import { outlineOf, type SkillOutline } from "../../../src/core/disclosure/outline.ts";
import { decodeSkillMd, parseSkillMd } from "../../../src/core/skill/skill-md.ts";
import type { AdvisoryEntry } from "../../../src/core/trust/records.ts";
import app from "../../../src/worker/index.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, type PublishedFixture } from "../fixture-shelf.ts";

export const BASE = "https://shelf.test";

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00, 0x80]);
export const BINARY = new Uint8Array([0xff, 0xfe, 0x00, 0x01, 0x80, 0x81]);

export const ATLAS_MD = `---
name: atlas
description: Maps a codebase before changing it.
version: "2.1.0"
license: MIT
when_to_use:
  - Starting work in an unfamiliar repository.
when_not_to_use:
  - A one-line fix.
metadata:
  tags: "Docs, Navigation"
  requires_tools: "git, rg"
  requires_mcp: "github"
---

Read this first: ünïcode preamble 🚀.

# Setup

Install the tools.

## Steps

1. Clone.

\`\`\`bash
# not a heading
\`\`\`

## Steps

Again, with a repeated title.

# Étapes finales

Done.
`;

/** An advisory in force that matches `solo` by name and source without blocking it. */
export const REVIEW_ADVISORY: AdvisoryEntry = {
  ...BLOCKING_ADVISORY,
  status: "active",
  name: "solo",
  severity: "medium",
  hidden_issue: "logs more than it should",
  advisory_id: "ADV-2026-002",
};

/** The advisories in force: BLOCKING_ADVISORY blocks `bad-skill`, REVIEW_ADVISORY holds `solo` for review. */
export const ADVISORIES: AdvisoryEntry[] = [{ ...BLOCKING_ADVISORY, status: "active" }, REVIEW_ADVISORY];

/** Publishes the fixture shelf (the current generation of the test's R2). */
export function publishSkillsFixture(): Promise<PublishedFixture> {
  return publishFixtureShelf(
    env,
    [
      {
        name: "atlas",
        description: "Maps a codebase before changing it.",
        files: {
          "SKILL.md": ATLAS_MD,
          "references/guide.md": "# Guide\n\nRead me.\n",
          "references/deep/more.md": "# More\n",
          "references/read me.md": "spaced name\n",
          "references/data.json": '{"a": 1}\n',
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
          "assets/logo.png": PNG,
          "assets/blob.bin": BINARY,
          "evals/cases.md": "not a resource\n",
        },
      },
      { name: "beacon", description: "Needs a human look first.", requiresReview: true, files: { "references/x.md": "x\n" } },
      { name: "solo", description: "A skill an advisory now marks for review.", files: { "assets/big.txt": "a".repeat(RESOURCE_TEXT_MAX_BYTES + 1) } },
      { name: "bad-skill", description: "Blocked after the build.", files: { "references/y.md": "y\n" } },
    ],
    { advisories: ADVISORIES },
  );
}

/** A request to the whole Worker. */
export function get(path: string, init: RequestInit = {}, bindings: object = env): Promise<Response> {
  return Promise.resolve(app.request(`${BASE}${path}`, init, bindings));
}

/** A fixture skill's body as agentskills-core's get_body returns it, from the published bytes. */
export function bodyOf(shelf: PublishedFixture, name: string): string {
  return parseSkillMd(decodeSkillMd(shelf.files.get(name)!.get("SKILL.md")!)).body;
}

/** The outline the core computes from the published bytes (what `skillshelf outline` computes). */
export function outlineFromBytes(shelf: PublishedFixture, name: string): SkillOutline {
  return outlineOf(name, bodyOf(shelf, name));
}
