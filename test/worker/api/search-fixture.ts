// The shelf the search tests publish: skills with tags, when_to_use and section titles, one that
// an advisory blocks and one that needs review, and the ranking core computes for it (the same
// index the build stores, ranked by the same function), which every answer is compared with.
import { env } from "cloudflare:workers";
import { searchableRecord } from "../../../src/core/generation/assemble.ts";
import { canonicalDocument } from "../../../src/core/generation/canonical-json.ts";
import { GenerationManifestSchema, POINTER_SCHEMA } from "../../../src/core/generation/manifest.ts";
import { buildSearchIndex, parseQuery, prepareSearchIndex, searchIndex, type SearchHit } from "../../../src/core/search/bm25.ts";
import { R2_POINTER_KEY, r2Key } from "../../../src/worker/storage/keys.ts";
import { BLOCKING_ADVISORY, publishFixtureShelf, type FixtureSkill, type PublishedFixture } from "../fixture-shelf.ts";

function skillMd(name: string, description: string, options: { tags?: string; when?: string[]; sections?: string[] } = {}): string {
  const when = options.when?.length ? `when_to_use:\n${options.when.map((w) => `  - ${w}\n`).join("")}` : "";
  const tags = options.tags ? `metadata:\n  tags: "${options.tags}"\n` : "";
  const sections = (options.sections ?? []).map((s) => `## ${s}\n\nDo it.\n\n`).join("");
  return `---\nname: ${name}\ndescription: ${description}\n${when}${tags}---\n\n# ${name}\n\nIntro.\n\n${sections}`;
}

const fixture = (name: string, description: string, options: Parameters<typeof skillMd>[2] = {}, extra: Partial<FixtureSkill> = {}): FixtureSkill => ({
  name,
  description,
  files: { "SKILL.md": skillMd(name, description, options) },
  ...extra,
});

/** The search shelf: `key-rotation` names its subject only in a section title (legacy indexes have none). */
export const SEARCH_SKILLS: FixtureSkill[] = [
  fixture("code-review", "Review a code change (a pull request or a diff) for correctness and write feedback.", {
    tags: "review, quality",
    when: ["Asked to review a PR or a diff before merging."],
    sections: ["Before you read the diff", "Writing the feedback"],
  }),
  fixture("incident-response", "Run a production incident from the first alert to a stable system.", {
    tags: "incident, on-call",
    when: ["An alert fired and production is degraded."],
    sections: ["First five minutes", "Roles"],
  }),
  fixture("writing-postmortems", "Write a blameless postmortem after an incident, with a timeline and action items.", {
    sections: ["Timeline", "Action items"],
  }),
  fixture("secrets-handling", "Keep credentials out of source control and logs.", { sections: ["Vault setup", "Key rotation drills"] }),
  fixture("dependency-upgrades", "Upgrade third-party dependencies safely, reading changelogs first.", { tags: "dependencies" }, { requiresReview: true }),
  fixture("bad-skill", "Formats dates in incident reports and review notes."),
];

/** The advisory in force that blocks bad-skill. */
export const SEARCH_ADVISORIES = [BLOCKING_ADVISORY];

/** Publishes the search shelf with bad-skill blocked. */
export function publishSearchShelf(): Promise<PublishedFixture> {
  return publishFixtureShelf(env, SEARCH_SKILLS, { advisories: SEARCH_ADVISORIES });
}

/**
 * What core ranks for `q` on a published fixture: the index built from its records (with
 * section titles, as the build stores it) or, `legacy`, from its entries without them.
 */
export function expectedHits(published: PublishedFixture, q: string, limit: number, options: { blocked?: string[]; legacy?: boolean } = {}): SearchHit[] {
  const records = [...published.records.values()].map(searchableRecord);
  const index = prepareSearchIndex(buildSearchIndex(options.legacy ? records.map((r) => ({ ...r, sections: [] })) : records));
  const blocked = new Set(options.blocked ?? ["bad-skill"]);
  return searchIndex(index, parseQuery(q).terms, { limit, accept: (name) => !blocked.has(name) });
}

/**
 * Re-publishes a fixture's generation with another search index: none (`null`, as manifests
 * built before the index existed) or the given JSON stored as its blob; points the shelf at it
 * and returns its id.
 */
export async function republishWithSearchIndex(published: PublishedFixture, index: unknown | null, seq: number): Promise<string> {
  const stored = await (await env.SHELF_BUCKET.get(r2Key("generation", published.generation)))!.json();
  const { search: _dropped, ...manifest } = GenerationManifestSchema.parse(stored);
  let search = {};
  if (index !== null) {
    const blob = await canonicalDocument(index);
    await env.SHELF_BUCKET.put(r2Key("blob", blob.sha256), blob.bytes);
    search = { search: { sha256: blob.sha256, size: blob.size } };
  }
  const doc = await canonicalDocument({ ...manifest, ...search });
  await env.SHELF_BUCKET.put(r2Key("generation", doc.sha256), doc.bytes);
  const at = "2026-11-30T11:00:00.000Z";
  await env.SHELF_BUCKET.put(
    R2_POINTER_KEY,
    JSON.stringify({
      schema: POINTER_SCHEMA,
      generation: doc.sha256,
      seq,
      published_at: at,
      history: [{ seq, generation: doc.sha256, action: "publish", at }],
    }),
  );
  return doc.sha256;
}
