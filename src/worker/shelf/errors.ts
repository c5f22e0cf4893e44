// What the shelf service answers besides its results: something the shelf does not have (404), or
// a skill an advisory in force blocks (410). Both are ShelfErrors (src/worker/errors.ts), so every
// view words them from the same classify(); storage failures are storage's StorageUnavailableError.
import { ShelfError } from "../errors.ts";
import type { BlockingAdvisory } from "./verdict.ts";

/** What kind of thing was asked for and is not on the shelf. */
export type MissingKind = "skill" | "file" | "generation" | "path";

/**
 * The shelf has no such skill, file or generation (or nothing published yet). `subject` names
 * what was asked for, ready to start a sentence ("Skill 'x'", "File 'p' of skill 'x'").
 * @example throw NotOnShelfError.skill("code-review")
 */
export class NotOnShelfError extends ShelfError {
  readonly kind: MissingKind;
  readonly subject: string;

  constructor(kind: MissingKind, subject: string) {
    super("not_found", 404, `${subject} is not on this shelf.`, { hint: "Fetch the index to see what is." });
    this.name = "NotOnShelfError";
    this.kind = kind;
    this.subject = subject;
  }

  /** A skill this generation does not have (or a name no skill could have). */
  static skill(name: string): NotOnShelfError {
    return new NotOnShelfError("skill", `Skill '${name.slice(0, 80)}'`);
  }

  /** A file the skill does not have; `skill` is null when the path could not name a file at all. */
  static file(path: string, skill: string | null): NotOnShelfError {
    return new NotOnShelfError("file", skill === null ? `File '${path.slice(0, 120)}'` : `File '${path}' of skill '${skill}'`);
  }

  /** A pinned generation that is not stored (never published, or collected by gc). */
  static generation(id: string): NotOnShelfError {
    return new NotOnShelfError("generation", `Generation ${id}`);
  }

  /** A generation the history does not remember (in /v1/changes?since=). */
  static historyGeneration(id: string): NotOnShelfError {
    return new NotOnShelfError("generation", `Generation ${id.slice(0, 64)} (in the history)`);
  }

  /** Nothing has been published yet, so there is no current generation. */
  static nothingPublished(): NotOnShelfError {
    return new NotOnShelfError("generation", "This shelf has nothing published yet, so this path");
  }

  /** Anything else that cannot be on a shelf (a malformed generation id, a path no route serves). */
  static path(): NotOnShelfError {
    return new NotOnShelfError("path", "This path");
  }
}

/**
 * The skill is on the shelf, but an advisory in force blocks it: never serve its bytes.
 * @example throw new SkillBlockedError("bad-skill", verdict.blocked)
 */
export class SkillBlockedError extends ShelfError {
  readonly skill: string;
  readonly advisory: BlockingAdvisory;

  constructor(skill: string, advisory: BlockingAdvisory) {
    super(
      "blocked",
      410,
      `Skill '${skill}' is blocked by advisory ${advisory.advisory_id ?? "(unnamed)"} (${advisory.severity}): ${advisory.hidden_issue}. Do not use it.`,
      { members: { advisory } },
    );
    this.name = "SkillBlockedError";
    this.skill = skill;
    this.advisory = advisory;
  }
}
