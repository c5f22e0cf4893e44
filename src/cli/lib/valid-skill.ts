// Loading skills for the disclosure commands (outline, section, catalog): they describe what an
// agent would be served, so they refuse a skill that would not pass validation rather than
// describe something no client would accept.
import type { Inventory } from "../../core/skill/inventory.ts";
import type { SkillMetadata } from "../../core/skill/skill.ts";
import { CliError } from "./cli.ts";
import { listShelfSkillDirs, loadSkill } from "./skill-dir.ts";

/** A skill that passed validation: its name, normalized metadata and body. */
export interface ValidSkill {
  name: string;
  dir: string;
  metadata: SkillMetadata;
  body: string;
  /** Its tree hash and file facts, as the build computes them (trust verdicts are keyed by the tree hash). */
  inventory: Inventory;
}

/** The errors of an invalid skill as one line each, indented, for a CliError message. */
function errorLines(problems: { field: string; severity: string; message: string }[]): string {
  return problems
    .filter((p) => p.severity === "error")
    .map((p) => `  - ${p.field}: ${p.message}`)
    .join("\n");
}

/** Loads one skill folder; an invalid skill is a CliError listing its errors (exit 1). */
export async function loadValidSkill(dir: string): Promise<ValidSkill> {
  const skill = await loadSkill(dir);
  const { validation } = skill;
  if (!validation.ok || !validation.metadata || !validation.parsed || !skill.inventory) {
    throw new CliError(`skill ${skill.name} is invalid; fix it first (skillshelf validate ${dir}):\n${errorLines(validation.problems)}`);
  }
  return { name: skill.name, dir, metadata: validation.metadata, body: validation.parsed.body, inventory: skill.inventory };
}

/**
 * Loads every skill of a shelf (`<shelf>/skills/<name>/`). All or nothing, like registering a
 * shelf with agentskills-core: any invalid skill fails the whole load, every one listed.
 */
export async function loadValidShelf(shelfDir: string): Promise<ValidSkill[]> {
  const skills: ValidSkill[] = [];
  const failures: string[] = [];
  for (const dir of await listShelfSkillDirs(shelfDir)) {
    const skill = await loadSkill(dir);
    const { validation } = skill;
    if (!validation.ok || !validation.metadata || !validation.parsed || !skill.inventory) {
      failures.push(`skill ${skill.name}:\n${errorLines(validation.problems)}`);
      continue;
    }
    skills.push({ name: skill.name, dir, metadata: validation.metadata, body: validation.parsed.body, inventory: skill.inventory });
  }
  if (failures.length > 0) {
    throw new CliError(`${failures.length} skill(s) in ${shelfDir} are invalid; fix them first (skillshelf validate ${shelfDir}):\n${failures.join("\n")}`);
  }
  return skills;
}
