// A deterministic shelf on disk for the build and publish benchmarks: N skills of about 50 KiB
// each (SKILL.md, two references, a script and a binary asset), the shape issue 18 measured
// (1,000 skills, ~50 MB). The same seed writes the same bytes on every machine.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const WORDS =
  "agent skill shelf review deploy build cache index trust advisory publish release rollback incident query schema table migrate test lint format bundle worker edge request response header token catalog outline section reference script asset manifest archive generation pointer shard record blob hash digest sign verify key origin".split(
    " ",
  );

/** A small deterministic PRNG (mulberry32): the bench's bytes must not depend on Math.random. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function prose(rand: () => number, chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const sentence = Array.from({ length: 8 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(" ");
    const line = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
    out.push(line);
    length += line.length + 1;
  }
  return out.join(rand() < 0.2 ? "\n\n" : " ");
}

/** The name of the i-th generated skill. */
export function benchSkillName(i: number): string {
  return `bench-skill-${String(i).padStart(5, "0")}`;
}

/**
 * How big a generated skill is: "full" (~50 KiB in five files, the build and HTTP benches) or
 * "lean" (~10 KiB, the same five kinds of file smaller, and a semver `version`), so the budget
 * bench can hold 10,000 skills on disk and publish them in minutes.
 */
export type SkillProfile = "full" | "lean";

/** The files of the i-th skill, path → bytes or text. */
export function benchSkillFiles(i: number, revision = 0, profile: SkillProfile = "full"): Record<string, string | Uint8Array> {
  if (profile === "lean") return leanSkillFiles(i, revision);
  const rand = prng(i * 7919 + revision * 104729 + 1);
  const name = benchSkillName(i);
  const sections = Array.from({ length: 6 }, (_v, s) => `## Step ${s + 1}: ${prose(rand, 30)}\n\n${prose(rand, 400)}\n`).join("\n");
  const skillMd = [
    "---",
    `name: ${name}`,
    `description: ${JSON.stringify(`Use to ${prose(rand, 120).replace(/\.$/, "")}.`)}`,
    "metadata:",
    `  tags: "${WORDS[i % WORDS.length]}, ${WORDS[(i * 3) % WORDS.length]}"`,
    `  version: "1.${revision}.0"`,
    "---",
    "",
    `# ${name}`,
    "",
    prose(rand, 300),
    "",
    sections,
  ].join("\n");
  const asset = new Uint8Array(16 * 1024);
  for (let b = 0; b < asset.length; b++) asset[b] = Math.floor(rand() * 256);
  return {
    "SKILL.md": skillMd,
    "references/guide.md": `# Guide\n\n${prose(rand, 14_000)}\n`,
    "references/api.md": `# API\n\n${prose(rand, 12_000)}\n`,
    "scripts/run.py": `# ${name}\nimport sys\n\n${Array.from({ length: 60 }, (_v, l) => `def step_${l}(x):\n    return x + ${l}  # ${prose(rand, 20)}\n`).join("\n")}`,
    "assets/data.bin": asset,
  };
}

function leanSkillFiles(i: number, revision: number): Record<string, string | Uint8Array> {
  const rand = prng(i * 7919 + revision * 104729 + 7);
  const name = benchSkillName(i);
  const sections = Array.from({ length: 4 }, (_v, s) => `## Step ${s + 1}: ${prose(rand, 30)}\n\n${prose(rand, 300)}\n`).join("\n");
  const skillMd = [
    "---",
    `name: ${name}`,
    `description: ${JSON.stringify(`Use to ${prose(rand, 120).replace(/\.$/, "")}.`)}`,
    `version: "1.${revision}.0"`,
    "metadata:",
    `  tags: "${WORDS[i % WORDS.length]}, ${WORDS[(i * 3) % WORDS.length]}"`,
    "---",
    "",
    `# ${name}`,
    "",
    prose(rand, 200),
    "",
    sections,
  ].join("\n");
  const asset = new Uint8Array(1024);
  for (let b = 0; b < asset.length; b++) asset[b] = Math.floor(rand() * 256);
  return {
    "SKILL.md": skillMd,
    "references/guide.md": `# Guide\n\n${prose(rand, 4_000)}\n`,
    "references/api.md": `# API\n\n${prose(rand, 2_000)}\n`,
    "scripts/run.py": `# ${name}\nimport sys\n\n${Array.from({ length: 10 }, (_v, l) => `def step_${l}(x):\n    return x + ${l}  # ${prose(rand, 20)}\n`).join("\n")}`,
    "assets/data.bin": asset,
  };
}

/**
 * Writes a shelf of `skills` generated skills under `dir` (dir/skills/<name>/…).
 * @example writeBenchShelf("/tmp/shelf", 1000) // ~50 MB, 5,000 files
 */
export function writeBenchShelf(dir: string, skills: number, profile: SkillProfile = "full"): { files: string[]; bytes: number } {
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < skills; i++) bytes += writeBenchSkill(dir, i, 0, files, profile);
  return { files, bytes };
}

/** Writes (or rewrites) the i-th skill at a revision; returns the bytes written. */
export function writeBenchSkill(dir: string, i: number, revision: number, files: string[] = [], profile: SkillProfile = "full"): number {
  let bytes = 0;
  for (const [rel, content] of Object.entries(benchSkillFiles(i, revision, profile))) {
    const file = path.join(dir, "skills", benchSkillName(i), rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    files.push(file);
    bytes += typeof content === "string" ? Buffer.byteLength(content) : content.length;
  }
  return bytes;
}
