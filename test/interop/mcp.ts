// The official MCP TypeScript client against a running shelf's /mcp, both protocol eras:
// SkillsClient lists every skill and reads every file with verification (size, digest, and the
// frontmatter it parses from SKILL.md), compared byte for byte with the shelf folder; and the
// eight tools answer as agentskills-mcp-server 0.6.0 did over the same skills (the goldens).
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";

type Era = "modern" | "legacy";
const ERAS: readonly Era[] = ["modern", "legacy"];

interface GoldenCall {
  tool: string;
  arguments: Record<string, string>;
  isError: boolean;
  text: string;
}

/** What one check found: the problems, and a line saying what was checked. */
export interface McpCheck {
  problems: string[];
  summary: string;
}

async function connect(url: string, era: Era): Promise<Client> {
  const client = new Client({ name: "skillshelf-interop", version: "1.0.0" }, era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/** Every file of a skill folder, by its skill-relative path (dotfiles skipped, as the build skips them). */
async function folderFiles(dir: string, prefix = ""): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) for (const [p, b] of await folderFiles(dir, rel)) out.set(p, b);
    else out.set(rel, new Uint8Array(await readFile(path.join(dir, rel))));
  }
  return out;
}

/**
 * SkillsClient on both eras reads every file of every skill of `shelfDir` (served at `url`) with
 * verification, and each file equals the one on disk.
 */
export async function readEverySkill(url: string, shelfDir: string): Promise<McpCheck> {
  const problems: string[] = [];
  const names = (await readdir(path.join(shelfDir, "skills"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  let files = 0;
  for (const era of ERAS) {
    const client = await connect(url, era);
    try {
      const skills = new SkillsClient(client);
      if (!skills.supported || !skills.directoryRead) problems.push(`${era}: the skills extension (with directoryRead) is not declared`);
      const listing = await skills.list();
      const listed = listing.skills.map((s) => s.frontmatter.name).sort();
      if (listing.invalid.length > 0) problems.push(`${era}: invalid entries ${JSON.stringify(listing.invalid)}`);
      if (JSON.stringify(listed) !== JSON.stringify([...names].sort())) problems.push(`${era}: listed ${listed.join(", ")}; the shelf has ${names.join(", ")}`);
      if (era === "modern" && (listing.ttlMs === undefined || listing.cacheScope !== "public"))
        problems.push(`${era}: skills/list without ttlMs/cacheScope public`);
      for (const entry of listing.skills) {
        const { skill } = await skills.get(entry.uri);
        const onDisk = await folderFiles(path.join(shelfDir, "skills", skill.frontmatter.name));
        const resources = skill.resources === "dynamic" ? [] : skill.resources;
        if (resources.length !== onDisk.size) problems.push(`${era}: ${skill.uri} lists ${resources.length} files, the folder has ${onDisk.size}`);
        for (const resource of resources) {
          try {
            const file = await skills.read(skill, resource.uri);
            const rel = decodeURIComponent(new URL(resource.uri).pathname.slice(1));
            const expected = onDisk.get(rel);
            if (!file.verified) problems.push(`${era}: ${resource.uri} was not verified`);
            if (expected === undefined || Buffer.compare(Buffer.from(file.bytes), Buffer.from(expected)) !== 0)
              problems.push(`${era}: ${resource.uri} differs from the file on disk`);
            files++;
          } catch (error) {
            problems.push(`${era}: ${resource.uri}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }
    } finally {
      await client.close();
    }
  }
  return { problems, summary: `${names.length} skills, ${files / ERAS.length} files per era, both eras` };
}

/** The golden skills (test/goldens/mcp-tools) as a shelf folder, for a shelf to build and serve. */
export async function writeGoldenShelf(dir: string): Promise<void> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  const golden = JSON.parse(await readFile(path.resolve(import.meta.dirname, "../goldens/mcp-tools/tools.json"), "utf8")) as {
    skills: Record<string, Record<string, { text?: string; base64?: string }>>;
  };
  for (const [name, files] of Object.entries(golden.skills)) {
    for (const [rel, content] of Object.entries(files)) {
      const target = path.join(dir, "skills", name, rel);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content.text !== undefined ? Buffer.from(content.text, "utf8") : Buffer.from(content.base64!, "base64"));
    }
  }
}

/** Every golden tool call over HTTP, both eras, against a shelf serving the golden skills. */
export async function compareToolGoldens(url: string): Promise<McpCheck> {
  const golden = JSON.parse(await readFile(path.resolve(import.meta.dirname, "../goldens/mcp-tools/tools.json"), "utf8")) as {
    calls: GoldenCall[];
    tools: { name: string }[];
  };
  const problems: string[] = [];
  for (const era of ERAS) {
    const client = await connect(url, era);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      if (JSON.stringify(names) !== JSON.stringify(golden.tools.map((t) => t.name))) problems.push(`${era}: tools ${names.join(", ")}`);
      for (const call of golden.calls) {
        const result = await client.callTool({ name: call.tool, arguments: call.arguments });
        const text = (result.content as { type: string; text?: string }[])[0]?.text;
        if (text !== call.text || (result.isError ?? false) !== call.isError) {
          problems.push(
            `${era}: ${call.tool}(${JSON.stringify(call.arguments)}) answered ${JSON.stringify(text)?.slice(0, 200)} (isError ${result.isError ?? false})`,
          );
        }
      }
    } finally {
      await client.close();
    }
  }
  return { problems, summary: `${golden.calls.length} calls per era, both eras` };
}
