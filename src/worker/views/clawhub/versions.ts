// A skill's versions as ClawHub clients see them: the version index (through the shelf service)
// with blocked versions left out, each named as core/api/clawhub.ts names it, `latest` the
// highest release as /v1 resolves it, and one version opened in its own generation.
import { clawhubVersion, versionsNamed } from "../../../core/api/clawhub.ts";
import { matching, newestFirst } from "../../../core/versions/resolve.ts";
import { ShelfError } from "../../errors.ts";
import type { ReadContext } from "../../read/context.ts";
import { NotOnShelfError } from "../../shelf/errors.ts";
import type { ServedSkill, ShelfService } from "../../shelf/service.ts";
import type { JudgedVersion, ResolvedVersion } from "../../shelf/versions.ts";

/** One skill's servable versions, newest first, and what the answers are keyed by. */
export interface SkillVersions {
  name: string;
  /** The skill as the request's generation serves it (blocked: never here). */
  skill: ServedSkill;
  /** Newest first (highest precedence, then most recently current); blocked ones left out. */
  versions: JudgedVersion[];
  latest: JudgedVersion;
  /** The version index's seq and the current generation: every answer over versions depends on both. */
  key: { index: number; current: string };
}

/**
 * The servable versions of `name`.
 * @throws NotOnShelfError, SkillBlockedError (the skill itself), NotOnShelfError when no version is servable
 */
export async function skillVersions(c: ReadContext, name: string): Promise<SkillVersions> {
  const shelf = c.get("shelf");
  const skill = await shelf.skill(name);
  const view = await shelf.versions([name]);
  const versions = (view.versions.get(name) ?? []).filter((v) => v.blocked === null).sort(newestFirst);
  const latest = matching(versions, { kind: "latest" })[0];
  if (!latest) throw NotOnShelfError.skill(name);
  return { name, skill, versions, latest, key: { index: view.index.seq, current: view.generation } };
}

/**
 * The version a request names: `version` (as clawhubVersion names it), else the tag (only
 * `latest` exists), else the latest.
 * @throws ShelfError 404 naming the versions there are
 */
export function pickVersion(s: SkillVersions, version: string | undefined, tag: string | undefined): JudgedVersion {
  if (version !== undefined && version !== "" && version !== "latest") {
    const found = versionsNamed(s.versions, version)[0];
    if (found) return found;
    const known = s.versions.map(clawhubVersion).slice(0, 10).join(", ");
    throw new ShelfError("not_found", 404, `Version ${version.slice(0, 80)} of ${s.name} is not on this shelf. Versions: ${known}.`);
  }
  if (tag !== undefined && tag !== "" && tag !== "latest")
    throw new ShelfError("not_found", 404, `Tag ${tag.slice(0, 80)} of ${s.name} is not on this shelf: only latest is.`);
  return s.latest;
}

/** One version opened in the generation it was last current in (its record, and a shelf service pinned there). */
export function openVersion(c: ReadContext, s: SkillVersions, v: JudgedVersion): Promise<ResolvedVersion<ShelfService>> {
  return c.get("shelf").resolve([v], s.name, clawhubVersion(v), { kind: "tree", tree_hash: v.tree_hash });
}

/** Milliseconds since the epoch of an ISO instant (0 when unreadable, which the index never stores). */
export function epochMs(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 0;
}

/** A version as the answers list it. */
export function versionJson(v: JudgedVersion) {
  return { version: clawhubVersion(v), createdAt: epochMs(v.first_published_at), changelog: "" };
}

/** Reason code of a skill held for review, in ClawHub's moderation fields. */
export const REVIEW_REASON = "skillshelf.requires_review";

/**
 * ClawHub's moderation fields for a version. A skill the shelf holds for review is
 * `isSuspicious`: the CLI then asks before installing (non-interactive: needs --force) and
 * `update` skips it without --force, which is what "a person reviews it first" means here.
 * Blocked skills never get this far (they are absent), so isMalwareBlocked is always false.
 */
export function moderationOf(v: JudgedVersion) {
  return v.requiresReview
    ? {
        isSuspicious: true,
        isMalwareBlocked: false as const,
        verdict: "suspicious" as const,
        reasonCodes: [REVIEW_REASON],
        summary: "This shelf holds the skill for review (its trust records, bundled scripts or an advisory): read its files before an agent uses it.",
      }
    : { isSuspicious: false, isMalwareBlocked: false as const, verdict: "clean" as const, reasonCodes: [], summary: null };
}
