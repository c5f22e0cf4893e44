// Builds a fixture generation in workerd from in-memory skill folders with the core's
// assembleGeneration (the same code `skillshelf build` uses) and writes it to the test's R2
// bucket in the layout docs/storage.md documents (objects, manifest, pointer, advisories). KV is left
// empty on purpose: the reader must fall back to R2, and tests can count binding calls.
import { assembleGeneration, describeSkill, type SkillBuildInput } from "../../src/core/generation/assemble.ts";
import { buildInventory } from "../../src/core/skill/inventory.ts";
import { ADVISORIES_SCHEMA, POINTER_SCHEMA, type Advisory, type Shard, type SkillEntry, type SkillRecord } from "../../src/core/generation/manifest.ts";
import type { SkillFile } from "../../src/core/skill/skill.ts";
import { validateSkillMd } from "../../src/core/skill/validate.ts";
import { withAudit } from "./audit-fixture.ts";
import { R2_ADVISORIES_KEY, R2_POINTER_KEY, r2Key } from "../../src/worker/storage/keys.ts";
import { mapLimit } from "../../src/core/publish/map-limit.ts";

/** An active critical advisory blocking the fixture skill `bad-skill` (any tree hash). */
export const BLOCKING_ADVISORY = {
  name: "bad-skill",
  source: "first-party",
  official_intent: "formats dates",
  hidden_issue: "exfiltrates environment variables",
  severity: "critical" as const,
  reference: "https://example.test/adv/1",
  tree_hash: null,
  advisory_id: "ADV-2026-001",
  discovered_at: "2026-11-01",
  status: "active",
  withdrawn_reason: null,
  withdrawn_at: null,
};

/**
 * An active critical advisory against `name` (any tree hash unless `overrides` pins one): the
 * fixture advisory every test that needs one starts from, changed only where the test cares.
 * @example advisoryFor("alpha", { advisory_id: "ADV-LIVE-1" })
 */
export function advisoryFor(name: string, overrides: Partial<Omit<typeof BLOCKING_ADVISORY, "tree_hash">> & { tree_hash?: string | null } = {}) {
  return { ...BLOCKING_ADVISORY, name, ...overrides };
}

/**
 * The generated documents of a fixture shelf with a skill named "nested" that take no argument (the
 * isolate's cache and the Cache API keep each): the static layout's root and skill indexes, both
 * well-known indexes, /v1/shelf and /v1/catalog.
 */
export const GENERATED_DOCUMENTS: readonly string[] = [
  "/skills/index.json",
  "/skills/nested/index.json",
  "/.well-known/agent-skills/index.json",
  "/.well-known/skills/index.json",
  "/v1/shelf",
  "/v1/catalog",
];

/**
 * The two-skill shelf the route tests start from: a lone SKILL.md and a skill with one reference
 * (the "nested" GENERATED_DOCUMENTS names).
 */
export const SOLO_AND_NESTED: readonly FixtureSkill[] = [
  { name: "solo", description: "A skill that is only a SKILL.md." },
  { name: "nested", description: "A skill with a reference.", files: { "references/guide.md": "# Guide\n" } },
];

/** One fixture skill: its name, description and files (SKILL.md is generated when absent). */
export interface FixtureSkill {
  name: string;
  description: string;
  files?: Record<string, string | Uint8Array>;
  requiresReview?: boolean;
  source?: string;
}

/** What a published fixture generation holds, for assertions. */
export interface PublishedFixture {
  generation: string;
  entries: Map<string, SkillEntry>;
  records: Map<string, SkillRecord>;
  /** The exact bytes of every file, by skill and path. */
  files: Map<string, Map<string, Uint8Array>>;
  archives: Map<string, { tarGz: Uint8Array; zip: Uint8Array }>;
}

const encoder = new TextEncoder();

/** The SKILL.md a fixture skill gets when it declares none. */
export function fixtureSkillMd(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nFollow the steps.\n`;
}

/** Writes one generation of `skills` to R2 (built by the core's assembleGeneration) and points the shelf at it. */
export async function publishFixtureShelf(
  env: { SHELF_BUCKET: R2Bucket },
  skills: readonly FixtureSkill[],
  options: {
    advisories?: Advisory[];
    advisoriesSeq?: number;
    publishedAt?: string;
    seq?: number;
    /** Publish the audit with the generation, as `skillshelf build` does (the real scanner over each skill's files). */
    audit?: boolean;
  } = {},
): Promise<PublishedFixture> {
  const bucket = env.SHELF_BUCKET;
  const out: PublishedFixture = { generation: "", entries: new Map(), records: new Map(), files: new Map(), archives: new Map() };
  const inputs: SkillBuildInput[] = [];
  for (const skill of skills) {
    const raw = { "SKILL.md": fixtureSkillMd(skill.name, skill.description), ...(skill.files ?? {}) };
    const files: SkillFile[] = Object.entries(raw).map(([path, v]) => ({ path, bytes: typeof v === "string" ? encoder.encode(v) : v }));
    const inventory = await buildInventory(files);
    const validation = validateSkillMd(skill.name, files.find((f) => f.path === "SKILL.md")!.bytes);
    if (!validation.metadata || !validation.parsed) throw new Error(`fixture skill ${skill.name} is unreadable: ${JSON.stringify(validation.problems)}`);
    const requiresReview = skill.requiresReview ?? false;
    inputs.push({
      files,
      record: describeSkill(validation.metadata, validation.parsed, inventory, {
        source: skill.source ?? "first-party",
        validations: [],
        verdict: {
          level: requiresReview ? "unverified" : "first_party",
          blocked: false,
          requires_review: requiresReview,
          attachable: !requiresReview,
          reasons: [],
          warnings: [],
        },
      }),
    });
    if (options.audit) withAudit(inputs.at(-1)!);
    out.files.set(skill.name, new Map(files.map((f) => [f.path, f.bytes])));
  }
  const built = await assembleGeneration(inputs, {
    catalogVersion: null,
    recordDigests: { validations: null, advisories: null, guidance: null, catalog: null },
    advisories: null,
  });
  // Blobs with the SHA-256 checksum the admin upload gives them (src/worker/admin/uploads.ts), 16
  // puts at a time (one at a time cost list-shelf-order.test's 320-skill fixture about a third of its time).
  await mapLimit(built.objects, 16, (object) =>
    bucket.put(r2Key(object.kind, object.sha256), object.bytes, object.kind === "blob" ? { sha256: object.sha256 } : {}),
  );
  const blobs = new Map(built.objects.filter((o) => o.kind === "blob").map((o) => [o.sha256, o.bytes]));
  for (const object of built.objects) {
    if (object.kind === "blob") continue;
    const text = new TextDecoder().decode(object.bytes);
    if (object.kind === "record") {
      const record = JSON.parse(text) as SkillRecord;
      out.records.set(record.name, record);
      // The archives as the build made them (the same function over the same files; built once).
      out.archives.set(record.name, { tarGz: blobs.get(record.archives.tar_gz.sha256)!, zip: blobs.get(record.archives.zip.sha256)! });
    } else if (object.kind === "shard") {
      for (const entry of (JSON.parse(text) as Shard).skills) out.entries.set(entry.name, entry);
    }
  }
  out.generation = built.id;
  await bucket.put(r2Key("generation", built.id), built.manifestBytes);
  const seq = options.seq ?? 1;
  const publishedAt = options.publishedAt ?? "2026-11-30T10:00:00.000Z";
  await bucket.put(
    R2_POINTER_KEY,
    JSON.stringify({
      schema: POINTER_SCHEMA,
      generation: out.generation,
      seq,
      published_at: publishedAt,
      history: [{ seq, generation: out.generation, action: "publish", at: publishedAt }],
    }),
  );
  await setFixtureAdvisories(env, options.advisories ?? [], options.advisoriesSeq ?? 1);
  return out;
}

/** Replaces the advisories in force (the mutable record every route applies). */
export async function setFixtureAdvisories(env: { SHELF_BUCKET: R2Bucket }, advisories: Advisory[], seq: number): Promise<void> {
  await env.SHELF_BUCKET.put(R2_ADVISORIES_KEY, JSON.stringify({ schema: ADVISORIES_SCHEMA, advisories, seq, updated_at: "2026-11-30T10:00:00.000Z" }));
}
