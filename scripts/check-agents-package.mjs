#!/usr/bin/env node
// Checks the `skillshelf/agents` export as an agent project gets it: run from a folder where `skillshelf` (the
// packed tarball, or this checkout by self-reference after `npm run build:agents`) and `agents` are installed,
// on the machine's Node (20 in CI). It loads a small shelf through the Agents SDK's own loadSkillCatalog, reads
// a text and a binary resource byte for byte, and sees tampered bytes refused. The shelf is a stand-in fetcher
// speaking the shelf's wire format (docs/agents.md); the Worker itself is tested in test/agents (workerd).
// With `--tsc <path to tsc>` it also type-checks a consumer against the export's declarations.
// Plain JavaScript: Node 20 runs it without a build step.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadSkillCatalog } from "agents/skills";
import { SKILLSHELF_TRUST_FIELD, skillshelf } from "skillshelf/agents";

const encoder = new TextEncoder();
const GENERATION = "0123456789abcdef".repeat(4);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
// Sorted by name, as the shelf's indexes are.
const SKILLS = {
  kit: {
    "SKILL.md": encoder.encode("---\nname: kit\ndescription: A skill with resources.\n---\n\n# Kit\n\nSee references/guide.md.\n"),
    "references/guide.md": encoder.encode("# Guide ✓\n"),
    "assets/dot.png": PNG,
  },
  solo: { "SKILL.md": encoder.encode("---\nname: solo\ndescription: Only a SKILL.md.\n---\n\n# Solo\n") },
};

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

function json(body) {
  return new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", "Skillshelf-Generation": GENERATION } });
}

/** The shelf's answers for the paths the source asks for; `tamper` rewrites one file's bytes (not its digest). */
function shelf(tamper) {
  return {
    async fetch(request) {
      const url = new URL(request.url).pathname;
      if (url === "/.well-known/agent-skills/index.json") {
        const skills = [];
        for (const [name, files] of Object.entries(SKILLS)) {
          const lone = Object.keys(files).length === 1;
          const digest = lone ? hex(await sha256(files["SKILL.md"])) : hex(await sha256(encoder.encode(`${name} archive`)));
          skills.push({ name, type: lone ? "skill-md" : "archive", description: "", url: "", digest: `sha256:${digest}` });
        }
        return json({ skills });
      }
      const record = new RegExp(`^/g/${GENERATION}/v1/skills/([a-z]+)$`).exec(url);
      if (record && SKILLS[record[1]]) {
        const files = [];
        for (const [file, bytes] of Object.entries(SKILLS[record[1]])) files.push({ path: file, size: bytes.length, sha256: hex(await sha256(bytes)) });
        return json({ name: record[1], generation: GENERATION, files });
      }
      const match = new RegExp(`^/g/${GENERATION}/skills/([a-z]+)/(.+)$`).exec(url);
      const files = match && SKILLS[match[1]];
      if (!files) return new Response("{}", { status: 404 });
      const bytes = files[decodeURIComponent(match[2])];
      if (!bytes) return new Response("{}", { status: 404 });
      const digest = `sha-256=:${btoa(String.fromCharCode(...(await sha256(bytes))))}:`;
      const body = tamper === match[2] ? encoder.encode("tampered") : bytes;
      return new Response(body, { headers: { "Repr-Digest": digest, "Skillshelf-Generation": GENERATION } });
    },
  };
}

function check(condition, message) {
  if (!condition) throw new Error(`check-agents-package: ${message}`);
}

const catalog = await loadSkillCatalog([skillshelf({ binding: shelf() })]);
check(catalog.diagnostics.length === 0, `diagnostics: ${catalog.diagnostics.map((d) => d.error?.message ?? d._tag).join("; ")}`);
check(catalog.skills.map((e) => e.skill.name).join() === "kit,solo", "lists kit and solo");
check(catalog.find("kit").skill.extraFields[SKILLSHELF_TRUST_FIELD]?.generation === GENERATION, "marks the generation");
const activated = catalog.activate("kit");
check(activated.ok && activated.value.includes("See references/guide.md.") && activated.value.includes("references/guide.md</file>"), "activates kit");
for (const [file, bytes] of Object.entries(SKILLS.kit).filter(([file]) => file !== "SKILL.md")) {
  const read = await catalog.readResource({ name: "kit", path: file });
  check(read.ok, `reads kit/${file}: ${read.ok ? "" : read.error.message}`);
  const { content, encoding } = read.value.resource;
  const got = encoding === "text" ? encoder.encode(content) : Uint8Array.from(atob(content), (c) => c.charCodeAt(0));
  check(Buffer.from(got).equals(Buffer.from(bytes)), `kit/${file} byte for byte`);
}
const tampered = await loadSkillCatalog([skillshelf({ binding: shelf("references/guide.md") })]);
const refused = await tampered.readResource({ name: "kit", path: "references/guide.md" });
check(!refused.ok && /Repr-Digest/.test(refused.error.message), "refuses tampered bytes");

const tscIndex = process.argv.indexOf("--tsc");
if (tscIndex > 0) {
  const dir = mkdtempSync(path.join(process.cwd(), ".check-agents-types-"));
  try {
    const file = path.join(dir, "consumer.mts");
    writeFileSync(
      file,
      [
        'import { loadSkillCatalog, type SkillSource } from "agents/skills";',
        'import { skillshelf, SKILLSHELF_TRUST_FIELD, type SkillshelfTrust } from "skillshelf/agents";',
        'const source: SkillSource = skillshelf({ url: "https://shelf.example", token: "t" });',
        "const catalog = await loadSkillCatalog([source]);",
        "export const trust = catalog.skills[0]?.skill.extraFields[SKILLSHELF_TRUST_FIELD] as SkillshelfTrust | undefined;",
        "// @ts-expect-error requiresReview is \"mark\" or \"omit\" (an untyped export would accept anything)",
        'skillshelf({ url: "https://shelf.example", requiresReview: "hide" });',
        "",
      ].join("\n"),
    );
    const flags = ["--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2022,dom"];
    execFileSync(process.argv[tscIndex + 1], [...flags, file], { stdio: "inherit" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`skillshelf/agents on Node ${process.version}: listed, activated and read a stand-in shelf byte for byte, refused tampered bytes${tscIndex > 0 ? ", types check" : ""}\n`);
