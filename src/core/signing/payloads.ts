// The signed bytes. A skill is signed over agentskills-core 0.7.0's agentskills-snapshot-v1 payload
// (trust.signature_payload), a generation over skillshelf-generation-v1, both ASCII-escaped JSON
// with sorted keys, so a Python agent rebuilds the first with the reference library and the second
// with json.dumps alone.
import { sha256Hex } from "../skill/hash.ts";
import { compareCodePoints } from "../python-compat/py-text.ts";
import { asciiJsonBytes } from "./ascii-json.ts";

/** agentskills-core's contract name for a skill snapshot signature. */
export const SNAPSHOT_CONTRACT = "agentskills-snapshot-v1";
/** Our contract name for a generation signature. */
export const GENERATION_CONTRACT = "skillshelf-generation-v1";
/** agentskills-core's origin bound (characters). */
export const MAX_ORIGIN_LENGTH = 512;

/** A payload that cannot be built or a signature that does not hold; the message says which and why. */
export class SigningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningError";
  }
}

/** One file as the revision sees it: path, size, and its SHA-256 as 64 hex characters. */
export interface RevisionFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Why `origin` is not an origin agentskills-core accepts (non-empty, at most 512 characters, no
 * control characters below U+0020), or undefined when it is.
 */
export function originProblem(origin: unknown): string | undefined {
  if (typeof origin !== "string" || origin.length === 0) return "origin must be a non-empty string (a stable URL identity such as https://shelf.example.com)";
  if (origin.length > MAX_ORIGIN_LENGTH) return `origin is ${origin.length} characters; at most ${MAX_ORIGIN_LENGTH} are allowed`;
  for (const ch of origin) if (ch.codePointAt(0)! < 0x20) return "origin must not contain control characters";
  return undefined;
}

function checkedOrigin(origin: unknown): string {
  const problem = originProblem(origin);
  if (problem) throw new SigningError(problem);
  return origin as string;
}

/**
 * agentskills-core's content_revision: "sha256:" + SHA-256 of the ASCII-escaped JSON list of
 * [path, size, "sha256:<hex>"] in code-point path order.
 * @example await contentRevision([{ path: "SKILL.md", size: 3, sha256 }]) // "sha256:…"
 */
export async function contentRevision(files: readonly RevisionFile[]): Promise<string> {
  const sorted = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  return `sha256:${await sha256Hex(asciiJsonBytes(sorted.map((f) => [f.path, f.size, `sha256:${f.sha256}`])))}`;
}

/** What a skill signature covers besides its contract name. */
export interface SnapshotClaim {
  origin: string;
  /** The skill name (skillshelf's skillId). */
  skillId: string;
  /** The frontmatter `version`: a string or null. Anything else cannot be signed. */
  version: unknown;
  /** {@link contentRevision} of the skill's files. */
  revision: string;
}

/**
 * agentskills-core's signature_payload bytes: {"contract","origin","revision","skillId","version"}.
 * Throws SigningError for a bad origin or a version that is not a string (as the reference does).
 * @example new TextDecoder().decode(snapshotPayload({ origin, skillId: "pdf-tools", version: null, revision }))
 */
export function snapshotPayload(claim: SnapshotClaim): Uint8Array {
  const origin = checkedOrigin(claim.origin);
  if (claim.version !== null && typeof claim.version !== "string") {
    throw new SigningError(`the version of ${claim.skillId} is not a string (${JSON.stringify(claim.version)}); signed content needs a quoted version`);
  }
  return asciiJsonBytes({ contract: SNAPSHOT_CONTRACT, origin, skillId: claim.skillId, version: claim.version, revision: claim.revision }, { sortKeys: true });
}

/** What a generation signature covers: the origin, the generation id and every skill's revision. */
export interface GenerationClaim {
  origin: string;
  generation: string;
  /** [name, revision] for every skill of the generation, any order (sorted here by code point). */
  skills: readonly (readonly [string, string])[];
}

/** The generation payload as a JSON value (what /v1/shelf shows beside the signature). */
export function generationPayloadValue(claim: GenerationClaim): { contract: string; generation: string; origin: string; skills: [string, string][] } {
  const origin = checkedOrigin(claim.origin);
  const skills = claim.skills.map(([name, revision]) => [name, revision] as [string, string]).sort((a, b) => compareCodePoints(a[0], b[0]));
  for (let i = 1; i < skills.length; i++) if (skills[i]![0] === skills[i - 1]![0]) throw new SigningError(`skill ${skills[i]![0]} is listed twice`);
  return { contract: GENERATION_CONTRACT, generation: claim.generation, origin, skills };
}

/**
 * The skillshelf-generation-v1 bytes: {"contract","generation","origin","skills":[[name, revision], …]}
 * with sorted keys and names in code-point order, ASCII-escaped.
 */
export function generationPayload(claim: GenerationClaim): Uint8Array {
  return asciiJsonBytes(generationPayloadValue(claim), { sortKeys: true });
}
